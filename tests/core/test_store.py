from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import sqlite_utils

from desktop_app.core.cancel import Phase, Progress
from desktop_app.core.ingest import embed_pass, indexer
from desktop_app.core.ingest.note_analysis import PartPlanner
from desktop_app.core.store import meta, notes
from desktop_app.core.store.db import READERS, Database, fts5_available
from desktop_app.core.store.migrations import MIGRATIONS
from desktop_app.core.store.status import integrity
from tests.support.fakes import word_offsets


def test_fts5_is_available() -> None:
    assert fts5_available()


def test_migrations_are_named_recorded_and_applied_once(tmp_path: Path) -> None:
    db = Database(tmp_path / "q.sqlite")
    assert db.applied_migrations() == [name for name, _ in MIGRATIONS]
    db.close()
    again = Database(tmp_path / "q.sqlite")
    assert again.apply_migrations(MIGRATIONS) == []
    assert again.query("PRAGMA journal_mode")[0][0] == "wal"


def test_a_failing_migration_leaves_nothing_behind(tmp_path: Path) -> None:
    db = Database(tmp_path / "q.sqlite")

    def broken(conn: sqlite_utils.Database) -> None:
        conn.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        db.apply_migrations([("0099_broken", broken)])
    assert "0099_broken" not in db.applied_migrations()
    with pytest.raises(sqlite3.OperationalError):
        db.query("SELECT * FROM half_done")


def test_fts_stays_in_sync_through_index_update_and_delete(notes_dir: Path, tmp_path: Path) -> None:
    db = Database(tmp_path / "q.sqlite")
    options = indexer.IndexOptions()
    indexer.index_folder(db, notes_dir, options)
    assert integrity(db).ok
    chunks = db.query("SELECT count(*) FROM chunks")[0][0]
    assert chunks >= 3
    (notes_dir / "kolo.md").write_text("# Kola\n\nJiný text o kolech.\n\nDalší odstavec.", "utf-8")
    (notes_dir / "garten.txt").unlink()
    report = indexer.index_folder(db, notes_dir, options)
    assert (report.indexed, report.removed) == (1, 1)
    assert integrity(db).ok
    fts = db.query("SELECT count(*) FROM chunks_fts")[0][0]
    assert fts == db.query("SELECT count(*) FROM chunks")[0][0]


def test_unchanged_notes_are_not_rewritten(notes_dir: Path, tmp_path: Path) -> None:
    db = Database(tmp_path / "q.sqlite")
    options = indexer.IndexOptions()
    first = indexer.index_folder(db, notes_dir, options)
    assert first.indexed == 3 and first.skipped == 0
    ids = db.query("SELECT id FROM chunks ORDER BY id")
    second = indexer.index_folder(db, notes_dir, options)
    assert (second.indexed, second.unchanged) == (0, 3)
    assert db.query("SELECT id FROM chunks ORDER BY id") == ids


def test_changing_the_embedding_model_drops_vectors(notes_dir: Path, tmp_path: Path) -> None:
    import numpy as np

    db = Database(tmp_path / "q.sqlite")
    options = indexer.IndexOptions()
    indexer.index_folder(db, notes_dir, options)
    embed_pass.use_embedding_model(db, "fake-a", 4)

    def encode(texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 4), dtype=np.float32) / 2

    planner = PartPlanner(word_offsets, 200)
    first = embed_pass.embed_pending(db, encode, planner)
    assert first > 0
    assert embed_pass.embed_pending(db, encode, planner) == 0  # nothing new to embed
    assert not embed_pass.use_embedding_model(db, "fake-a", 4)
    assert embed_pass.use_embedding_model(db, "fake-b", 4)
    assert db.query("SELECT count(*) FROM embeddings")[0][0] == 0
    assert embed_pass.embed_pending(db, encode, planner) == first


def parts_of(db: Database) -> list[tuple[int, int, int, str, int, int]]:
    return db.query(
        "SELECT p.chunk_id, p.start, p.end, c.text, c.start, c.end FROM chunk_parts p"
        " JOIN chunks c ON c.id = p.chunk_id ORDER BY p.chunk_id, p.part"
    )


