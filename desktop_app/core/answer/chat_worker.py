"""The chat model in a process of its own, for the window: llama.cpp, the model's weights and
its context live there, so the window's process holds none of their memory, and a model file
that brings llama.cpp down ends that process, not the window.

`ChatWorker` is a `ChatModel` (what answering needs): the worker, started like the other
workers (`processes.started`), loads the model once and answers `render`, `tokenize` and
`stream` requests one at a time; a streamed answer comes back a piece at a time. A cancel is an
event both processes see, so the worker stops within one token as in-process. A worker that
stops is started again (and the model loaded again) for the next request.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Generator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from desktop_app.core import processes
from desktop_app.core.answer.gguf import ModelFileError, inspect_model
from desktop_app.core.answer.llm import Generation, LocalModel, choose_context
from desktop_app.core.answer.profile import profile_of
from desktop_app.core.cancel import Cancelled, CancelToken

WAIT_SECONDS = 0.05  # how often a streamed answer looks at its cancel token


class ChatWorker:
    """A chat model loaded in the worker process (`LocalModel` there)."""

    def __init__(
        self, path: Path, n_ctx: int | None = None, languages: list[str] | None = None
    ) -> None:
        self.path = path.resolve()
        self.info = inspect_model(self.path)
        self.requested_ctx = n_ctx
        self.n_ctx = choose_context(self.info, n_ctx)
        self.profile = profile_of(self.info, self.n_ctx, languages)
        self.notices: list[str] = []
        self.lock = threading.Lock()  # one request in the pipe at a time
        self._process: Any = None
        self._conn: Connection | None = None
        self._stop: Any = None  # the cancel event shared with the worker
        self.started_by = ""  # "forkserver" or "spawn"

    @property
    def pid(self) -> int | None:
        """The running worker's process id, if one runs."""
        alive = self._process is not None and self._process.is_alive()
        return int(self._process.pid) if alive else None

    def load(self) -> None:
        """Start the worker and load the model there; ModelFileError says why it cannot."""
        with self.lock:
            self._connection()

    def render(self, messages: list[dict[str, str]]) -> str:
        return str(self._ask(("render", messages)))

    def tokenize(self, text: str) -> list[int]:
        return list(self._ask(("tokenize", text)))

    def stream(
        self,
        prompt: str,
        max_tokens: int,
        cancel: CancelToken,
        temperature: float = 0.2,
        stats: Generation | None = None,
        grammar: str | None = None,
    ) -> Generator[str, None, None]:
        """Yield the answer's pieces as the worker sends them (see `LocalModel.stream`)."""
        stats = stats or Generation()
        with self.lock:
            conn = self._connection()
            self._stop.clear()
            if cancel.cancelled:  # before the worker reads the prompt, as in-process
                self._stop.set()
            conn.send(("stream", prompt, max_tokens, temperature, grammar))
            finished = False
            try:
                while True:
                    kind, value = self._next(conn, cancel)
                    if kind == "piece":
                        yield value
                        continue
                    finished = True  # "done", "cancelled" or "failed" ends the answer
                    _raise_if_failed(kind, value)
                    _copy(value, stats)
                    if kind == "cancelled":
                        raise Cancelled
                    return
            finally:
                if not finished:  # the consumer stopped early: stop the worker, drain its answer
                    self._drain(conn)

    def _drain(self, conn: Connection) -> None:
        self._stop.set()
        try:
            while conn.recv()[0] == "piece":
                pass
        except (EOFError, OSError):
            self._end()

    def _next(self, conn: Connection, cancel: CancelToken) -> tuple[str, Any]:
        while True:
            if cancel.cancelled:
                self._stop.set()
            if conn.poll(WAIT_SECONDS):
                break
            if not self._process.is_alive():
                self._lost("it stopped while answering")
        try:
            kind, value = conn.recv()
        except (EOFError, OSError):
            self._lost("it stopped while answering")
        return kind, value

    def _ask(self, request: tuple[Any, ...]) -> Any:
        with self.lock:
            conn = self._connection()
            try:
                conn.send(request)
                kind, value = conn.recv()
            except (EOFError, OSError):
                self._lost("it stopped")
            _raise_if_failed(kind, value)
            return value

    def _connection(self) -> Connection:
        if self._process is not None and self._process.is_alive() and self._conn is not None:
            return self._conn
        self._end()
        ctx = processes.context()
        self._stop = ctx.Event()
        try:
            self._process, (self._conn,), self.started_by = processes.started(
                serve, (self._stop,), "quire-chat"
            )
            self._conn.send(("load", str(self.path), self.requested_ctx))
            kind, value = self._conn.recv()
        except (EOFError, OSError) as exc:
            self._end()
            raise ModelFileError(
                f"the chat model's process stopped loading {self.path.name}"
            ) from exc
        except Exception as exc:
            self._end()
            raise ModelFileError(f"cannot start the chat model's process: {exc}") from exc
        if kind == "failed":
            self._end()
            raise ModelFileError(value[1])
        self.n_ctx, notices = value
        self.notices.extend(notices)
        return self._conn

    def _lost(self, what: str) -> Any:
        self._end()
        raise ModelFileError(f"the chat model's process ({self.path.name}) {what}")

    def _end(self) -> None:
        processes.stop(self._process, self._conn)
        self._process = self._conn = None

    def close(self) -> None:
        with self.lock:
            self._end()


def _raise_if_failed(kind: str, value: Any) -> None:
    """A failure in the worker raised here as it was there: a prompt too long for the context
    (ValueError, which answering handles), else the model's own problem."""
    if kind == "failed":
        error, why = value
        raise ValueError(why) if error == "ValueError" else ModelFileError(why)


def _copy(fields: dict[str, Any], stats: Generation) -> None:
    for name, value in fields.items():
        setattr(stats, name, value)


def serve(conn: Connection, stop: Any) -> None:
    """The worker: load the model, then answer each request with ("ok", value), a stream of
    ("piece", text) ended by ("done" | "cancelled", its figures), or ("failed", why)."""
    model: LocalModel | None = None
    while True:
        try:
            kind, *args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            if kind == "load":
                path, n_ctx = args
                model = LocalModel(Path(path), n_ctx=n_ctx)
                model.load()
                conn.send(("ok", (model.n_ctx, model.notices)))
            elif model is None:
                conn.send(("failed", ("ModelFileError", "no chat model is loaded")))
            elif kind == "stream":
                _stream(conn, model, stop, *args)
            else:
                method = model.render if kind == "render" else model.tokenize
                conn.send(("ok", method(*args)))
        except (ModelFileError, ValueError, RuntimeError, MemoryError) as exc:
            conn.send(("failed", (type(exc).__name__, str(exc))))


def _stream(
    conn: Connection,
    model: LocalModel,
    stop: Any,
    prompt: str,
    max_tokens: int,
    temperature: float,
    grammar: str | None,
) -> None:
    stats = Generation()
    cancel = CancelToken(stop)
    try:
        for piece in model.stream(prompt, max_tokens, cancel, temperature, stats, grammar):
            conn.send(("piece", piece))
    except Cancelled:
        conn.send(("cancelled", dataclasses.asdict(stats)))
        return
    conn.send(("done", dataclasses.asdict(stats)))
