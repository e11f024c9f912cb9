"""Passage vectors computed in the window's process run below its priority, on a thread of their
own; the live index's threads keep the window's, so none is descheduled holding the interpreter
lock the window waits for (real threads; niceness read back from the kernel)."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from desktop_app.core import processes
from desktop_app.core.api import Quire
from desktop_app.core.ingest.priority import BACKGROUND_NICE, lower_this_thread
from desktop_app.core.ingest.vector_worker import VectorWorker
from desktop_app.core.retrieval.embedder import Embedder
from tests.support.live_index import live_index
from tests.support.wait import wait_for


def niceness(thread_native_id: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, thread_native_id)  # Linux: per thread


linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="per-thread niceness is Linux's"
)


@linux_only
def test_a_lowered_thread_leaves_the_rest_of_the_process_alone() -> None:
    before = niceness(threading.get_native_id())
    seen: list[int] = []

    def work() -> None:
        lower_this_thread()
        seen.append(niceness(threading.get_native_id()))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == [min(19, before + BACKGROUND_NICE)]
    assert niceness(threading.get_native_id()) == before


@linux_only
@pytest.mark.usefixtures("fake_embedder")
def test_the_live_index_threads_keep_the_window_s_priority(
    tmp_path: Path, quire_home: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    window_thread = niceness(threading.get_native_id())
    quire = Quire.open(quire_home)
    watcher = live_index(quire, [folder])
    watcher.start(reconcile=False)
    try:
        (folder / "a.md").write_text("# A\n\nA note about herons.\n", "utf-8")
        workers = {t.name: t.native_id or 0 for t in threading.enumerate()}
        assert workers["quire-index"] and workers["quire-embed"]
        wait_for(
            lambda: quire.status(False).counts.chunks > 0 and not watcher.busy, "note embedded"
        )
        assert quire.status(False).counts.pending_embedding == 0  # the embedding thread ran
        assert niceness(workers["quire-embed"]) == window_thread
        assert niceness(workers["quire-index"]) == window_thread
        assert niceness(threading.get_native_id()) == window_thread
    finally:
        watcher.stop()
        quire.close()


@linux_only
@pytest.mark.slow  # the real model, in this process
def test_passages_computed_here_run_below_the_window_and_queries_at_its_priority(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def cannot(*args: object, **options: object) -> object:
        raise OSError("no processes here")

    seen: list[tuple[str, int]] = []
    encode, encode_here = Embedder.encode, Embedder.encode_here

    def recorded(name: str, method: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
        def call(self: Embedder, texts: list[str]) -> np.ndarray:
            seen.append((name, niceness(threading.get_native_id())))
            return method(self, texts)

        return call

    monkeypatch.setattr(processes, "started", cannot)
    monkeypatch.setattr(Embedder, "encode", recorded("passages", encode))
    monkeypatch.setattr(Embedder, "encode_here", recorded("query", encode_here))
    here = niceness(threading.get_native_id())
    worker = VectorWorker()
    try:
        embedder = Embedder()
        passages = worker.encode(embedder, ["The heron waits in the reeds."])
        query = worker.encode_now(embedder.path, ["where does the heron wait?"])
    finally:
        worker.close()
    assert worker.state.where == "in-process"
    assert passages.shape[0] == 1 and query.shape[0] == 1
    assert seen == [("passages", min(19, here + BACKGROUND_NICE)), ("query", here)]
    assert niceness(threading.get_native_id()) == here
