"""The `chunks` table and its full-text rows (`chunks_fts`, written in the same transaction)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlite_utils


@dataclass(frozen=True)
class ChunkDetail:
    """A chunk as search reads it: where it stands in its note, its note and its folder."""

    id: int
    note_id: int
    seq: int
    start: int
    end: int
    text: str
    heading_path: str  # JSON array
    line_start: int
    line_end: int
    page_start: int | None
    page_end: int | None
    day: str | None
    path: str
    title: str | None
    folder_id: int
    written: str | None  # the day the note's own words give
    tags: str | None  # space-separated
    paged: str | None  # the note's metadata (its page offsets) when the chunk runs over a page
    folder: str


# (id, note_id, seq, start, end, line_start, line_end, heading_path JSON, text, page_start,
# page_end)
ChunkRow = tuple[
    int, int, int, int, int, int, int, str, str, int | None, int | None, str | None
]  # id, note, seq, start, end, lines, heading path, text, pages, day
# (chunk id, body terms, prefix terms, context terms)
FtsRow = tuple[int, str, str, str]


def next_chunk_id(db: sqlite_utils.Database) -> int:
    """The first free chunk id (the one writer holds the transaction, so ids can be assigned
    before a batch insert)."""
    return int(db.execute("SELECT coalesce(max(id), 0) + 1 FROM chunks").fetchone()[0])


def delete_chunks(db: sqlite_utils.Database, note_ids: list[int]) -> None:
    """Drop these notes' chunks (a trigger drops their FTS rows and embedding parts)."""
    db.conn.executemany("DELETE FROM chunks WHERE note_id = ?", [(i,) for i in note_ids])


def insert_chunks(db: sqlite_utils.Database, chunks: list[ChunkRow], fts: list[FtsRow]) -> None:
    """Batch-insert chunks and their FTS rows (inside a write transaction)."""
    db.conn.executemany(
        "INSERT INTO chunks (id, note_id, seq, start, end, line_start, line_end, heading_path,"
        " text, page_start, page_end, day) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        chunks,
    )
    db.conn.executemany(
        "INSERT INTO chunks_fts (rowid, body, prefixes, context) VALUES (?, ?, ?, ?)", fts
    )


def is_empty(db: sqlite_utils.Database) -> bool:
    """Whether no passage is indexed at all."""
    return db.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is None


def chunk_count(db: sqlite_utils.Database) -> int:
    return int(db.execute("SELECT count(*) FROM chunks").fetchone()[0])


def chunk_text(db: sqlite_utils.Database, chunk_id: int) -> str:
    """A chunk's text ("" if it is gone)."""
    row = db.execute("SELECT text FROM chunks WHERE id = ?", (chunk_id,)).fetchone()
    return str(row[0]) if row else ""


def chunk_after(db: sqlite_utils.Database, note_id: int, seq: int) -> int | None:
    """The id of the note's chunk that follows chunk number `seq` (None at the note's end)."""
    row = db.execute(
        "SELECT id FROM chunks WHERE note_id = ? AND seq = ?", (note_id, seq + 1)
    ).fetchone()
    return int(row[0]) if row else None


def chunk_details(
    db: sqlite_utils.Database, chunk_ids: list[int], folder_ids: tuple[int, ...] | None = None
) -> dict[int, ChunkDetail]:
    """Chunks with their note's path and title and their folder, by id (only chunks of
    `folder_ids` when given)."""
    if not chunk_ids:
        return {}
    marks = ", ".join("?" for _ in chunk_ids)
    sql = (
        "SELECT c.id, c.note_id, c.seq, c.start, c.end, c.text, c.heading_path, c.line_start,"
        " c.line_end, c.page_start, c.page_end, c.day, n.path, n.title, n.folder_id,"
        # the day the note's own words give (front matter, file name, a journal heading)
        " CASE WHEN n.day_source = 'modified' AND c.day = n.day THEN NULL ELSE c.day END"
        " AS written, (SELECT group_concat(tag, ' ') FROM note_tags t WHERE t.note_id = n.id)"
        " AS tags, CASE WHEN c.page_end > c.page_start THEN n.metadata END AS paged,"
        " f.path AS folder FROM chunks c"
        " JOIN notes n ON n.id = c.note_id JOIN folders f ON f.id = n.folder_id"
        f" WHERE c.id IN ({marks})"
    )
    params: list[Any] = list(chunk_ids)
    if folder_ids is not None:
        sql += f" AND n.folder_id IN ({', '.join('?' for _ in folder_ids)})"
        params.extend(folder_ids)
    return {row[0]: ChunkDetail(*row) for row in db.execute(sql, params).fetchall()}


def chunk_languages(db: sqlite_utils.Database, chunk_ids: list[int]) -> dict[int, str]:
    """The language of each chunk's note, by chunk id."""
    if not chunk_ids:
        return {}
    marks = ", ".join("?" for _ in chunk_ids)
    sql = (
        "SELECT c.id, n.language FROM chunks c JOIN notes n ON n.id = c.note_id"
        f" WHERE c.id IN ({marks})"
    )
    return {row[0]: row[1] or "" for row in db.execute(sql, list(chunk_ids)).fetchall()}
