"""The bridge from worker threads to the GUI thread under load (issue: a vault of thousands of
notes sent one queued signal per note and aborted the interpreter)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

pytest.importorskip("pytestqt")

from PySide6.QtCore import QObject, QThreadPool

from desktop_app.core.api import Quire
from desktop_app.core.cancel import CancelToken
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.workers import GuiQueue, on_gui_thread, run_in_background

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("fake_embedder")]
EVENTS = 50_000


def test_fifty_thousand_progress_events_arrive_in_order(qtbot: QtBot) -> None:
    seen: list[int] = []
    result: list[str] = []

    def work(progress: Callable[[int], None], cancel: CancelToken) -> str:
        for i in range(EVENTS):
            progress(i)
        return "finished"

    run_in_background(work, on_done=result.append, on_progress=seen.append)
    qtbot.waitUntil(lambda: bool(result), timeout=120_000)
    assert result == ["finished"]
    assert seen == list(range(EVENTS))  # every event, in order, all before "done"


def test_four_threads_fifty_thousand_events_through_one_queue(qtbot: QtBot) -> None:
    owner = QObject()
    seen: list[tuple[int, int]] = []
    batches: list[int] = []
    threads_seen: set[threading.Thread] = set()
    queue = GuiQueue(seen.append, owner)
    original = queue._drain

    def counting_drain() -> None:
        threads_seen.add(threading.current_thread())
        batches.append(len(queue._items))
        original()

    queue._waker._drain = counting_drain
    per_thread = EVENTS // 4

    def produce(thread: int) -> None:
        for i in range(per_thread):
            queue.put((thread, i))

    threads = [threading.Thread(target=produce, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    qtbot.waitUntil(lambda: len(seen) == EVENTS, timeout=120_000)
    for thread in range(4):  # each producer's values stay in its own order
        assert [i for t, i in seen if t == thread] == list(range(per_thread))
    assert sum(batches) == EVENTS
    assert threads_seen == {threading.main_thread()}  # delivered on the GUI thread only
    assert len(batches) < EVENTS  # delivered in batches, not one queued signal per value


def test_latest_only_delivers_the_newest_value(qtbot: QtBot) -> None:
    owner = QObject()
    seen: list[int] = []
    put = on_gui_thread(seen.append, owner, latest_only=True)
    producer = threading.Thread(target=lambda: [put(i) for i in range(EVENTS)])
    producer.start()
    producer.join()
    qtbot.waitUntil(lambda: bool(seen) and seen[-1] == EVENTS - 1, timeout=60_000)
    assert len(seen) < EVENTS
    assert seen == sorted(seen)


def test_calls_after_the_owner_is_gone_are_dropped(qtbot: QtBot) -> None:
    owner = QObject()
    seen: list[int] = []
    put = on_gui_thread(seen.append, owner)
    owner.deleteLater()
    qtbot.waitUntil(lambda: put.__self__._closed, timeout=5_000)  # type: ignore[attr-defined]
    put(1)  # from a worker this would have raised on a deleted object
    qtbot.wait(50)
    assert seen == []


@pytest.mark.slow
def test_window_stays_up_on_twenty_thousand_notes(
    qtbot: QtBot, tmp_path: Path, quire_home: Path
) -> None:
    vault = tmp_path / "vault"
    for i in range(20_000):
        folder = vault / f"d{i // 500:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note{i:05d}.md").write_text(
            f"# Note {i}\n\nA short note about topic{i % 97} with the marker zq{i:05d}x.\n",
            "utf-8",
        )
    quire = Quire.open(quire_home)
    win = MainWindow(quire, [vault])
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(
        lambda: win.last_status is not None and win.last_status.counts.notes == 20_000,
        timeout=600_000,
    )
    assert win.isVisible()
    hits = quire.search("zq19999x", top_k=5)
    assert any(h.path.endswith("note19999.md") for h in hits)
    win.close()
    QThreadPool.globalInstance().waitForDone(30_000)
    quire.close()


def test_the_pinned_qt_binding_keeps_its_references() -> None:
    from desktop_app.ui.app import binding_defect

    assert binding_defect() is None


def test_a_result_for_a_deleted_widget_is_dropped(qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QListWidget

    class Receiver(QListWidget):
        def take(self, value: object) -> None:
            self.addItem(str(value))  # raises on a deleted widget

    receiver = Receiver()
    release = threading.Event()

    def slow(progress: Callable[[int], None], cancel: CancelToken) -> str:
        release.wait(10)
        return "late"

    run_in_background(slow, on_done=receiver.take)
    receiver.deleteLater()
    qtbot.waitUntil(lambda: not __import__("shiboken6").isValid(receiver), timeout=5_000)
    release.set()
    QThreadPool.globalInstance().waitForDone(10_000)
    qtbot.wait(100)  # the late "done" is drained here; an exception would fail the test
