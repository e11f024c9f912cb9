"""Dense retrieval: brute-force cosine over a cached float32 matrix of normalized vectors."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import sqlite_utils

from desktop_app.core.store import meta, vectors


@dataclass(frozen=True)
class DenseHit:
    chunk_id: int
    score: float  # cosine similarity


@dataclass(frozen=True)
class _Vectors:
    """One loaded state of the index: row i of `matrix` is a part of chunk `ids[i]`. Replaced
    as a whole, never changed, so a search always pairs ids with their own matrix."""

    version: str | None
    ids: np.ndarray
    matrix: np.ndarray


_EMPTY = _Vectors(None, np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32))


class VectorIndex:
    """All chunk vectors in one matrix; reloaded when the database's data_version changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # one load at a time; searches never wait for it
        self._vectors = _EMPTY

    def refresh(self, db: sqlite_utils.Database) -> None:
        version = meta.data_version(db)
        with self._lock:
            if version == self._vectors.version:
                return
            ids, matrix = _load(db)
            self._vectors = _Vectors(version, ids, matrix)

    @property
    def size(self) -> int:
        return len(self._vectors.ids)

    @property
    def matrix(self) -> np.ndarray:
        """The loaded vectors, one row a part (benchmarks compare a raw scan with it)."""
        return self._vectors.matrix

    def search(
        self, query_vector: np.ndarray, limit: int, allowed: np.ndarray | None = None
    ) -> list[DenseHit]:
        """Best chunks by cosine; a chunk embedded in parts scores as its best part. With
        `allowed` (sorted chunk ids) only those rows are scored."""
        state = self._vectors  # one read: a refresh meanwhile swaps in a whole new state
        ids, matrix = state.ids, state.matrix
        if allowed is not None:
            rows = np.flatnonzero(np.isin(ids, allowed, assume_unique=False))
            ids, matrix = ids[rows], matrix[rows]
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
    rows = vectors.part_vectors(db)
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    return ids, matrix