def test_keyword_indexing_leaves_parts_to_the_embedding_pass(
    notes_dir: Path, tmp_path: Path
) -> None:
    db = Database(tmp_path / "q.sqlite")
    (notes_dir / "long.md").write_text(" ".join(f"slovo{i}" for i in range(400)), "utf-8")
    indexer.index_folder(db, notes_dir, indexer.IndexOptions(chunk_tokens=2000))
    assert parts_of(db) == []
    seen: list[Progress] = []
    planned = embed_pass.plan_parts(db, PartPlanner(word_offsets, 100), seen.append)
    chunks = db.query("SELECT count(*) FROM chunks")[0][0]
    assert planned == chunks
    assert seen[-1] == Progress(Phase.PARTS, chunks, chunks)
    parts = parts_of(db)
    assert {p[0] for p in parts} == {r[0] for r in db.query("SELECT id FROM chunks")}
    assert len(parts) > chunks  # the long note was cut into several parts
    assert all(c_start <= start < end <= c_end for _, start, end, _, c_start, c_end in parts)
    assert embed_pass.plan_parts(db, PartPlanner(word_offsets, 100)) == 0


def test_each_pending_part_is_its_own_cut_of_the_chunk_text(
    notes_dir: Path, tmp_path: Path
) -> None:
    """SQLite cuts a part's text as Python would, by characters: accents, CJK and characters
    past the Basic Multilingual Plane count one each."""
    db = Database(tmp_path / "q.sqlite")
    words = [f"{w}{i}" for i in range(300) for w in ("žluťoučký", "Grüße", "漢字", "🍞x")][:400]
    (notes_dir / "long.md").write_text("# Chléb\n\n" + " ".join(words), "utf-8")
    indexer.index_folder(db, notes_dir, indexer.IndexOptions(chunk_tokens=2000))
    embed_pass.plan_parts(db, PartPlanner(word_offsets, 100))
    expected = {}
    for hash_, start, end, part, parts, c_start, text, title, heading in db.query(
        "SELECT p.embed_hash, p.start, p.end, p.part, p.parts, c.start, c.text, n.title,"
        " c.heading_path FROM chunk_parts p JOIN chunks c ON c.id = p.chunk_id"
        " JOIN notes n ON n.id = c.note_id"
    ):
        cut = text[start - c_start : end - c_start]
        heading_path = tuple(json.loads(heading or "[]"))
        expected[hash_] = embed_pass.embedding_input(title or "", heading_path, cut, part, parts)
    pending = dict(embed_pass.pending_embeddings(db))
    assert pending == expected
    assert any("🍞" in text for text in pending.values()) and len(pending) > 4


def test_parts_planned_for_a_replaced_chunk_are_not_written(
    notes_dir: Path, tmp_path: Path
) -> None:
    """The embedding pass reads chunks, then the watcher re-indexes the note before the parts
    are written (chunk ids are reused): parts of the old text must not land on the new chunk."""
    db = Database(tmp_path / "q.sqlite")
    options = indexer.IndexOptions(chunk_tokens=2000)
    long_note = notes_dir / "long.md"
    long_note.write_text(" ".join(f"slovo{i}" for i in range(400)), "utf-8")
    indexer.index_folder(db, notes_dir, options)
    edited: list[bool] = []

    def offsets_while_the_note_changes(text: str) -> list[tuple[int, int]]:
        if not edited and len(text) > 1000:
            edited.append(True)
            long_note.write_text("short now " + " ".join(f"jine{i}" for i in range(300)), "utf-8")
            indexer.index_folder(db, notes_dir, options)
        return word_offsets(text)

    embed_pass.plan_parts(db, PartPlanner(offsets_while_the_note_changes, 100))
    assert edited
    embed_pass.plan_parts(db, PartPlanner(word_offsets, 100))  # the next pass plans the new chunk
    parts = parts_of(db)
    long_id = db.query(
        "SELECT c.id FROM chunks c JOIN notes n ON n.id = c.note_id WHERE n.path = 'long.md'"
    )[0][0]
    long_parts = [p for p in parts if p[0] == long_id]
    assert long_parts and all(p[3].startswith("short now") for p in long_parts)
    assert all(c_start <= start < end <= c_end for _, start, end, _, c_start, c_end in parts)
    assert long_parts[-1][2] == long_parts[-1][5]  # the parts reach the end of the new text


