"""What is in the index, per file, and whether the database is healthy."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

import sqlite_utils

from desktop_app.core.store import chunks, folder_rows, meta, notes, vectors
from desktop_app.core.store.db import Database
from desktop_app.core.store.note_status import NoteStatus


def companion_model(db: sqlite_utils.Database) -> str | None:
    """The multilingual companion's model id, while the index keeps its vectors."""
    return meta.read_meta(db, vectors.COMPANION.model_key)


def waits_for_vectors(db: sqlite_utils.Database) -> str:
    """The condition on chunk `c` of waiting for vectors: the index model's, and the
    companion's while it is in use (it has a model recorded)."""
    main = vectors.waits_in(vectors.MAIN)
    if companion_model(db) is None:
        return main
    return f"({main} OR {vectors.waits_in(vectors.COMPANION)})"


@dataclass(frozen=True)
class Counts:
    folders: int
    notes: int  # indexed notes
    skipped: int
    failed: int
    chunks: int  # passages
    pending_embedding: int  # passages waiting for their vectors


@dataclass(frozen=True)
class FileStatus:
    folder: str
    path: str  # relative to its folder
    status: NoteStatus
    reason: str  # why it was skipped or failed, or what went wrong while indexing it ("")
    language: str
    chunks: int
    ocr_pages: int = 0  # pages (a picture: 1) whose text OCR read

    @property
    def read_by_ocr(self) -> str:
        """ "read by OCR (3 pages)", or "" for a file with a text layer."""
        if not self.ocr_pages:
            return ""
        return f"read by OCR ({self.ocr_pages} page{'s' if self.ocr_pages > 1 else ''})"


@dataclass(frozen=True)
class FolderSummary:
    """A folder's line in the folder list: what `file_statuses` would add up to, counted by
    SQLite in one pass (no row per file reaches Python)."""

    notes: int  # indexed notes, with or without their vectors
    chunks: int  # passages
    pending: int  # indexed notes some of whose passages wait for vectors
    problems: int  # files skipped or failed


@dataclass(frozen=True)
class Integrity:
    sqlite_integrity: bool
    fts_integrity: bool
    fts_error: str
    fts_in_sync: bool  # every passage has its full-text row and no row lacks its passage

    @property
    def ok(self) -> bool:
        return self.sqlite_integrity and self.fts_integrity and self.fts_in_sync

    @property
    def problems(self) -> list[str]:
        """What the checks found wrong, in words."""
        problems = [] if self.sqlite_integrity else ["PRAGMA integrity_check failed"]
        if not self.fts_integrity:
            problems.append(f"full-text index: {self.fts_error}")
        if not self.fts_in_sync:
            problems.append("passages and the full-text index are out of sync")
        return problems


@dataclass(frozen=True)
class LastRepair:
    """The last replacement of a damaged index, as `recovery.json` records it."""

    at: str  # local time, "YYYY-MM-DD HH:MM:SS"
    message: str
    record: dict[str, object]  # the whole record, as written


@dataclass(frozen=True)
class IndexStatus:
    database: str  # the index file
    embedding_model: str | None
    counts: Counts
    migrations: list[str]
    integrity: Integrity | None  # None: not checked (a full scan)
    files: list[FileStatus] | None  # None: not listed (asked for the folders' summaries only)
    folders: dict[str, FolderSummary] = field(default_factory=dict)  # by folder path
    recovery: LastRepair | None = None
    companion_model: str | None = None  # the multilingual model beside it, if in use
    # where the last embedding pass computed vectors (the vector worker's state then), if any
    vectors: dict[str, object] | None = None
    vectors_paused: bool = False  # the user paused them (Settings): pending ones wait

    def listed_files(self) -> list[FileStatus]:
        """Every file's status, for a status read with them (ValueError otherwise)."""
        if self.files is None:
            raise ValueError("this status was read without the file list")
        return self.files

    @property
    def integrity_ok(self) -> bool:
        """The integrity checks ran and found nothing wrong."""
        return self.integrity is not None and self.integrity.ok


def last_repair(record: dict[str, object] | None) -> LastRepair | None:
    if record is None:
        return None
    return LastRepair(str(record.get("at", "")), str(record.get("message", "")), record)


