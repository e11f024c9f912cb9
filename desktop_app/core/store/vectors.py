"""Embedding parts (`chunk_parts`: a chunk longer than the embedder reads is embedded as several
parts) and vectors (`embeddings`: float32 blobs keyed by the hash of the text they embed), in
one of two spaces: the index's model's, and the multilingual companion's beside it."""

from __future__ import annotations

from dataclasses import dataclass

import sqlite_utils

from desktop_app.core.store.notes import QUICK_HASH


@dataclass(frozen=True)
class Space:
    """The tables one model's parts and vectors live in, and the meta keys naming the model."""

    parts: str
    vectors: str
    model_key: str
    dimension_key: str


MAIN = Space("chunk_parts", "embeddings", "embed_model", "embed_dim")
COMPANION = Space("companion_parts", "companion_vectors", "companion_model", "companion_dim")

# (chunk_id, title, heading_path JSON, chunk start, chunk text) of a chunk without parts
UnplannedChunk = tuple[int, str | None, str | None, int, str]
# (chunk_id, part, parts, start, end, embed_hash, chunk_id, chunk text): the last two make sure
# the chunk still holds the text the part was planned from
PartRow = tuple[int, int, int, int, int, str, int, str]
# (embed_hash, title, heading_path JSON, the part's text, part, parts)
PendingPart = tuple[str, str | None, str | None, str, int, int]


def drop_all(db: sqlite_utils.Database, space: Space = MAIN) -> None:
    """Forget every vector and part (a new embedding model reads texts differently)."""
    db.execute(f"DELETE FROM {space.vectors}")
    db.execute(f"DELETE FROM {space.parts}")


def forget(db: sqlite_utils.Database, space: Space) -> None:
    """Drop a space's vectors and parts and the record of its model."""
    drop_all(db, space)
    db.execute("DELETE FROM meta WHERE key IN (?, ?)", (space.model_key, space.dimension_key))


def unplanned_chunks(db: sqlite_utils.Database, space: Space = MAIN) -> list[UnplannedChunk]:
    """Chunks without embedding parts, recently edited notes first."""
    rows: list[UnplannedChunk] = db.execute(
        "SELECT c.id, n.title, c.heading_path, c.start, c.text FROM chunks c"
        " JOIN notes n ON n.id = c.note_id"
        f" WHERE NOT EXISTS (SELECT 1 FROM {space.parts} p WHERE p.chunk_id = c.id)"
        " AND coalesce(n.content_hash, '') NOT LIKE ? || '%'"
        " ORDER BY n.indexed_at DESC, c.note_id, c.seq",
        (QUICK_HASH,),
    ).fetchall()
    return rows


def insert_parts(db: sqlite_utils.Database, rows: list[PartRow], space: Space = MAIN) -> None:
    """Store planned parts; a part whose chunk was replaced since it was read (ids are reused)
    is dropped: the chunk's text decides."""
    db.conn.executemany(
        f"INSERT OR IGNORE INTO {space.parts} (chunk_id, part, parts, start, end, embed_hash)"
        " SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS"
        " (SELECT 1 FROM chunks WHERE id = ? AND text = ?)",
        rows,
    )


def pending_parts(db: sqlite_utils.Database, space: Space = MAIN) -> list[PendingPart]:
    """Parts without a vector, recently edited notes first. Each row carries its part's text
    only, cut by SQLite (characters, as Python cuts): a long chunk's text is not fetched
    again for each of its parts."""
    rows: list[PendingPart] = db.execute(
        "SELECT p.embed_hash, n.title, c.heading_path,"
        " substr(c.text, p.start - c.start + 1, p.end - p.start), p.part, p.parts"
        f" FROM {space.parts} p"
        " JOIN chunks c ON c.id = p.chunk_id JOIN notes n ON n.id = c.note_id"
        f" WHERE NOT EXISTS (SELECT 1 FROM {space.vectors} e WHERE e.hash = p.embed_hash)"
        " ORDER BY n.indexed_at DESC, c.note_id, c.seq, p.part"
    ).fetchall()
    return rows


def insert_vectors(
    db: sqlite_utils.Database,
    vectors: list[tuple[str, bytes]],
    replace: bool = True,
    space: Space = MAIN,
) -> None:
    """Store (hash, float32 blob) pairs; `replace=False` keeps a vector already stored."""
    verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
    db.conn.executemany(f"{verb} INTO {space.vectors} (hash, vector) VALUES (?, ?)", vectors)


def drop_orphan_vectors(db: sqlite_utils.Database, space: Space = MAIN) -> None:
    """Drop vectors no part uses, but only while every chunk has its parts: a chunk re-indexed
    since the parts were planned may need an old vector again (its text did not change)."""
    db.execute(
        f"DELETE FROM {space.vectors} WHERE hash NOT IN (SELECT embed_hash FROM {space.parts})"
        " AND NOT EXISTS (SELECT 1 FROM chunks c"
        f" WHERE NOT EXISTS (SELECT 1 FROM {space.parts} p WHERE p.chunk_id = c.id))"
    )


def part_vectors(
    db: sqlite_utils.Database, space: Space = MAIN
) -> list[tuple[int, bytes, str | None]]:
    """(chunk_id, vector blob, its note's language) of every part that has a vector, by chunk
    and part."""
    rows: list[tuple[int, bytes, str | None]] = db.execute(
        f"SELECT p.chunk_id, e.vector, n.language FROM {space.parts} p"
        f" JOIN {space.vectors} e ON e.hash = p.embed_hash"
        " JOIN chunks c ON c.id = p.chunk_id JOIN notes n ON n.id = c.note_id"
        " ORDER BY p.chunk_id, p.part"
    ).fetchall()
    return rows


def waits_in(space: Space) -> str:
    """The condition on chunk `c` of waiting for vectors in `space`: it has no parts yet
    (planned by the embedding pass), or a part without a vector."""
    return (
        f"(NOT EXISTS (SELECT 1 FROM {space.parts} p WHERE p.chunk_id = c.id) OR EXISTS"
        f" (SELECT 1 FROM {space.parts} p WHERE p.chunk_id = c.id AND NOT EXISTS"
        f" (SELECT 1 FROM {space.vectors} e WHERE e.hash = p.embed_hash)))"
    )


def pending_count(db: sqlite_utils.Database, space: Space) -> int:
    """Passages waiting for their vectors in `space`."""
    row = db.execute(f"SELECT count(*) FROM chunks c WHERE {waits_in(space)}").fetchone()
    return int(row[0])
