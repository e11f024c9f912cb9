"""The live index's embedding thread runs below the window's priority, its keyword thread at the
window's (real threads; niceness read back from the kernel)."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from desktop_app.core.api import Quire
from desktop_app.core.ingest.priority import BACKGROUND_NICE, lower_this_thread
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
def test_the_embedding_thread_runs_below_the_window(tmp_path: Path, quire_home: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nA note about herons.\n", "utf-8")
    window_thread = niceness(threading.get_native_id())
    quire = Quire.open(quire_home)
    watcher = live_index(quire, [folder])
    watcher.start(reconcile=False)
    try:
        workers = {t.name: t.native_id or 0 for t in threading.enumerate()}
        assert workers["quire-index"] and workers["quire-embed"]
        lowered = min(19, window_thread + BACKGROUND_NICE)  # the thread lowers itself as it starts
        wait_for(lambda: niceness(workers["quire-embed"]) == lowered, "embedding thread lowered")
        assert niceness(workers["quire-index"]) == window_thread  # it has budgets to meet
        assert niceness(threading.get_native_id()) == window_thread
    finally:
        watcher.stop()
        quire.close()