def test_vectors_of_a_re_indexed_note_survive_until_its_parts_are_planned(
    notes_dir: Path, tmp_path: Path
) -> None:
    """An embedding pass that ends while a note was just re-indexed (its chunks have no parts
    yet) must not drop the vectors of the paragraphs that did not change."""
    import numpy as np

    db = Database(tmp_path / "q.sqlite")
    options = indexer.IndexOptions(chunk_tokens=20)
    note = notes_dir / "long.md"
    paragraphs = [f"Paragraph {i} talks about topic{i} at some length here." for i in range(6)]
    note.write_text("\n\n".join(paragraphs), "utf-8")
    indexer.index_folder(db, notes_dir, options)
    embed_pass.use_embedding_model(db, "fake", 4)
    encoded: list[str] = []

    def encode(texts: list[str]) -> np.ndarray:
        encoded.extend(texts)
        return np.ones((len(texts), 4), dtype=np.float32) / 2

    planner = PartPlanner(word_offsets, 200)
    embed_pass.embed_pending(db, encode, planner)
    vectors = db.query("SELECT count(*) FROM embeddings")[0][0]
    note.write_text("\n\n".join([*paragraphs, "A new closing paragraph."]), "utf-8")
    indexer.index_folder(db, notes_dir, options)
    embed_pass.drop_orphan_embeddings(db)  # the end of a pass that planned before the edit
    assert db.query("SELECT count(*) FROM embeddings")[0][0] == vectors
    encoded.clear()
    embed_pass.embed_pending(db, encode, planner)
    assert encoded and all("closing" in text for text in encoded)


def test_migration_0002_keeps_an_older_database_from_being_re_chunked(
    notes_dir: Path, tmp_path: Path
) -> None:
    """An index from before parts were planned late (schema 0001, chunking recorded with the
    embedder's limit) is migrated once on open, and its notes are not chunked again."""
    path = tmp_path / "q.sqlite"
    old = Database(path)
    indexer.index_folder(old, notes_dir, indexer.IndexOptions())
    with old.write() as w:  # what the older version had: schema 0001, its chunking record
        w.execute("ALTER TABLE chunks DROP COLUMN page_start")
        w.execute("ALTER TABLE chunks DROP COLUMN page_end")
        w.execute(  # 0004 (days and tags) is another test's
            "DELETE FROM migrations WHERE name NOT IN ('0001_initial', '0004_days_and_tags')"
        )
        meta.set_meta(w, "chunking", "tokens=200;embed_limit=254")
    old.close()
    db = Database(path)
    assert db.applied_migrations() == [name for name, _ in MIGRATIONS]
    with db.read() as reader:
        assert meta.read_meta(reader, "chunking") == "tokens=200"
    again = indexer.index_folder(db, notes_dir, indexer.IndexOptions())
    assert (again.indexed, again.unchanged) == (0, 3)
    db.close()
    reopened = Database(path)
    assert reopened.apply_migrations(MIGRATIONS) == []  # once only
    resized = indexer.index_folder(reopened, notes_dir, indexer.IndexOptions(chunk_tokens=100))
    assert resized.indexed == 3


