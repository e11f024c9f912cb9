"""Embedding parts (`chunk_parts`: a chunk longer than the embedder reads is embedded as several
parts) and vectors (`embeddings`: float32 blobs keyed by the hash of the text they embed)."""

from __future__ import annotations

import sqlite_utils

# (chunk_id, title, heading_path JSON, chunk start, chunk text) of a chunk without parts
UnplannedChunk = tuple[int, str | None, str | None, int, str]
# (chunk_id, part, parts, start, end, embed_hash, chunk_id, chunk text): the last two make sure
# the chunk still holds the text the part was planned from
PartRow = tuple[int, int, int, int, int, str, int, str]
# (embed_hash, title, heading_path JSON, chunk text, part start and end in the text, part, parts)
PendingPart = tuple[str, str | None, str | None, str, int, int, int, int]


def drop_all(db: sqlite_utils.Database) -> None:
    """Forget every vector and part (a new embedding model reads texts differently)."""
    db.execute("DELETE FROM embeddings")
    db.execute("DELETE FROM chunk_parts")


def unplanned_chunks(db: sqlite_utils.Database) -> list[UnplannedChunk]:
    """Chunks without embedding parts, recently edited notes first."""
    rows: list[UnplannedChunk] = db.execute(
        "SELECT c.id, n.title, c.heading_path, c.start, c.text FROM chunks c"
        " JOIN notes n ON n.id = c.note_id"
        " WHERE NOT EXISTS (SELECT 1 FROM chunk_parts p WHERE p.chunk_id = c.id)"
        " ORDER BY n.indexed_at DESC, c.note_id, c.seq"
    ).fetchall()
    return rows


def insert_parts(db: sqlite_utils.Database, rows: list[PartRow]) -> None:
    """Store planned parts; a part whose chunk was replaced since it was read (ids are reused)
    is dropped: the chunk's text decides."""
    db.conn.executemany(
        "INSERT OR IGNORE INTO chunk_parts (chunk_id, part, parts, start, end, embed_hash)"
        " SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS"
        " (SELECT 1 FROM chunks WHERE id = ? AND text = ?)",
        rows,
    )


def pending_parts(db: sqlite_utils.Database) -> list[PendingPart]:
    """Parts without a vector, recently edited notes first."""
    rows: list[PendingPart] = db.execute(
        "SELECT p.embed_hash, n.title, c.heading_path, c.text, p.start - c.start,"
        " p.end - c.start, p.part, p.parts FROM chunk_parts p"
        " JOIN chunks c ON c.id = p.chunk_id JOIN notes n ON n.id = c.note_id"
        " WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.hash = p.embed_hash)"
        " ORDER BY n.indexed_at DESC, c.note_id, c.seq, p.part"
    ).fetchall()
    return rows


def insert_vectors(
    db: sqlite_utils.Database, vectors: list[tuple[str, bytes]], replace: bool = True
) -> None:
    """Store (hash, float32 blob) pairs; `replace=False` keeps a vector already stored."""
    verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
    db.conn.executemany(f"{verb} INTO embeddings (hash, vector) VALUES (?, ?)", vectors)


def drop_orphan_vectors(db: sqlite_utils.Database) -> None:
    """Drop vectors no part uses, but only while every chunk has its parts: a chunk re-indexed
    since the parts were planned may need an old vector again (its text did not change)."""
    db.execute(
        "DELETE FROM embeddings WHERE hash NOT IN (SELECT embed_hash FROM chunk_parts)"
        " AND NOT EXISTS (SELECT 1 FROM chunks c"
        " WHERE NOT EXISTS (SELECT 1 FROM chunk_parts p WHERE p.chunk_id = c.id))"
    )


def part_vectors(db: sqlite_utils.Database) -> list[tuple[int, bytes, str | None]]:
    """(chunk_id, vector blob, its note's language) of every part that has a vector, by chunk
    and part."""
    rows: list[tuple[int, bytes, str | None]] = db.execute(
        "SELECT p.chunk_id, e.vector, n.language FROM chunk_parts p"
        " JOIN embeddings e ON e.hash = p.embed_hash"
        " JOIN chunks c ON c.id = p.chunk_id JOIN notes n ON n.id = c.note_id"
        " ORDER BY p.chunk_id, p.part"
    ).fetchall()
    return rows
