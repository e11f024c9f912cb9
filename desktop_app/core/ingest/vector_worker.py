"""Passage vectors computed in a worker process of their own, at low priority.

The embedding models (and torch, where a model runs on it) live in one long-lived child
process, so the window's process neither waits behind it for the interpreter lock nor holds
its memory. It plans the parts of new chunks (with the model's tokenizer, a large one for e5)
and encodes passages on its main thread at low priority; a second thread, at normal priority
and with a pipe of its own, encodes the window's queries and the sentences an answer compares
with the NumPy encoder (the same vectors), so a query never waits behind a batch. The worker
starts when first asked and loads each model once.

A batch is stored only once its vectors are back, so a worker that crashes or is killed loses
nothing: it is started again and the batch sent again (the passages it had not finished stay
pending). A worker that cannot start at all, or stops on the same batch again and again,
leaves the vectors to this process, and says why once (`VectorWorker.state`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property, partial
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from desktop_app.core import processes
from desktop_app.core.ingest.chunker import Part
from desktop_app.core.ingest.note_analysis import PartPlanner, Planner, PlanRow
from desktop_app.core.ingest.priority import (
    keep_this_thread_at_normal_priority,
    lower_this_process,
    lower_this_thread,
)
from desktop_app.core.retrieval.embedder import Embedder, EmbedderError, TextEmbedder

TRIES = 3  # starts of the worker one request may take before its failure is the request's own
BULK, QUERIES = 0, 1  # the worker's two pipes: passages and plans (low priority), queries (now)
Encode = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class WorkerState:
    """How passage vectors are being computed, for `quire status`, the self-test and Settings."""

    where: str  # "worker" (its own process), "in-process" (it could not start), "idle"
    started_by: str = ""  # "forkserver" or "spawn"
    restarts: int = 0  # times it was started again after it stopped
    why: str = ""  # why vectors are computed in this process, as a sentence to show
    pid: int | None = None


class VectorWorker:
    """Sends passages, chunks to plan and queries to the worker process and returns what it
    computed; a model host (`Embedder(host=...)`) for the window's queries."""

    def __init__(self) -> None:
        self._process: Any = None
        self._conns: list[Connection] | None = None
        self._life = threading.Lock()  # starting and stopping the process
        self._in_pipe = (threading.Lock(), threading.Lock())  # one request per pipe at a time
        self._started_by = ""
        self._restarts = 0
        self._why = ""  # set once the worker could not start: vectors are computed here
        self._lowered: ThreadPoolExecutor | None = None  # passages computed here, at low priority

    def encoder(self, embedder: TextEmbedder) -> Encode:
        """`encode` for the embedding pass: a model file the worker can load goes there; any
        other embedder (one given in code) encodes here."""
        if not isinstance(embedder, Embedder):
            return embedder.encode
        return lambda texts: self.encode(embedder, texts)

    def planner(self, embedder: TextEmbedder) -> Planner:
        """The embedding pass's planner: in the worker, which has the model's tokenizer (a
        large one for e5), for a model file; here for any other embedder."""
        if not isinstance(embedder, Embedder):
            return PartPlanner(embedder.token_offsets, embedder.max_tokens)
        return _PlannedInWorker(self, embedder)

    def encode(self, embedder: Embedder, texts: list[str]) -> np.ndarray:
        """The passage vectors of `texts` (`embedder.encode`'s), computed by the worker."""
        request = ("encode", str(embedder.path), embedder.batch_size, texts)
        return np.asarray(self._ask(BULK, request, lambda: embedder.encode(texts)), np.float32)

    def encode_now(self, path: Path, texts: list[str]) -> np.ndarray:
        """Vectors of prompted texts for a query or an answer, by the worker's query thread
        (normal priority, never behind a batch of passages): `ModelHost`."""
        here = lambda: Embedder(path).encode_here(texts)  # noqa: E731
        return np.asarray(self._ask(QUERIES, (str(path), texts), here), np.float32)

    def _ask(self, pipe: int, request: tuple[Any, ...], here: Callable[[], Any]) -> Any:
        """The worker's answer to `request` on `pipe`; `here()` where it cannot run (passages
        on a thread of low priority, as in the worker)."""
        if pipe == BULK:
            here = partial(self._below_normal, here)
        with self._in_pipe[pipe]:
            for _ in range(TRIES):
                conns = self._connections()
                if conns is None:
                    return here()
                try:
                    conns[pipe].send(request)
                    status, value = conns[pipe].recv()
                except (EOFError, OSError):  # it stopped mid-request: nothing of it was stored
                    self._lost(conns)
                    continue
                if status != "ok":
                    raise EmbedderError(value)
                return value
            self._why = _in_process(f"the vector worker stopped {TRIES} times on one batch")
            return here()

    def _below_normal(self, work: Callable[[], Any]) -> Any:
        """`work()` on a thread of low priority: the embedding library's threads, started from
        it, inherit its priority. The thread that asks keeps normal priority: in the window's
        process it holds the interpreter lock in turns, and a lowered thread descheduled while
        holding it would keep the window waiting on a busy machine."""
        if self._lowered is None:
            self._lowered = ThreadPoolExecutor(
                1, "quire-vectors-here", initializer=lower_this_thread
            )
        return self._lowered.submit(work).result()

    @property
    def state(self) -> WorkerState:
        if self._why:
            return WorkerState("in-process", why=self._why, restarts=self._restarts)
        alive = self._process is not None and self._process.is_alive()
        pid = self._process.pid if alive else None
        where = "worker" if alive else "idle"
        return WorkerState(where, self._started_by, self._restarts, pid=pid)

    def _connections(self) -> list[Connection] | None:
        """The running worker's pipes, a new worker's, or None: vectors are computed here."""
        with self._life:
            if self._why:
                return None
            if self._process is not None and self._process.is_alive() and self._conns:
                return self._conns
            if self._process is not None:  # it stopped between requests (killed, out of memory)
                self._restarts += 1
            self._stop()
            try:
                self._process, self._conns, self._started_by = processes.started(
                    serve, (), "quire-vectors", pipes=2
                )
            except Exception as exc:  # a frozen app or a system without processes for us
                self._why = _in_process(
                    f"cannot start the vector worker ({type(exc).__name__}: {exc})"
                )
                return None
            return self._conns

    def _lost(self, conns: list[Connection]) -> None:
        """The worker behind `conns` stopped: count it once (both pipes may notice)."""
        with self._life:
            if self._conns is conns:
                self._stop()
                self._restarts += 1

    def _stop(self) -> None:
        processes.stop(self._process, *(self._conns or []))
        self._process = self._conns = None

    def close(self) -> None:
        with self._in_pipe[BULK], self._life:
            self._stop()
            if self._lowered is not None:
                self._lowered.shutdown()
                self._lowered = None


