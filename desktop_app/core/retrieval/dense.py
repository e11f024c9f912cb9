"""Dense retrieval: brute-force cosine over a cached float32 matrix of normalized vectors."""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

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
    languages: np.ndarray  # each row's note language ("" unknown)


@dataclass(frozen=True)
class Crossing:
    """A question's language and what a cosine with a passage in another language is raised by
    (a multilingual model's cosines run lower across languages than within one, so in a vault
    of several languages the question's own language would win every near tie)."""

    asked: str
    shift: float


_EMPTY = _Vectors(
    None, np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=str)
)


class VectorIndex:
    """All chunk vectors in one matrix; reloaded when the database's data_version changes."""

    def __init__(self, space: vectors.Space = vectors.MAIN) -> None:
        self.space = space
        self._lock = threading.Lock()  # one load at a time; searches never wait for it
        self._vectors = _EMPTY

    def refresh(self, db: sqlite_utils.Database) -> None:
        version = meta.data_version(db)
        with self._lock:
            if version == self._vectors.version:
                return
            self._vectors = _load(db, version, self.space)

    @property
    def size(self) -> int:
        return len(self._vectors.ids)

    @property
    def matrix(self) -> np.ndarray:
        """The loaded vectors, one row a part (benchmarks compare a raw scan with it)."""
        return self._vectors.matrix

    def search(
        self,
        query_vector: np.ndarray,
        limit: int,
        allowed: np.ndarray | None = None,
        crossing: Crossing | None = None,
    ) -> list[DenseHit]:
        """Best chunks by cosine; a chunk embedded in parts scores as its best part. With
        `allowed` (sorted chunk ids) only those rows are scored; with `crossing`, rows in
        another known language than the question's rank by their raised cosine (every row, so
        none is cut off before it is raised; the hit keeps its own cosine)."""
        state = self._vectors  # one read: a refresh meanwhile swaps in a whole new state
        ids, matrix, languages = state.ids, state.matrix, state.languages
        if allowed is not None:
            rows = np.flatnonzero(np.isin(ids, allowed, assume_unique=False))
            ids, matrix, languages = ids[rows], matrix[rows], languages[rows]
        if not len(ids):
            return []
        scores = matrix @ query_vector.astype(np.float32)
        ranked = scores
        if crossing is not None:
            other = (languages != crossing.asked) & (languages != "")
            ranked = scores + np.float32(crossing.shift) * other
        wanted = min(len(ids), limit * 2)  # parts of one chunk may repeat
        top = np.argpartition(-ranked, wanted - 1)[:wanted]
        top = top[np.argsort(-ranked[top])]
        hits: dict[int, DenseHit] = {}
        for i in top:
            chunk_id = int(ids[i])
            if chunk_id not in hits:
                hits[chunk_id] = DenseHit(chunk_id, float(scores[i]))
        return list(hits.values())[:limit]


def _load(db: sqlite_utils.Database, version: str | None, space: vectors.Space) -> _Vectors:
    rows = vectors.part_vectors(db, space)
    if not rows:
        return replace(_EMPTY, version=version)
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    languages = np.array([r[2] or "" for r in rows], dtype=str)
    return _Vectors(version, ids, matrix, languages)
