"""The `notes` table: one row per file in a notes folder, with its status."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import sqlite_utils

from desktop_app.core.store.note_status import NoteStatus


class KnownNote(NamedTuple):
    """A note's row as the indexer compares it with the file."""

    id: int
    size: int
    mtime_ns: int
    content_hash: str | None
    status: NoteStatus
    reason: str | None


# Before the content hash of a note read quickly, as one passage (a large first index): no
# vector is computed for that passage, and its mtime is stored as -1 (as `mark_all_changed`
# does), so the next pass reads it in full.
QUICK_HASH = "quick:"


def known_notes(db: sqlite_utils.Database, folder_id: int) -> dict[str, KnownNote]:
    """Every note of a folder by its path."""
    rows = db.execute(
        "SELECT path, id, size, mtime_ns, content_hash, status, reason FROM notes"
        " WHERE folder_id = ?",
        (folder_id,),
    ).fetchall()
    return {r[0]: KnownNote(r[1], r[2], r[3], r[4], NoteStatus(r[5]), r[6]) for r in rows}


def upsert_note(db: sqlite_utils.Database, note: dict[str, Any]) -> int:
    """Insert or update a note by (folder_id, path); returns its id."""
    columns = ", ".join(note)
    marks = ", ".join("?" for _ in note)
    updates = ", ".join(f"{k} = excluded.{k}" for k in note if k not in ("folder_id", "path"))
    row = db.execute(
        f"INSERT INTO notes ({columns}) VALUES ({marks}) "
        f"ON CONFLICT(folder_id, path) DO UPDATE SET {updates} RETURNING id",
        list(note.values()),
    ).fetchone()
    return int(row[0])


def upsert_notes(db: sqlite_utils.Database, rows: list[dict[str, Any]]) -> list[int]:
    """`upsert_note` for many notes of the same columns, in one statement run for all of them;
    returns their ids in order."""
    if not rows:
        return []
    columns = list(rows[0])
    updates = ", ".join(f"{k} = excluded.{k}" for k in columns if k not in ("folder_id", "path"))
    db.conn.executemany(
        f"INSERT INTO notes ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)}) "
        f"ON CONFLICT(folder_id, path) DO UPDATE SET {updates}",
        [[row[k] for k in columns] for row in rows],
    )
    keys = [(row["folder_id"], row["path"]) for row in rows]
    by_folder: dict[int, list[str]] = {}
    for folder_id, path in keys:
        by_folder.setdefault(folder_id, []).append(path)
    ids: dict[tuple[int, str], int] = {}
    for folder_id, paths in by_folder.items():
        for i in range(0, len(paths), _MARKS):
            some = paths[i : i + _MARKS]
            found = db.execute(
                f"SELECT path, id FROM notes WHERE folder_id = ? AND path IN"
                f" ({', '.join('?' for _ in some)})",
                [folder_id, *some],
            ).fetchall()
            ids.update(((folder_id, path), note_id) for path, note_id in found)
    return [ids[key] for key in keys]


_MARKS = 500  # parameters in one statement, well under SQLite's limit


def set_tags(db: sqlite_utils.Database, tagged: list[tuple[int, tuple[str, ...]]]) -> None:
    """Replace these notes' tags (inside a write transaction)."""
    db.conn.executemany("DELETE FROM note_tags WHERE note_id = ?", [(i,) for i, _ in tagged])
    db.conn.executemany(
        "INSERT OR IGNORE INTO note_tags (note_id, tag) VALUES (?, ?)",
        [(i, tag) for i, tags in tagged for tag in tags],
    )


def note_metadata(db: sqlite_utils.Database, folder: str, path: str) -> dict[str, Any]:
    """An indexed note's metadata (front matter; a PDF's title and page starts), {} if none."""
    row = db.execute(
        "SELECT n.metadata FROM notes n JOIN folders f ON f.id = n.folder_id"
        " WHERE f.path = ? AND n.path = ?", (folder, path),
    ).fetchone()  # fmt: skip
    try:
        value = json.loads(row[0]) if row and row[0] else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def touch_note(db: sqlite_utils.Database, note_id: int, size: int, mtime_ns: int) -> None:
    """A note whose content did not change: only its size and time are new."""
    db.execute("UPDATE notes SET size = ?, mtime_ns = ? WHERE id = ?", (size, mtime_ns, note_id))


def rename_note(db: sqlite_utils.Database, folder_id: int, src: str, dest: str) -> bool:
    """Give a note a new path (its chunks and vectors stay); False if there was nothing to move
    or the destination is already taken."""
    taken = db.execute(
        "SELECT 1 FROM notes WHERE folder_id = ? AND path = ?", (folder_id, dest)
    ).fetchone()
    if taken:
        return False
    cur = db.execute(
        "UPDATE notes SET path = ? WHERE folder_id = ? AND path = ?", (dest, folder_id, src)
    )
    return cur.rowcount > 0


def delete_notes(db: sqlite_utils.Database, folder_id: int, paths: list[str]) -> None:
    """Remove notes with their chunks (inside a write transaction)."""
    for path in paths:
        row = db.execute(
            "SELECT id FROM notes WHERE folder_id = ? AND path = ?", (folder_id, path)
        ).fetchone()
        if row:
            db.execute("DELETE FROM chunks WHERE note_id = ?", (row[0],))
            db.execute("DELETE FROM notes WHERE id = ?", (row[0],))


def mark_all_changed(db: sqlite_utils.Database) -> None:
    """Make every note look changed, so the next pass reads and chunks it again."""
    db.execute("UPDATE notes SET mtime_ns = -1, content_hash = ''")


def note_languages(db: sqlite_utils.Database) -> dict[str, int]:
    """The languages of the indexed notes, each with how many notes are in it."""
    rows = db.execute(
        "SELECT language, count(*) FROM notes WHERE status = 'indexed' GROUP BY language"
    ).fetchall()
    return {r[0]: int(r[1]) for r in rows if r[0]}


def status_counts(db: sqlite_utils.Database) -> dict[NoteStatus, int]:
    """How many notes are indexed, skipped and failed."""
    stored = (NoteStatus.INDEXED, NoteStatus.SKIPPED, NoteStatus.FAILED)
    return {status: _count(db, status) for status in stored}


def _count(db: sqlite_utils.Database, status: NoteStatus) -> int:
    return int(db.execute("SELECT count(*) FROM notes WHERE status = ?", (status,)).fetchone()[0])


def ocr_boxes(
    db: sqlite_utils.Database, folder: str, path: str, start: int, end: int
) -> list[tuple[int, tuple[float, float, float, float]]]:
    """The words OCR read between `start` and `end` of a note's text: each one's 0-based page
    and its box (left, top, right, bottom) as fractions of the page ([] where OCR read none)."""
    words = note_metadata(db, folder, path).get("ocr_words")
    if not isinstance(words, list):
        return []
    found = []
    for word in words:
        if isinstance(word, list) and len(word) == 7 and word[1] < end and word[2] > start:
            page, _, _, left, top, right, bottom = word
            found.append((int(page), (float(left), float(top), float(right), float(bottom))))
    return found


def page_starts(db: sqlite_utils.Database, folder: str, path: str) -> list[int]:
    """Where each page of an indexed PDF starts in its text ([] for other notes)."""
    pages = note_metadata(db, folder, path).get("pages")
    return [p for p in pages if isinstance(p, int)] if isinstance(pages, list) else []
