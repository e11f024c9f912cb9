"""Index notes folders into the database: scan, skip what is unchanged, write changed notes.

Lexical rows (chunks + FTS) are written first, so a note is keyword-searchable at once;
embeddings follow in `embed_pending`, which only encodes texts it has never seen.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import sqlite_utils

from desktop_app.core.cancel import CancelToken, Progress, ProgressCallback, no_progress
from desktop_app.core.ingest import loaders
from desktop_app.core.ingest.notes import AnalyzedNote, PartPlanner, analyze_note, embedding_input
from desktop_app.core.store.db import Database

COMMIT_EVERY_SECONDS = 0.5
EMBED_BATCH = 64


@dataclass
class IndexReport:
    scanned: int = 0
    indexed: int = 0
    unchanged: int = 0
    skipped: int = 0
    failed: int = 0
    removed: int = 0
    embedded: int = 0
    write_seconds: float = 0.0  # time inside write transactions (the rest is reading + analysis)
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # (path, status, reason)
    changed_paths: list[str] = field(default_factory=list)  # re-chunked notes
    removed_paths: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class IndexOptions:
    chunk_tokens: int = 200
    max_file_bytes: int = 20_000_000

    @property
    def chunking(self) -> str:
        """What decides the chunks: when it changes, every note is chunked again."""
        return f"tokens={self.chunk_tokens}"


@dataclass(frozen=True)
class _NoteRows:
    """An analyzed note waiting to be written; `replaces` is set when it had chunks before."""

    note: dict
    analyzed: AnalyzedNote
    replaces: bool


Write = Callable[[sqlite_utils.Database], None] | _NoteRows


@dataclass
class _Pending:
    """Notes analyzed but not yet committed (written together in one transaction)."""

    rows: list[Callable[[sqlite_utils.Database], None]] = field(default_factory=list)
    notes: list[_NoteRows] = field(default_factory=list)
    since: float = field(default_factory=time.monotonic)

    def add(self, write: Write) -> None:
        if isinstance(write, _NoteRows):
            self.notes.append(write)
        else:
            self.rows.append(write)


def ensure_folder(database: Database, folder: Path) -> int:
    path = str(folder.resolve())
    with database.write() as db:
        row = db.execute("SELECT id FROM folders WHERE path = ?", (path,)).fetchone()
        if row:
            return int(row[0])
        cur = db.execute("INSERT INTO folders (path, added_at) VALUES (?, ?)", (path, time.time()))
        return int(cur.lastrowid or 0)


def index_folder(
    database: Database,
    folder: Path,
    options: IndexOptions,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> IndexReport:
    cancel = cancel or CancelToken()
    folder = folder.resolve()
    if not folder.is_dir():
        raise FileNotFoundError(f"not a folder: {folder}")
    folder_id = ensure_folder(database, folder)
    use_chunking(database, options.chunking)
    known = _known_notes(database, folder_id)
    # Small notes first: most of a big vault is searchable long before its largest files are done.
    unreadable: list[OSError] = []
    files = sorted(_scan(folder, unreadable), key=lambda item: _size_or_zero(item[1]))
    report = IndexReport(scanned=len(files))
    for exc in unreadable:
        rel = Path(exc.filename or folder).relative_to(folder).as_posix() if exc.filename else "."
        report.problems.append((rel + "/", "failed", f"cannot open folder: {exc.strerror or exc}"))
    _index_files(database, folder_id, files, known, options, report, progress, cancel)
    seen = {rel for rel, _ in files}
    gone = [rel for rel in known if rel not in seen]
    if gone:
        remove_notes(database, folder_id, gone)
        report.removed = len(gone)
        report.removed_paths = gone
    return report


def _index_files(
    database: Database,
    folder_id: int,
    files: list[tuple[str, Path]],
    known: dict[str, tuple],
    options: IndexOptions,
    report: IndexReport,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> None:
    """Analyze files one by one, committing every half second so progress is never lost."""
    pending = _Pending()
    try:
        for done, (rel, path) in enumerate(files, start=1):
            if cancel is not None:
                cancel.raise_if_cancelled()
            progress(Progress("index", done, len(files), rel))
            write = _index_file(folder_id, rel, path, known.get(rel), options, report)
            if write is not None:
                pending.add(write)
            if time.monotonic() - pending.since > COMMIT_EVERY_SECONDS:
                report.write_seconds += _flush(database, pending)
                pending = _Pending()
    finally:  # a cancelled run keeps what it analyzed; the next run resumes after it
        report.write_seconds += _flush(database, pending)


def index_paths(
    database: Database, folder: Path, rel_paths: list[str], options: IndexOptions
) -> IndexReport:
    """Bring single notes up to date (the watcher's path): index what exists, drop what is gone."""
    folder = folder.resolve()
    folder_id = ensure_folder(database, folder)
    known = _known_notes(database, folder_id)
    report = IndexReport(scanned=len(rel_paths))
    present, gone = [], []
    for rel in rel_paths:
        path = folder / rel
        if loaders.is_note_path(rel) and path.is_file() and not _escapes(path, folder):
            present.append((rel, path))
        elif rel in known:
            gone.append(rel)
    present.sort(key=lambda item: _size_or_zero(item[1]))  # small edits never wait for a huge file
    _index_files(database, folder_id, present, known, options, report)
    if gone:
        remove_notes(database, folder_id, gone)
        report.removed = len(gone)
        report.removed_paths = gone
    return report


def _size_or_zero(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _escapes(path: Path, folder: Path) -> bool:
    """A symlink pointing outside the folder is not part of it."""
    try:
        path.resolve().relative_to(folder)
    except ValueError:
        return True
    return False


def move_note(database: Database, folder: Path, src: str, dest: str) -> bool:
    """Rename a note in place (chunks, FTS rows and vectors stay). False if there was nothing to
    move or the destination is already indexed."""
    folder_id = ensure_folder(database, folder.resolve())
    with database.write() as db:
        taken = db.execute(
            "SELECT 1 FROM notes WHERE folder_id = ? AND path = ?", (folder_id, dest)
        ).fetchone()
        if taken:
            return False
        cur = db.execute(
            "UPDATE notes SET path = ? WHERE folder_id = ? AND path = ?", (dest, folder_id, src)
        )
        return cur.rowcount > 0


def _scan(folder: Path, errors: list[OSError] | None = None) -> Iterator[tuple[str, Path]]:
    for path in loaders.walk_notes(folder, errors):
        yield loaders.relative_note_path(path, folder), path


def _known_notes(database: Database, folder_id: int) -> dict[str, tuple]:
    rows = database.reader.execute(
        "SELECT path, id, size, mtime_ns, content_hash, status, reason FROM notes"
        " WHERE folder_id = ?",
        (folder_id,),
    ).fetchall()
    return {r[0]: tuple(r[1:]) for r in rows}


def _flush(database: Database, pending: _Pending) -> float:
    """Commit the pending notes in one transaction; returns the seconds it took."""
    if not pending.rows and not pending.notes:
        return 0.0
    started = time.perf_counter()
    with database.write() as db:
        for write in pending.rows:
            write(db)
        write_notes(db, pending.notes)
        bump_data_version(db)
    return time.perf_counter() - started


def _index_file(
    folder_id: int,
    rel: str,
    path: Path,
    known: tuple | None,
    options: IndexOptions,
    report: IndexReport,
) -> Write | None:
    try:
        stat = path.stat()
    except OSError as exc:
        report.failed += 1
        report.problems.append((rel, "failed", f"cannot stat: {exc.strerror or exc}"))
        return _status_writer(folder_id, rel, 0, 0, "failed", f"cannot stat: {exc}")
    if known and known[1] == stat.st_size and known[2] == stat.st_mtime_ns:
        if known[4] in ("skipped", "failed"):  # still skipped: say so on every run
            setattr(report, known[4], getattr(report, known[4]) + 1)
            report.problems.append((rel, known[4], known[5] or "unchanged since the last run"))
        else:
            report.unchanged += 1
        return None
    try:
        decoded, raw = loaders.read_note(path, options.max_file_bytes)
        if not decoded.text.strip():
            raise loaders.NoteSkipped("empty note")
    except (loaders.NoteSkipped, loaders.NoteFailed) as exc:
        status = "skipped" if isinstance(exc, loaders.NoteSkipped) else "failed"
        setattr(report, status, getattr(report, status) + 1)
        report.problems.append((rel, status, str(exc)))
        return _status_writer(folder_id, rel, stat.st_size, stat.st_mtime_ns, status, str(exc))
    content_hash = hashlib.sha1(raw).hexdigest()
    if known and known[3] == content_hash and known[4] == "indexed":
        report.unchanged += 1
        return _touch_writer(known[0], stat.st_size, stat.st_mtime_ns)
    analyzed = analyze_note(rel, decoded.text, options.chunk_tokens)
    report.indexed += 1
    report.changed_paths.append(rel)
    if decoded.warning:
        report.problems.append((rel, "indexed", decoded.warning))
    note = {
        "folder_id": folder_id,
        "path": rel,
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "content_hash": content_hash,
        "language": analyzed.language,
        "title": analyzed.title,
        "metadata": json.dumps(analyzed.metadata, default=str, ensure_ascii=False),
        "encoding": decoded.encoding,
        "status": "indexed",
        "reason": decoded.warning,
        "indexed_at": time.time(),
    }
    return _NoteRows(note, analyzed, replaces=known is not None)


def _upsert_note(db: sqlite_utils.Database, note: dict) -> int:
    columns = ", ".join(note)
    marks = ", ".join("?" for _ in note)
    updates = ", ".join(f"{k} = excluded.{k}" for k in note if k not in ("folder_id", "path"))
    row = db.execute(
        f"INSERT INTO notes ({columns}) VALUES ({marks}) "
        f"ON CONFLICT(folder_id, path) DO UPDATE SET {updates} RETURNING id",
        list(note.values()),
    ).fetchone()
    return int(row[0])


def write_notes(db: sqlite_utils.Database, notes: list[_NoteRows]) -> None:
    """Replace these notes' chunks and FTS rows (inside a write transaction), with one batched
    insert per table for all of them. Embedding parts are planned later, by `embed_pending`."""
    if not notes:
        return
    conn = db.conn
    note_ids = [_upsert_note(db, n.note) for n in notes]
    replaced = [(i,) for i, n in zip(note_ids, notes, strict=True) if n.replaces]
    conn.executemany("DELETE FROM chunks WHERE note_id = ?", replaced)
    # The one writer holds the transaction, so ids can be assigned here and rows batch-inserted.
    next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM chunks").fetchone()[0]
    chunk_rows, fts_rows = [], []
    for note_id, item in zip(note_ids, notes, strict=True):
        for seq, analyzed in enumerate(item.analyzed.chunks):
            c, chunk_id = analyzed.chunk, next_id
            next_id += 1
            heading = json.dumps(list(c.heading_path), ensure_ascii=False)
            chunk_rows.append(
                (chunk_id, note_id, seq, c.start, c.end, c.line_start, c.line_end, heading, c.text)
            )
            fts_rows.append(
                (chunk_id, analyzed.body_terms, analyzed.prefix_terms, analyzed.context_terms)
            )
    conn.executemany(
        "INSERT INTO chunks (id, note_id, seq, start, end, line_start, line_end, heading_path,"
        " text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        chunk_rows,
    )
    conn.executemany(
        "INSERT INTO chunks_fts (rowid, body, prefixes, context) VALUES (?, ?, ?, ?)", fts_rows
    )


def _status_writer(
    folder_id: int, rel: str, size: int, mtime_ns: int, status: str, reason: str
) -> Callable[[sqlite_utils.Database], None]:
    note = {
        "folder_id": folder_id,
        "path": rel,
        "size": size,
        "mtime_ns": mtime_ns,
        "status": status,
        "reason": reason,
        "indexed_at": time.time(),
        "content_hash": None,
    }

    def write(db: sqlite_utils.Database) -> None:
        note_id = _upsert_note(db, note)
        db.execute("DELETE FROM chunks WHERE note_id = ?", (note_id,))

    return write


def _touch_writer(
    note_id: int, size: int, mtime_ns: int
) -> Callable[[sqlite_utils.Database], None]:
    def write(db: sqlite_utils.Database) -> None:
        db.execute(
            "UPDATE notes SET size = ?, mtime_ns = ? WHERE id = ?", (size, mtime_ns, note_id)
        )

    return write


def remove_notes(database: Database, folder_id: int, rel_paths: list[str]) -> None:
    with database.write() as db:
        for rel in rel_paths:
            row = db.execute(
                "SELECT id FROM notes WHERE folder_id = ? AND path = ?", (folder_id, rel)
            ).fetchone()
            if row:
                db.execute("DELETE FROM chunks WHERE note_id = ?", (row[0],))
                db.execute("DELETE FROM notes WHERE id = ?", (row[0],))
        bump_data_version(db)


def remove_folder(database: Database, folder: Path) -> bool:
    path = str(folder.resolve())
    with database.write() as db:
        row = db.execute("SELECT id FROM folders WHERE path = ?", (path,)).fetchone()
        if not row:
            return False
        db.execute(
            "DELETE FROM chunks WHERE note_id IN (SELECT id FROM notes WHERE folder_id = ?)",
            (row[0],),
        )
        db.execute("DELETE FROM notes WHERE folder_id = ?", (row[0],))
        db.execute("DELETE FROM folders WHERE id = ?", (row[0],))
        bump_data_version(db)
    return True


def bump_data_version(db: sqlite_utils.Database) -> None:
    """Readers cache the vector matrix; they reload when this number changes."""
    db.execute(
        "INSERT INTO meta (key, value) VALUES ('data_version', '1') ON CONFLICT(key) DO UPDATE "
        "SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
    )


def read_meta(db: sqlite_utils.Database, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_meta(db: sqlite_utils.Database, key: str, value: str) -> None:
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = ?",
        (key, value, value),
    )


def use_chunking(database: Database, chunking: str) -> bool:
    """Record the chunking settings; different ones than before mark every note for re-chunking
    (vectors are kept by text hash, so unchanged passages are not embedded again)."""
    current = read_meta(database.reader, "chunking")
    if current == chunking:
        return False
    with database.write() as db:
        recorded = read_meta(db, "chunking")
        changed = recorded is not None and _chunk_size(recorded) != _chunk_size(chunking)
        if changed:
            db.execute("UPDATE notes SET mtime_ns = -1, content_hash = ''")
        set_meta(db, "chunking", chunking)
    return changed


def _chunk_size(chunking: str) -> str:
    """Earlier versions also recorded the embedder's limit, which no longer shapes chunks
    (parts are planned by the embedding pass): only the chunk size decides."""
    return chunking.split(";")[0]


def use_embedding_model(database: Database, model_id: str, dimension: int) -> bool:
    """Record the model; a different model than before drops all vectors and parts (they follow
    its tokenizer and limit). True if it changed."""
    with database.write() as db:
        current = read_meta(db, "embed_model")
        if current == model_id:
            return False
        db.execute("DELETE FROM embeddings")
        db.execute("DELETE FROM chunk_parts")
        set_meta(db, "embed_model", model_id)
        set_meta(db, "embed_dim", str(dimension))
        bump_data_version(db)
    return current is not None


def pending_embeddings(database: Database) -> list[tuple[str, str]]:
    """(embed_hash, embedding input) for chunks without a vector, recently edited notes first."""
    rows = database.reader.execute(
        "SELECT p.embed_hash, n.title, c.heading_path, c.text, p.start - c.start,"
        " p.end - c.start, p.part, p.parts FROM chunk_parts p"
        " JOIN chunks c ON c.id = p.chunk_id JOIN notes n ON n.id = c.note_id"
        " WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.hash = p.embed_hash)"
        " ORDER BY n.indexed_at DESC, c.note_id, c.seq, p.part"
    ).fetchall()
    out: dict[str, str] = {}
    for hash_, title, heading_json, text, a, b, part, parts in rows:
        if hash_ not in out:
            heading = tuple(json.loads(heading_json or "[]"))
            out[hash_] = embedding_input(title or "", heading, text[a:b], part, parts)
    return list(out.items())


def plan_parts(
    database: Database,
    planner: PartPlanner,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    batch: int = 512,
) -> int:
    """Give every chunk without embedding parts its parts; returns how many chunks got them."""
    cancel = cancel or CancelToken()
    rows = database.reader.execute(
        "SELECT c.id, n.title, c.heading_path, c.start, c.text FROM chunks c"
        " JOIN notes n ON n.id = c.note_id"
        " WHERE NOT EXISTS (SELECT 1 FROM chunk_parts p WHERE p.chunk_id = c.id)"
        " ORDER BY n.indexed_at DESC, c.note_id, c.seq"
    ).fetchall()
    for i in range(0, len(rows), batch):
        cancel.raise_if_cancelled()
        part_rows = []
        for chunk_id, title, heading_json, start, text in rows[i : i + batch]:
            heading = tuple(json.loads(heading_json or "[]"))
            for p, hash_ in planner.parts(title or "", heading, start, text):
                part_rows.append(
                    (chunk_id, p.number, p.count, p.start, p.end, hash_, chunk_id, text)
                )
        with database.write() as db:
            # The chunk may have been replaced since it was read (ids are reused): its text decides.
            db.conn.executemany(
                "INSERT OR IGNORE INTO chunk_parts (chunk_id, part, parts, start, end, embed_hash)"
                " SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS"
                " (SELECT 1 FROM chunks WHERE id = ? AND text = ?)",
                part_rows,
            )
        progress(Progress("parts", min(i + batch, len(rows)), len(rows)))
    return len(rows)


def embed_pending(
    database: Database,
    encode: Callable[[list[str]], np.ndarray],
    planner: PartPlanner,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    batch: int = EMBED_BATCH,
) -> int:
    """Plan parts for new chunks, then encode every part text that has no vector yet; each
    batch commits on its own."""
    cancel = cancel or CancelToken()
    plan_parts(database, planner, progress, cancel)
    todo = _length_sorted_windows(pending_embeddings(database))
    if todo:
        progress(Progress("embed", 0, len(todo)))
    done = 0
    for i in range(0, len(todo), batch):
        cancel.raise_if_cancelled()
        part = todo[i : i + batch]
        vectors = encode([text for _, text in part])
        with database.write() as db:
            db.conn.executemany(
                "INSERT OR REPLACE INTO embeddings (hash, vector) VALUES (?, ?)",
                [(h, v.tobytes()) for (h, _), v in zip(part, vectors, strict=True)],
            )
            bump_data_version(db)
        done += len(part)
        progress(Progress("embed", done, len(todo)))
    _drop_orphan_embeddings(database)
    return done


def _length_sorted_windows(
    todo: list[tuple[str, str]], window: int = 2048
) -> list[tuple[str, str]]:
    """Keep the recently-edited-first order across windows, but sort by length inside each, so
    batches hold texts of similar length and the model pads little."""
    out: list[tuple[str, str]] = []
    for i in range(0, len(todo), window):
        out.extend(sorted(todo[i : i + window], key=lambda item: len(item[1])))
    return out


def _drop_orphan_embeddings(database: Database) -> None:
    """Drop vectors no part uses, but only while every chunk has its parts: a chunk re-indexed
    since the parts were planned may need an old vector again (its text did not change)."""
    with database.write() as db:
        db.execute(
            "DELETE FROM embeddings WHERE hash NOT IN (SELECT embed_hash FROM chunk_parts)"
            " AND NOT EXISTS (SELECT 1 FROM chunks c"
            " WHERE NOT EXISTS (SELECT 1 FROM chunk_parts p WHERE p.chunk_id = c.id))"
        )
