"""Dense retrieval: brute-force cosine over a cached float32 matrix of normalized vectors."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import sqlite_utils


@dataclass(frozen=True)
class DenseHit:
    chunk_id: int
    score: float  # cosine similarity


class VectorIndex:
    """All chunk vectors in one matrix; reloaded when the database's data_version changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version: str | None = None
        self._ids = np.zeros(0, dtype=np.int64)
        self._matrix = np.zeros((0, 0), dtype=np.float32)

    def refresh(self, db: sqlite_utils.Database) -> None:
        row = db.execute("SELECT value FROM meta WHERE key = 'data_version'").fetchone()
        version = row[0] if row else "0"
        with self._lock:
            if version == self._version:
                return
            ids, matrix = _load(db)
            self._ids, self._matrix, self._version = ids, matrix, version

    @property
    def size(self) -> int:
        return len(self._ids)

    def search(self, query_vector: np.ndarray, limit: int) -> list[DenseHit]:
        """Best chunks by cosine; a chunk embedded in parts scores as its best part."""
        ids, matrix = self._ids, self._matrix
        if not len(ids):
            return []
        scores = matrix @ query_vector.astype(np.float32)
        wanted = min(len(ids), limit * 2)  # parts of one chunk may repeat
        top = np.argpartition(-scores, wanted - 1)[:wanted]
        top = top[np.argsort(-scores[top])]
        hits: dict[int, DenseHit] = {}
        for i in top:
            chunk_id = int(ids[i])
            if chunk_id not in hits:
                hits[chunk_id] = DenseHit(chunk_id, float(scores[i]))
        return list(hits.values())[:limit]


def _load(db: sqlite_utils.Database) -> tuple[np.ndarray, np.ndarray]:
    rows = db.execute(
        "SELECT p.chunk_id, e.vector FROM chunk_parts p JOIN embeddings e ON e.hash = p.embed_hash"
        " ORDER BY p.chunk_id, p.part"
    ).fetchall()
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    return ids, matrix
