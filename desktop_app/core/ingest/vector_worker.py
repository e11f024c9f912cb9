"""Passage vectors computed in a worker process of their own, at low priority.

The embedding model (and torch, where the model runs on it) lives in one long-lived child
process, so the window's process neither waits behind it for the interpreter lock nor holds
its memory; queries and the few sentences an answer compares are encoded in the window's
process by the NumPy encoder, with the same vectors. The worker starts when the first batch
is sent and loads each model it is asked for once.

A batch is stored only once its vectors are back, so a worker that crashes or is killed loses
nothing: it is started again and the batch sent again (the passages it had not finished stay
pending). A worker that cannot start at all, or stops on the same batch again and again,
leaves the vectors to this process, and says why once (`VectorWorker.state`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from desktop_app.core.ingest import processes
from desktop_app.core.ingest.priority import lower_this_process
from desktop_app.core.retrieval.embedder import Embedder, EmbedderError, TextEmbedder

TRIES = 3  # starts of the worker one batch may take before its failure is the batch's own
Encode = Callable[[list[str]], np.ndarray]
Request = tuple[str, int, list[str]]  # (model path, batch size, texts)


@dataclass(frozen=True)
class WorkerState:
    """How passage vectors are being computed, for `quire status`, the self-test and Settings."""

    where: str  # "worker" (its own process), "in-process" (it could not start), "idle"
    started_by: str = ""  # "forkserver" or "spawn"
    restarts: int = 0  # times it was started again after it stopped
    why: str = ""  # why vectors are computed in this process, as a sentence to show
    pid: int | None = None


class VectorWorker:
    """Sends batches of passage texts to the worker process and returns their vectors."""

    def __init__(self) -> None:
        self._process: Any = None
        self._conn: Connection | None = None
        self._lock = threading.Lock()  # one batch in the pipe at a time
        self._started_by = ""
        self._restarts = 0
        self._why = ""  # set once the worker could not start: vectors are computed here

    def encoder(self, embedder: TextEmbedder) -> Encode:
        """`encode` for the embedding pass: a model file the worker can load goes there; any
        other embedder (one given in code) encodes here."""
        if not isinstance(embedder, Embedder):
            return embedder.encode
        return lambda texts: self.encode(embedder, texts)

    def encode(self, embedder: Embedder, texts: list[str]) -> np.ndarray:
        """The passage vectors of `texts` (`embedder.encode`'s), computed by the worker."""
        with self._lock:
            for _ in range(TRIES):
                conn = self._connection()
                if conn is None:
                    return embedder.encode(texts)
                try:
                    conn.send((str(embedder.path), embedder.batch_size, texts))
                    status, value = conn.recv()
                except (EOFError, OSError):  # it stopped mid-batch: nothing of it was stored
                    self._stop()
                    self._restarts += 1
                    continue
                if status != "ok":
                    raise EmbedderError(value)
                return np.asarray(value, dtype=np.float32)
            self._why = _in_process(f"the vector worker stopped {TRIES} times on one batch")
            return embedder.encode(texts)

    @property
    def state(self) -> WorkerState:
        if self._why:
            return WorkerState("in-process", why=self._why, restarts=self._restarts)
        alive = self._process is not None and self._process.is_alive()
        pid = self._process.pid if alive else None
        where = "worker" if alive else "idle"
        return WorkerState(where, self._started_by, self._restarts, pid=pid)

    def _connection(self) -> Connection | None:
        """The running worker's pipe, a new worker's, or None: vectors are computed here."""
        if self._why:
            return None
        if self._process is not None and self._process.is_alive() and self._conn is not None:
            return self._conn
        if self._process is not None:  # it stopped between batches (killed, out of memory)
            self._restarts += 1
        self._stop()
        try:
            self._process, self._conn, self._started_by = processes.started(
                serve, (), "quire-vectors"
            )
        except Exception as exc:  # a frozen app or a system without processes for us
            self._why = _in_process(f"cannot start the vector worker ({type(exc).__name__}: {exc})")
            return None
        return self._conn

    def _stop(self) -> None:
        processes.stop(self._process, self._conn)
        self._process = self._conn = None

    def close(self) -> None:
        with self._lock:
            self._stop()


def serve(conn: Connection) -> None:
    """The worker: encode each batch sent with its model (loaded once), send back ("ok",
    vectors) or ("failed", why)."""
    lower_this_process()
    models: dict[str, Embedder] = {}
    while True:
        try:
            path, batch_size, texts = conn.recv()
        except (EOFError, OSError):
            return
        try:
            if path not in models:
                models[path] = Embedder(Path(path), batch_size)
            answer: tuple[str, Any] = ("ok", models[path].encode(texts))
        except EmbedderError as exc:
            answer = ("failed", str(exc))
        except Exception as exc:  # the batch fails, the worker serves the next one
            answer = ("failed", f"cannot compute vectors: {type(exc).__name__}: {exc}")
        conn.send(answer)


def _in_process(reason: str) -> str:
    return f"{reason}: passage vectors are computed in Quire's own process"


_SHARED: list[VectorWorker] = []
_SHARED_LOCK = threading.Lock()


def shared() -> VectorWorker:
    """The process's one vector worker (every index opened in it sends its batches there; it
    ends with the process)."""
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(VectorWorker())
        return _SHARED[0]
