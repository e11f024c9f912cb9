"""Ways to damage an index file, shared by the tests and the corruption bench (seeded)."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8


def page_size(db: Path) -> int:
    size = int.from_bytes(db.read_bytes()[16:18], "big")
    return 65536 if size == 1 else size


def table_pages(db: Path, prefix: str = "chunks_fts_") -> list[int]:
    """Page numbers of every table (and index) whose name starts with `prefix` (dbstat)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT pageno FROM dbstat WHERE name LIKE ? ORDER BY pageno", (prefix + "%",)
        ).fetchall()
    finally:
        conn.close()
    return [int(r[0]) for r in rows]


def scribble(db: Path, page: int, rng: random.Random, length: int = 4096, skip: int = 0) -> None:
    """Random bytes over `page` (1-based), starting `skip` bytes into it."""
    offset = (page - 1) * page_size(db) + skip
    with db.open("r+b") as f:
        f.seek(offset)
        f.write(rng.randbytes(length))


def truncate(db: Path, size: int) -> None:
    with db.open("r+b") as f:
        f.truncate(size)


def replace_with(db: Path, data: bytes) -> None:
    db.write_bytes(data)


def damage_fts(db: Path, rng: random.Random, pages: int = 1) -> list[int]:
    """4 KB of random bytes on full-text index pages (chunks_fts_data and friends)."""
    chosen = rng.sample(table_pages(db), min(pages, len(table_pages(db))))
    for page in chosen:
        scribble(db, page, rng, length=min(4096, page_size(db)))
    return chosen
