"""Write analyzed notes: batched in one transaction, and, when a batch fails, note by note, so
one note that cannot be stored never costs the others their place in the index."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import sqlite_utils

from desktop_app.core.ingest.note_analysis import AnalyzedNote
from desktop_app.core.store import chunks, notes
from desktop_app.core.store.db import Database, DiskFull
from desktop_app.core.store.note_status import NoteStatus

RowWriter = Callable[[sqlite_utils.Database], None]


class FileProblem(NamedTuple):
    """A file skipped or failed, or indexed with a warning (its status then INDEXED)."""

    path: str
    status: NoteStatus
    reason: str


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
    quick: bool = False  # its text notes were read quickly: a full reading is due
    problems: list[FileProblem] = field(default_factory=list)
    changed_paths: list[str] = field(default_factory=list)  # re-chunked notes
    removed_paths: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class NoteRows:
    """An analyzed note waiting to be written; `replaces` is set when it had chunks before."""

    note: dict[str, Any]
    analyzed: AnalyzedNote
    replaces: bool


Write = RowWriter | NoteRows


@dataclass
class Pending:
    """Notes analyzed but not yet committed (written together in one transaction)."""

    rows: list[RowWriter] = field(default_factory=list)
    notes: list[NoteRows] = field(default_factory=list)
    since: float = field(default_factory=time.monotonic)

    def add(self, write: Write) -> None:
        if isinstance(write, NoteRows):
            self.notes.append(write)
        else:
            self.rows.append(write)


def flush(database: Database, pending: Pending, report: IndexReport) -> float:
    """Commit the pending notes in one transaction; returns the seconds it took. If that fails
    for another reason than a full disk, each note is written alone, and a note that still
    cannot be stored gets a `failed` row instead."""
    if not pending.rows and not pending.notes:
        return 0.0
    started = time.perf_counter()
    if _try_write(database, pending.rows, pending.notes) is not None:
        for row in pending.rows:
            _try_write(database, [row], [])
        for item in pending.notes:
            error = _try_write(database, [], [item])
            if error is not None:
                _store_failed(database, item, report, error)
    return time.perf_counter() - started


def _try_write(
    database: Database, rows: list[RowWriter], items: list[NoteRows]
) -> Exception | None:
    """Write in one transaction; returns what went wrong (a full disk is raised: no note is to
    blame for it, and nothing else can be written either)."""
    try:
        _write_batch(database, rows, items)
    except DiskFull:
        raise
    except Exception as exc:
        return exc
    return None


def _write_batch(database: Database, rows: list[RowWriter], items: list[NoteRows]) -> None:
    with database.write() as db:
        for write in rows:
            write(db)
        write_notes(db, items)


def _store_failed(database: Database, item: NoteRows, report: IndexReport, exc: Exception) -> None:
    """A note that could not be written: record it as failed, never the whole batch."""
    rel, reason = item.note["path"], f"cannot store: {type(exc).__name__}: {exc}"
    report.indexed -= 1
    report.failed += 1
    if rel in report.changed_paths:
        report.changed_paths.remove(rel)
    report.problems.append(FileProblem(rel, NoteStatus.FAILED, reason))
    note = item.note
    write = status_writer(
        note["folder_id"], rel, note["size"], note["mtime_ns"], NoteStatus.FAILED, reason
    )
    _try_write(database, [write], [])


def write_notes(db: sqlite_utils.Database, items: list[NoteRows]) -> None:
    """Replace these notes' chunks and FTS rows (inside a write transaction), with one batched
    insert per table for all of them. Embedding parts are planned later, by the embedding pass."""
    if not items:
        return
    note_ids = notes.upsert_notes(db, [n.note for n in items])
    notes.set_tags(db, [(i, n.analyzed.tags) for i, n in zip(note_ids, items, strict=True)])
    chunks.delete_chunks(db, [i for i, n in zip(note_ids, items, strict=True) if n.replaces])
    next_id = chunks.next_chunk_id(db)
    chunk_rows: list[chunks.ChunkRow] = []
    fts_rows: list[chunks.FtsRow] = []
    for note_id, item in zip(note_ids, items, strict=True):
        days = item.analyzed.chunk_days
        for seq, analyzed in enumerate(item.analyzed.chunks):
            c, chunk_id = analyzed.chunk, next_id
            next_id += 1
            heading = json.dumps(list(c.heading_path), ensure_ascii=False)
            chunk_rows.append(
                (
                    chunk_id,
                    note_id,
                    seq,
                    c.start,
                    c.end,
                    c.line_start,
                    c.line_end,
                    heading,
                    c.text,
                    c.page_start,
                    c.page_end,
                    days[seq] if seq < len(days) else None,
                )
            )
            fts_rows.append(
                (chunk_id, analyzed.body_terms, analyzed.prefix_terms, analyzed.context_terms)
            )
    chunks.insert_chunks(db, chunk_rows, fts_rows)


def status_writer(
    folder_id: int, rel: str, size: int, mtime_ns: int, status: NoteStatus, reason: str
) -> RowWriter:
    """The row of a skipped or failed note (without chunks)."""
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
        note_id = notes.upsert_note(db, note)
        chunks.delete_chunks(db, [note_id])

    return write


def touch_writer(note_id: int, size: int, mtime_ns: int) -> RowWriter:
    """A note read again with the same content: only its size and time change."""

    def write(db: sqlite_utils.Database) -> None:
        notes.touch_note(db, note_id, size, mtime_ns)

    return write
