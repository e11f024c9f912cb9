"""The swappable parts in one handle: a swap waits for what runs inside the old handle and
cancels running answers; what starts meanwhile waits for the new one; the last question asked
wins when it is asked, not when its events are first read."""

from __future__ import annotations

import dataclasses
import shutil
import threading
import time
from collections.abc import Generator
from pathlib import Path

import pytest

from desktop_app.core.api import Quire
from desktop_app.core.as_json import as_json
from desktop_app.core.cancel import CancelToken
from desktop_app.core.handle import HandleSlot, IndexHandle, handle_on
from desktop_app.core.store.db import Database
from desktop_app.paths import sample_notes
from tests.support.fakes import FakeEmbedder, QueuedModel

pytestmark = pytest.mark.usefixtures("fake_embedder")


@pytest.fixture
def slot(tmp_path: Path) -> HandleSlot:
    return HandleSlot(handle_on(Database(tmp_path / "a.sqlite"), FakeEmbedder(), None))


def _fresh(tmp_path: Path, name: str) -> IndexHandle:
    return handle_on(Database(tmp_path / name), FakeEmbedder(), None)


def test_a_swap_cancels_and_waits_for_what_runs_and_later_uses_get_the_new_handle(
    slot: HandleSlot, tmp_path: Path
) -> None:
    old = slot.current
    running, release = threading.Event(), threading.Event()
    cancel = CancelToken()
    seen: list[IndexHandle] = []

    def answer() -> None:
        with slot.use(cancel):
            running.set()
            release.wait(5)

    def later() -> None:
        with slot.use() as handle:
            seen.append(handle)

    first = threading.Thread(target=answer)
    first.start()
    running.wait(5)
    swapped: list[IndexHandle] = []

    def make(previous: IndexHandle) -> IndexHandle:
        assert previous is old and slot.users == 0  # nothing inside the old one any more
        previous.database.close()
        time.sleep(0.1)  # a use asked for meanwhile waits
        return _fresh(tmp_path, "b.sqlite")

    swapper = threading.Thread(target=lambda: swapped.append(slot.swap(make)))
    swapper.start()
    deadline = time.monotonic() + 5
    while not cancel.cancelled and time.monotonic() < deadline:
        time.sleep(0.005)
    assert cancel.cancelled  # the running answer was told to stop
    waiting = threading.Thread(target=later)
    waiting.start()
    time.sleep(0.05)
    assert swapper.is_alive() and not seen  # the swap waits for the answer, the use for both
    release.set()
    for thread in (first, swapper, waiting):
        thread.join(5)
    assert seen == swapped == [slot.current] and slot.current is not old
    slot.current.database.close()


def test_a_use_inside_a_use_never_waits_and_a_swap_from_inside_one_is_refused(
    slot: HandleSlot,
) -> None:
    with slot.use() as outer:
        with slot.use() as inner:
            assert inner is outer and slot.users == 2
        with pytest.raises(RuntimeError):
            slot.swap(lambda handle: handle)
    assert slot.users == 0
    slot.current.database.close()


def test_replace_keeps_the_database_and_a_swap_keeps_a_loaded_model(
    slot: HandleSlot, tmp_path: Path
) -> None:
    model = object()
    slot.replace(lambda h: dataclasses.replace(h, chat_model=model))  # type: ignore[arg-type]

    def make(previous: IndexHandle) -> IndexHandle:
        previous.database.close()
        return _fresh(tmp_path, "b.sqlite")

    assert slot.swap(make).chat_model is model
    slot.current.database.close()


def test_the_last_question_asked_wins_before_its_events_are_read(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    shutil.copytree(sample_notes(), notes)
    model = QueuedModel(" ".join(f"step{i}" for i in range(40)), "About an hour.")
    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder(), chat_model=model)
    try:
        quire.index([notes])
        first = quire.answers.ask("Describe the sourdough starter, dough and baking in detail.")
        second = quire.answers.ask("How long does the autolyse rest last?")  # asked, not yet read
        done = [as_json(e) for e in first][-1]
        assert done["type"] == "done" and done["stopped"] == "cancelled"
        assert [as_json(e) for e in second][-1]["stopped"] == "eos"
    finally:
        quire.close()


def test_a_swap_goes_on_when_an_abandoned_answer_never_ends(
    slot: HandleSlot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer whose events nobody reads any more (its caller gave up mid-way) holds its use
    until read again: the swap cancels it, waits ANSWER_GRACE, then goes on."""
    monkeypatch.setattr("desktop_app.core.handle.ANSWER_GRACE", 0.3)
    cancel = CancelToken()

    def answer() -> Generator[str]:
        with slot.use(cancel):
            yield "first event"
            yield "never read"

    abandoned = answer()
    first: list[object] = []
    reader = threading.Thread(target=lambda: first.append(next(abandoned)))  # a window job
    reader.start()
    reader.join(5)
    assert first == ["first event"]  # suspended inside its use; its reader gave up
    started = time.monotonic()
    new = slot.swap(lambda old: _fresh(tmp_path, "b.sqlite"))
    assert cancel.cancelled and 0.3 <= time.monotonic() - started < 5
    assert slot.current is new
    closer = threading.Thread(target=abandoned.close)  # read again (or collected)…
    closer.start()
    closer.join(5)  # …it leaves its use
    assert slot.users == 0
