"""The `folders` table: the notes folders Quire indexes, by resolved path."""

from __future__ import annotations

import time

import sqlite_utils


def folder_id(db: sqlite_utils.Database, path: str) -> int | None:
    row = db.execute("SELECT id FROM folders WHERE path = ?", (path,)).fetchone()
    return None if row is None else int(row[0])


def add_folder(db: sqlite_utils.Database, path: str, added_at: float | None = None) -> int:
    """Insert a folder (inside a write transaction); returns its id."""
    when = time.time() if added_at is None else added_at
    cur = db.execute("INSERT INTO folders (path, added_at) VALUES (?, ?)", (path, when))
    return int(cur.lastrowid or 0)


def folder_paths(db: sqlite_utils.Database) -> list[str]:
    """Every folder's path, in the order they were added."""
    return [str(r[0]) for r in db.execute("SELECT path FROM folders ORDER BY id").fetchall()]


def folder_rows(db: sqlite_utils.Database) -> list[tuple[str, float]]:
    """(path, added_at) of every folder, in the order they were added."""
    rows = db.execute("SELECT path, added_at FROM folders ORDER BY id").fetchall()
    return [(str(p), float(a or 0.0)) for p, a in rows]


def delete_folder(db: sqlite_utils.Database, folder: int) -> None:
    """Remove a folder with its notes and their chunks (inside a write transaction)."""
    db.execute(
        "DELETE FROM chunks WHERE note_id IN (SELECT id FROM notes WHERE folder_id = ?)",
        (folder,),
    )
    db.execute("DELETE FROM notes WHERE folder_id = ?", (folder,))
    db.execute("DELETE FROM folders WHERE id = ?", (folder,))


def folder_count(db: sqlite_utils.Database) -> int:
    return int(db.execute("SELECT count(*) FROM folders").fetchone()[0])