def integrity(database: Database) -> Integrity:
    with database.read() as db:
        sqlite_ok = db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    try:
        with database.write() as w:
            w.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')")
        fts_ok, fts_error = True, ""
    except sqlite3.DatabaseError as exc:
        fts_ok, fts_error = False, str(exc)
    with database.read() as db:
        orphans = db.execute(
            "SELECT (SELECT count(*) FROM chunks_fts WHERE rowid NOT IN (SELECT id FROM chunks))"
            " + (SELECT count(*) FROM chunks WHERE id NOT IN (SELECT rowid FROM chunks_fts))"
        ).fetchone()[0]
    return Integrity(sqlite_ok, fts_ok, fts_error, orphans == 0)


VECTORS_KEY = "vectors_computed"


def record_vectors(database: Database, record: dict[str, object]) -> None:
    """Where the embedding pass that just ended computed its vectors (for `quire status`)."""
    with database.write() as db:
        meta.set_meta(db, VECTORS_KEY, json.dumps(record, ensure_ascii=False))


def collect_status(
    database: Database, check_integrity: bool = True, list_files: bool = True
) -> IndexStatus:
    """Counts, each folder's summary and, when asked for, every file's status; the integrity
    checks (a full scan) only when asked for."""
    with database.read() as db:
        by_status = notes.status_counts(db)
        counts = Counts(
            folders=folder_rows.folder_count(db),
            notes=by_status[NoteStatus.INDEXED],
            skipped=by_status[NoteStatus.SKIPPED],
            failed=by_status[NoteStatus.FAILED],
            chunks=chunks.chunk_count(db),
            pending_embedding=db.execute(
                f"SELECT count(*) FROM chunks c WHERE {waits_for_vectors(db)}"
            ).fetchone()[0],
        )
        model, _ = meta.embedding_model(db)
        companion = companion_model(db)
        folders = folder_summaries(db)
        # a row per file, built while the window's event loop waits for the interpreter
        files = file_statuses(db) if list_files else None
        vectors = json.loads(meta.read_meta(db, VECTORS_KEY) or "null")
    return IndexStatus(
        database=str(database.path),
        embedding_model=model,
        companion_model=companion,
        vectors=vectors if isinstance(vectors, dict) else None,
        counts=counts,
        migrations=database.applied_migrations(),
        integrity=integrity(database) if check_integrity else None,
        files=files,
        folders=folders,
    )


def folder_summaries(db: sqlite_utils.Database) -> dict[str, FolderSummary]:
    """Every folder's counts (a folder with no notes has zeros)."""
    by_notes = {
        path: (int(notes_), int(problems))
        for path, notes_, problems in db.execute(
            "SELECT f.path, total(n.status = ?), total(n.status IN (?, ?))"
            " FROM folders f LEFT JOIN notes n ON n.folder_id = f.id GROUP BY f.id",
            (NoteStatus.INDEXED, NoteStatus.SKIPPED, NoteStatus.FAILED),
        )
    }
    by_chunks = {
        path: (chunk_count, pending)
        for path, chunk_count, pending in db.execute(
            "SELECT f.path, count(*), count(DISTINCT CASE"
            f" WHEN n.status = ? AND {waits_for_vectors(db)} THEN c.note_id END)"
            " FROM chunks c JOIN notes n ON n.id = c.note_id JOIN folders f ON f.id = n.folder_id"
            " GROUP BY f.id",
            (NoteStatus.INDEXED,),
        )
    }
    return {
        path: FolderSummary(notes_, *by_chunks.get(path, (0, 0)), problems)
        for path, (notes_, problems) in by_notes.items()
    }


def file_statuses(db: sqlite_utils.Database) -> list[FileStatus]:
    """Every note file, by folder and path; an indexed one with passages waiting for vectors
    is `PENDING_EMBEDDING`."""
    files = []
    for folder, path, stored, reason, language, chunk_count, pending, ocr_pages in db.execute(
        "SELECT f.path, n.path, n.status, n.reason, n.language,"
        " (SELECT count(*) FROM chunks c WHERE c.note_id = n.id),"
        f" (SELECT count(*) FROM chunks c WHERE c.note_id = n.id AND {waits_for_vectors(db)}),"
        " CASE WHEN json_valid(n.metadata) THEN json_extract(n.metadata, '$.ocr_pages') END"
        " FROM notes n JOIN folders f ON f.id = n.folder_id ORDER BY f.path, n.path"
    ).fetchall():
        status = NoteStatus(stored)
        if status == NoteStatus.INDEXED and pending:
            status = NoteStatus.PENDING_EMBEDDING
        files.append(
            FileStatus(
                folder, path, status, reason or "", language or "", chunk_count, ocr_pages or 0
            )
        )
    return files
