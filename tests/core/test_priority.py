"""Background work runs below the window's priority: the live index's threads and the extractor
worker process (real threads, a real worker process; niceness read back from the kernel)."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from desktop_app.core.api import Quire
from desktop_app.core.ingest.extractor import Extractor
from desktop_app.core.ingest.priority import BACKGROUND_NICE, lower_this_thread, niceness
from tests.support.documents import write_pdf
from tests.support.live_index import live_index

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
def test_the_live_index_threads_run_below_the_window(tmp_path: Path, quire_home: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nA note about herons.\n", "utf-8")
    window_thread = niceness(threading.get_native_id())
    quire = Quire.open(quire_home)
    watcher = live_index(quire, [folder])
    watcher.start(reconcile=False)
    try:
        workers = {
            t.name: t.native_id for t in threading.enumerate() if t.name.startswith("quire-")
        }
        assert {"quire-index", "quire-embed"} <= set(workers)
        for name in ("quire-index", "quire-embed"):
            assert niceness(workers[name] or 0) == min(19, window_thread + BACKGROUND_NICE), name
        assert niceness(threading.get_native_id()) == window_thread
    finally:
        watcher.stop()
        quire.close()


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="POSIX niceness")
def test_the_extractor_worker_runs_below_normal(tmp_path: Path) -> None:
    with Extractor() as extractor:
        assert (
            "Sourdough"
            in extractor.load(
                write_pdf(tmp_path / "a.pdf", ["Sourdough starter, fed daily."]), 10**8
            ).text
        )
        process = extractor._process
        assert process is not None and process.pid is not None
        assert niceness(process.pid) >= min(19, niceness() + BACKGROUND_NICE)