def test_migration_0004_dates_and_tags_an_older_index_by_reading_its_notes_once(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2026-11-30.md").write_text("Fixed the heating. #house\n", "utf-8")
    path = tmp_path / "q.sqlite"
    old = Database(path)
    indexer.index_folder(old, notes, indexer.IndexOptions())
    with old.write() as w:  # schema 0003: no days, no tags
        w.execute("DROP TRIGGER note_tags_delete")
        w.execute("DROP TABLE note_tags")
        w.execute("DROP INDEX chunks_day")
        for table, column in (("chunks", "day"), ("notes", "day"), ("notes", "day_source")):
            w.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        w.execute("DELETE FROM migrations WHERE name = '0004_days_and_tags'")
    old.close()
    db = Database(path)
    assert db.query("SELECT day FROM chunks") == [(None,)]
    first = indexer.index_folder(db, notes, indexer.IndexOptions())
    assert first.indexed == 1  # read again once, for its day and tags
    assert db.query("SELECT day FROM chunks") == [("2026-11-30",)]
    assert db.query("SELECT tag FROM note_tags") == [("house",)]
    assert indexer.index_folder(db, notes, indexer.IndexOptions()).unchanged == 1
    db.close()


def test_vectors_of_another_dimension_than_the_model_makes_are_embedded_again(
    notes_dir: Path, tmp_path: Path
) -> None:
    """The same model id, but the recorded dimension differs (e.g. a model folder replaced by
    another model): the stored vectors are stale and every passage is embedded again."""
    import numpy as np

    db = Database(tmp_path / "q.sqlite")
    indexer.index_folder(db, notes_dir, indexer.IndexOptions())
    planner = PartPlanner(word_offsets, 200)

    def encoder(dim: int) -> Callable[[list[str]], np.ndarray]:
        return lambda texts: np.full((len(texts), dim), dim**-0.5, dtype=np.float32)

    assert not embed_pass.use_embedding_model(db, "fake", 4)
    first = embed_pass.embed_pending(db, encoder(4), planner)
    assert not embed_pass.use_embedding_model(db, "fake", 4)  # same model and size: kept
    assert embed_pass.embed_pending(db, encoder(4), planner) == 0
    assert embed_pass.use_embedding_model(db, "fake", 8)
    with db.read() as reader:
        assert meta.read_meta(reader, "embed_dim") == "8"
    assert embed_pass.embed_pending(db, encoder(8), planner) == first
    sizes = {len(r[0]) for r in db.query("SELECT vector FROM embeddings")}
    assert sizes == {8 * 4}


def test_the_embedding_pass_reports_parts_then_vectors_from_zero(
    notes_dir: Path, tmp_path: Path
) -> None:
    """The window's status line follows these: after 'parts' it must not keep showing an
    unfinished parts count while the first batch is encoded."""
    import numpy as np

    db = Database(tmp_path / "q.sqlite")
    indexer.index_folder(db, notes_dir, indexer.IndexOptions())
    embed_pass.use_embedding_model(db, "fake", 4)
    seen: list[Progress] = []

    def encode(texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 4), dtype=np.float32)

    done = embed_pass.embed_pending(db, encode, PartPlanner(word_offsets, 200), seen.append)
    phases = [p.phase for p in seen]
    assert phases.index(Phase.EMBED) > phases.index(Phase.PARTS)
    first_embed = seen[phases.index(Phase.EMBED)]
    assert (first_embed.done, first_embed.total) == (0, done)
    assert seen[-1] == Progress(Phase.EMBED, done, done)


def test_the_data_version_moves_with_every_write_the_vector_cache_reads(tmp_path: Path) -> None:
    """Migration 0005: triggers move `data_version` on writes to vectors, parts and notes, in
    the writer's transaction; nothing else moves it by hand."""
    db = Database(tmp_path / "q.sqlite")

    def version() -> int:
        with db.read() as reader:
            return int(meta.data_version(reader))

    writes = [
        "INSERT INTO folders (id, path, added_at) VALUES (1, '/n', 0)",
        "INSERT INTO notes (id, folder_id, path, status) VALUES (1, 1, 'a.md', 'indexed')",
        "UPDATE notes SET language = 'de' WHERE id = 1",
        "INSERT INTO chunks (id, note_id, seq, start, end, text) VALUES (1, 1, 0, 0, 1, 'a')",
        "INSERT INTO chunk_parts (chunk_id, part, parts, start, end, embed_hash) "
        "VALUES (1, 0, 1, 0, 1, 'h')",
        "INSERT INTO embeddings (hash, vector) VALUES ('h', x'0000803f')",
        "UPDATE embeddings SET vector = x'000080bf' WHERE hash = 'h'",
        "DELETE FROM embeddings",
        "DELETE FROM chunks",  # its parts go with it (chunks_fts_delete)
        "DELETE FROM notes",
    ]
    moved = []
    for sql in writes:
        before = version()
        with db.write() as w:
            w.execute(sql)
        moved.append(version() > before)
    assert moved == [False, True, True, False, True, True, True, True, True, True]
    before = version()
    with db.write() as w:  # a note's mtime is not what the cache reads
        w.execute("INSERT INTO notes (id, folder_id, path, status) VALUES (2, 1, 'b', 'indexed')")
    with db.write() as w:
        w.execute("UPDATE notes SET mtime_ns = 5 WHERE id = 2")
    assert version() == before + 1
    db.close()


def test_no_module_moves_the_data_version_by_hand() -> None:
    """Only the triggers' SQL (migrations.py) names the row; meta has no bump any more."""
    package = Path(__file__).resolve().parents[2] / "desktop_app"
    in_sql = sorted(
        p.name for p in package.rglob("*.py") if "'data_version'" in p.read_text("utf-8")
    )
    assert in_sql == ["migrations.py"]
    assert not hasattr(meta, "bump_data_version")


