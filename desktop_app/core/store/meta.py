"""The `meta` table: small named values (settings the index was built with, the data version)."""

from __future__ import annotations

import sqlite_utils

CHUNKING = "chunking"
EMBED_MODEL = "embed_model"
EMBED_DIM = "embed_dim"
DATA_VERSION = "data_version"


def read_meta(db: sqlite_utils.Database, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_meta(db: sqlite_utils.Database, key: str, value: str) -> None:
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = ?",
        (key, value, value),
    )


def data_version(db: sqlite_utils.Database) -> str:
    """Moved by triggers (migration 0005) whenever vectors, embedding parts or notes change;
    readers cache the vector matrix and reload when it differs ("0": never written to)."""
    return read_meta(db, DATA_VERSION) or "0"


def embedding_model(
    db: sqlite_utils.Database, keys: tuple[str, str] = (EMBED_MODEL, EMBED_DIM)
) -> tuple[str | None, str | None]:
    """The model the stored vectors were made with, and their recorded dimension (`keys`: the
    meta keys of a vector space, the index model's by default)."""
    return read_meta(db, keys[0]), read_meta(db, keys[1])


def set_embedding_model(
    db: sqlite_utils.Database,
    model_id: str,
    dimension: int,
    keys: tuple[str, str] = (EMBED_MODEL, EMBED_DIM),
) -> None:
    set_meta(db, keys[0], model_id)
    set_meta(db, keys[1], str(dimension))
