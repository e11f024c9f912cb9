"""What is in the index, per file, and whether the database is healthy."""

from __future__ import annotations

import sqlite3
from typing import Any

import sqlite_utils

from desktop_app.core.store import chunks, folder_rows, meta, notes
from desktop_app.core.store.db import Database

# A chunk waits for vectors until it has parts (planned by the embedding pass) that all have one.
WAITS_FOR_VECTORS = (
    "(NOT EXISTS (SELECT 1 FROM chunk_parts p WHERE p.chunk_id = c.id) OR EXISTS"
    " (SELECT 1 FROM chunk_parts p WHERE p.chunk_id = c.id AND NOT EXISTS"
    " (SELECT 1 FROM embeddings e WHERE e.hash = p.embed_hash)))"
)


def integrity(database: Database) -> dict[str, Any]:
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
    return {
        "sqlite_integrity": sqlite_ok,
        "fts_integrity": fts_ok,
        "fts_error": fts_error,
        "fts_in_sync": orphans == 0,
        "ok": sqlite_ok and fts_ok and orphans == 0,
    }


def collect_status(database: Database, check_integrity: bool = True) -> dict[str, Any]:
    """Counts and per-file status; the integrity checks (a full scan) only when asked for."""
    with database.read() as db:
        counts = {
            "folders": folder_rows.folder_count(db),
            **notes.status_counts(db),
            "chunks": chunks.chunk_count(db),
            "pending_embedding": db.execute(
                f"SELECT count(*) FROM chunks c WHERE {WAITS_FOR_VECTORS}"
            ).fetchone()[0],
        }
        model, _ = meta.embedding_model(db)
        files = _files(db)
    return {
        "database": str(database.path),
        "embedding_model": model,
        "counts": counts,
        "migrations": database.applied_migrations(),
        "integrity": integrity(database) if check_integrity else None,
        "files": files,
    }


def _files(db: sqlite_utils.Database) -> list[dict[str, Any]]:
    files = []
    for folder, path, status, reason, language, chunk_count, pending in db.execute(
        "SELECT f.path, n.path, n.status, n.reason, n.language,"
        " (SELECT count(*) FROM chunks c WHERE c.note_id = n.id),"
        f" (SELECT count(*) FROM chunks c WHERE c.note_id = n.id AND {WAITS_FOR_VECTORS})"
        " FROM notes n JOIN folders f ON f.id = n.folder_id ORDER BY f.path, n.path"
    ).fetchall():
        shown = "pending embedding" if status == "indexed" and pending else status
        files.append(
            {
                "folder": folder,
                "path": path,
                "status": shown,
                "reason": reason or "",
                "language": language or "",
                "chunks": chunk_count,
            }
        )
    return files