def test_reads_share_a_bounded_pool_and_close_with_the_database(tmp_path: Path) -> None:
    db = Database(tmp_path / "q.sqlite")
    inside, most = 0, 0
    lock = threading.Lock()

    def read(_: int) -> int:
        nonlocal inside, most
        with db.read() as reader:
            with lock:
                inside += 1
                most = max(most, inside)
            with db.read() as nested:  # the same connection: never waits for itself
                assert nested is reader
            count = reader.execute("SELECT count(*) FROM notes").fetchone()[0]
            with lock:
                inside -= 1
        return int(count)

    with ThreadPoolExecutor(12) as pool:
        assert set(pool.map(read, range(300))) == {0}
    assert most <= READERS
    assert 1 <= db.readers.open_connections <= READERS
    with db.read():
        db.close()  # the one in use closes when it comes back
        assert db.readers.open_connections == 1
    assert db.readers.open_connections == 0


def _twelve_notes(tmp_path: Path) -> Path:
    folder = tmp_path / "twelve"
    folder.mkdir()
    for i in range(12):
        (folder / f"n{i}.md").write_text(f"# Note {i}\n\nHerons number {i} wade.\n", "utf-8")
    return folder


def test_the_next_batch_is_encoded_while_one_is_written(tmp_path: Path) -> None:
    """The model never waits for the database: batch k+1 is being encoded before batch k's
    vectors are reported written (not pipelined, it would start only after)."""
    import numpy as np

    db = Database(tmp_path / "q.sqlite")
    indexer.index_folder(db, _twelve_notes(tmp_path), indexer.IndexOptions())
    embed_pass.use_embedding_model(db, "fake", 4)
    started = [threading.Event() for _ in range(64)]
    calls: list[int] = []

    def encode(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        started[len(calls) - 1].set()
        return np.ones((len(texts), 4), dtype=np.float32)

    def written(progress: Progress) -> None:
        if progress.phase == Phase.EMBED and 0 < progress.done < progress.total:
            batches = -(-progress.done // 2)
            assert started[batches].wait(10), "the next batch waited for the write"

    done = embed_pass.embed_pending(db, encode, PartPlanner(word_offsets, 200), written, batch=2)
    assert done == sum(calls) and len(calls) == -(-done // 2) > 2
    assert db.query("SELECT count(*) FROM embeddings")[0][0] == done


def test_a_cancelled_pass_writes_no_batch_after_the_cancel(tmp_path: Path) -> None:
    import numpy as np

    from desktop_app.core.cancel import Cancelled, CancelToken

    db = Database(tmp_path / "q.sqlite")
    indexer.index_folder(db, _twelve_notes(tmp_path), indexer.IndexOptions())
    embed_pass.use_embedding_model(db, "fake", 4)
    cancel = CancelToken()

    def encode(texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 4), dtype=np.float32)

    def written(progress: Progress) -> None:
        if progress.phase == Phase.EMBED and progress.done == 4:
            cancel.cancel()

    with pytest.raises(Cancelled):
        embed_pass.embed_pending(
            db, encode, PartPlanner(word_offsets, 200), written, cancel, batch=2
        )
    assert db.query("SELECT count(*) FROM embeddings")[0][0] == 4


def test_notes_written_together_get_their_own_ids_in_any_folder(tmp_path: Path) -> None:
    database = Database(tmp_path / "q.sqlite")
    a, b = (indexer.ensure_folder(database, tmp_path / name) for name in ("a", "b"))

    def row(folder_id: int, path: str, size: int) -> dict[str, object]:
        return {"folder_id": folder_id, "path": path, "size": size, "status": "indexed"}

    with database.write() as db:
        first = notes.upsert_notes(db, [row(a, "x.md", 1), row(b, "x.md", 2), row(a, "y.md", 3)])
        again = notes.upsert_notes(db, [row(b, "x.md", 4), row(a, "x.md", 5)])
    assert len(set(first)) == 3 and again == [first[1], first[0]]
    found = database.query("SELECT id, size FROM notes ORDER BY id")
    assert dict(found) == {first[0]: 5, first[1]: 4, first[2]: 3}