class _PlannedInWorker:
    """`Planner` whose chunks are planned by the worker (here where it cannot run: only then
    is the model's tokenizer loaded in this process)."""

    def __init__(self, worker: VectorWorker, embedder: Embedder) -> None:
        self.worker, self.embedder = worker, embedder

    @cached_property
    def here(self) -> PartPlanner:
        return PartPlanner(self.embedder.token_offsets, self.embedder.max_tokens)

    def plan(self, chunks: list[PlanRow]) -> list[list[tuple[Part, str]]]:
        request = ("plan", str(self.embedder.path), chunks)
        planned: list[list[tuple[Part, str]]] = self.worker._ask(
            BULK, request, lambda: self.here.plan(chunks)
        )
        return planned


def serve(bulk: Connection, queries: Connection) -> None:
    """The worker: answer queries on their own thread at normal priority, and plan and encode
    passages on this one at low priority, each model loaded once; every answer is ("ok", value)
    or ("failed", why)."""
    threading.Thread(target=_serve_queries, args=(queries,), daemon=True).start()
    lower_this_process()  # on Linux this thread (and those it starts) only: niceness is per thread
    models: dict[str, Embedder] = {}
    planners: dict[str, PartPlanner] = {}
    while True:
        try:
            kind, path, *rest = bulk.recv()
        except (EOFError, OSError):
            return
        try:
            if path not in models:
                models[path] = Embedder(Path(path))
            model = models[path]
            if kind == "plan":
                if path not in planners:
                    planners[path] = PartPlanner(model.token_offsets, model.max_tokens)
                answer: tuple[str, Any] = ("ok", planners[path].plan(rest[0]))
            else:
                model.batch_size, texts = rest
                answer = ("ok", model.encode(texts))
        except Exception as exc:  # the request fails, the worker serves the next one
            answer = ("failed", _failure(exc))
        bulk.send(answer)


def _serve_queries(conn: Connection) -> None:
    keep_this_thread_at_normal_priority()
    models: dict[str, Embedder] = {}
    while True:
        try:
            path, texts = conn.recv()
        except (EOFError, OSError):
            return
        try:
            if path not in models:
                models[path] = Embedder(Path(path))
            answer: tuple[str, Any] = ("ok", models[path].encode_here(texts))
        except Exception as exc:
            answer = ("failed", _failure(exc))
        conn.send(answer)


def _failure(exc: Exception) -> str:
    if isinstance(exc, EmbedderError):
        return str(exc)
    return f"cannot compute vectors: {type(exc).__name__}: {exc}"


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
