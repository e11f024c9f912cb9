"""The parts of the app that are replaced at run time (the index file, its searcher, the
embedder, the chat model) held as one immutable `IndexHandle`, and the `HandleSlot` that hands
it out and replaces it whole.

Every read or answer runs inside `slot.use()`: it gets the current handle and is counted while
it runs. `swap` (a new index file) first cancels the running answers, waits until nothing runs
inside the old handle, then puts the new one in; what starts meanwhile waits for the new one.
`replace` (a new embedder, a loaded model: the same file) puts a new handle in at once."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop_app.core.cancel import CancelToken
from desktop_app.core.retrieval.embedder import (
    Embedder,
    EmbedderError,
    ModelHost,
    TextEmbedder,
    meaning_model,
    model_path_for,
)
from desktop_app.core.retrieval.search import Searcher
from desktop_app.core.store.db import Database
from desktop_app.settings import Settings

if TYPE_CHECKING:
    from desktop_app.core.answer.chat_worker import ChatWorker
    from desktop_app.core.answer.llm import LocalModel


@dataclass(frozen=True)
class IndexHandle:
    database: Database
    searcher: Searcher  # keyword-only (no embedder) when `embedder_problem` says why
    embedder: TextEmbedder | None
    embedder_problem: str | None = None
    chat_model: LocalModel | ChatWorker | None = None  # loaded on first use


# How long a swap waits for cancelled answers to end: one whose events nobody reads any more
# (its caller gave up) would otherwise hold the swap forever; it ends when next read.
ANSWER_GRACE = 10.0


class HandleSlot:
    def __init__(self, handle: IndexHandle) -> None:
        self._handle = handle
        self._changed = threading.Condition()
        self._users = 0
        self._swapping = False
        self._cancels: list[CancelToken] = []
        self._depth = threading.local()  # uses the calling thread is inside (nested ones)

    @property
    def current(self) -> IndexHandle:
        """The handle now, for a look that reads no file (use `use()` for reads)."""
        return self._handle

    @property
    def users(self) -> int:
        """Reads and answers running inside a handle now."""
        with self._changed:
            return self._users

    @contextmanager
    def use(self, cancel: CancelToken | None = None) -> Iterator[IndexHandle]:
        """The current handle for the `with` block; `cancel` is cancelled by a swap. A use
        inside another one of the same thread never waits (it would wait for itself)."""
        nested = getattr(self._depth, "count", 0) > 0
        with self._changed:
            while self._swapping and not nested:
                self._changed.wait()
            handle = self._handle
            self._users += 1
            if cancel is not None:
                self._cancels.append(cancel)
        self._depth.count = getattr(self._depth, "count", 0) + 1
        try:
            yield handle
        finally:
            self._depth.count = max(0, getattr(self._depth, "count", 1) - 1)
            with self._changed:
                self._users -= 1
                if cancel is not None:
                    self._cancels.remove(cancel)
                self._changed.notify_all()

    def _wait_for_users(self) -> None:
        """Until nothing runs inside the handle: reads always end; cancelled answers are given
        ANSWER_GRACE (called under the lock)."""
        deadline = time.monotonic() + ANSWER_GRACE
        while self._users:
            only_answers = self._users == len(self._cancels)
            left = deadline - time.monotonic()
            if only_answers and left <= 0:
                return
            self._changed.wait(left if only_answers else None)

    def replace(self, change: Callable[[IndexHandle], IndexHandle]) -> IndexHandle:
        """Put `change(current)` in at once (runs under the lock: keep it quick)."""
        with self._changed:
            self._handle = change(self._handle)
            return self._handle

    def swap(self, make: Callable[[IndexHandle], IndexHandle]) -> IndexHandle:
        """Cancel what runs, wait until nothing runs inside the current handle, then put in
        `make(old)` (it may close the old one's database: nobody uses it any more)."""
        if getattr(self._depth, "count", 0):
            raise RuntimeError("a swap from inside a use would wait for itself")
        with self._changed:
            while self._swapping:
                self._changed.wait()
            self._swapping = True
            for cancel in self._cancels:
                cancel.cancel()
            self._wait_for_users()
            old = self._handle
        new: IndexHandle | None = None
        try:
            new = make(old)
        finally:
            with self._changed:
                if new is not None:
                    # a model loaded meanwhile (`replace`) is kept
                    self._handle = dataclasses.replace(new, chat_model=self._handle.chat_model)
                self._swapping = False
                self._changed.notify_all()
        return self._handle


def make_embedder(
    settings: Settings, given: TextEmbedder | None, host: ModelHost | None = None
) -> tuple[TextEmbedder | None, str | None]:
    """The embedder (`given`, else the settings' model, its queries encoded by `host` if one
    is given) or why there is none."""
    if given is not None:
        return given, None
    try:
        model = settings.embedding_model
        return Embedder(model_path_for(model), host=host), None
    except EmbedderError as exc:
        return None, str(exc)


def handle_on(
    database: Database,
    embedder: TextEmbedder | None,
    problem: str | None,
    companion: bool = True,
) -> IndexHandle:
    """Without a usable embedding model, search is keyword-only (embedder_problem says why);
    `companion`: the bundled multilingual model reads what an English-only one cannot."""
    beside = meaning_model(embedder) if embedder and companion else None
    return IndexHandle(database, Searcher(database, embedder, beside), embedder, problem)
