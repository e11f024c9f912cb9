from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from desktop_app.core.ingest import indexer
from desktop_app.core.store.db import Database, fts5_available
from desktop_app.core.store.migrations import MIGRATIONS
from desktop_app.core.store.status import integrity


def test_fts5_is_available() -> None:
    assert fts5_available()


def test_migrations_are_named_recorded_and_applied_once(tmp_path: Path) -> None:
    db = Database(tmp_path / "q.sqlite")
    assert db.applied_migrations() == [name for name, _ in MIGRATIONS]
    db.close()
    again = Database(tmp_path / "q.sqlite")
    assert again.apply_migrations(MIGRATIONS) == []
    assert again.reader.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_failing_migration_leaves_nothing_behind(tmp_path: Path) -> None:
    db = Database(tmp_path / "q.sqlite")

    def broken(conn):  # type: ignore[no-untyped-def]
        conn.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        db.apply_migrations([("0099_broken", broken)])
    assert "0099_broken" not in db.applied_migrations()
    with pytest.raises(sqlite3.OperationalError):
        db.reader.execute("SELECT * FROM half_done")


def test_fts_stays_in_sync_through_index_update_and_delete(notes_dir: Path, tmp_path: Path) -> None:
    db = Database(tmp_path / "q.sqlite")
    options = indexer.IndexOptions(embed_limit=200)
    indexer.index_folder(db, notes_dir, options)
    assert integrity(db)["ok"]
    chunks = db.reader.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert chunks >= 3
    (notes_dir / "kolo.md").write_text("# Kola\n\nJiný text o kolech.\n\nDalší odstavec.", "utf-8")
    (notes_dir / "garten.txt").unlink()
    report = indexer.index_folder(db, notes_dir, options)
    assert (report.indexed, report.removed) == (1, 1)
    assert integrity(db)["ok"]
    fts = db.reader.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
    assert fts == db.reader.execute("SELECT count(*) FROM chunks").fetchone()[0]


def test_unchanged_notes_are_not_rewritten(notes_dir: Path, tmp_path: Path) -> None:
    db = Database(tmp_path / "q.sqlite")
    options = indexer.IndexOptions(embed_limit=200)
    first = indexer.index_folder(db, notes_dir, options)
    assert first.indexed == 3 and first.skipped == 0
    ids = db.reader.execute("SELECT id FROM chunks ORDER BY id").fetchall()
    second = indexer.index_folder(db, notes_dir, options)
    assert (second.indexed, second.unchanged) == (0, 3)
    assert db.reader.execute("SELECT id FROM chunks ORDER BY id").fetchall() == ids


def test_changing_the_embedding_model_drops_vectors(notes_dir: Path, tmp_path: Path) -> None:
    import numpy as np

    db = Database(tmp_path / "q.sqlite")
    options = indexer.IndexOptions(embed_limit=200)
    indexer.index_folder(db, notes_dir, options)
    indexer.use_embedding_model(db, "fake-a", 4)

    def encode(texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 4), dtype=np.float32) / 2

    first = indexer.embed_pending(db, encode)
    assert first > 0
    assert indexer.embed_pending(db, encode) == 0  # nothing new to embed
    assert not indexer.use_embedding_model(db, "fake-a", 4)
    assert indexer.use_embedding_model(db, "fake-b", 4)
    assert db.reader.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 0
    assert indexer.embed_pending(db, encode) == first
