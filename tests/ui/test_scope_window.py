"""Scopes in the window (real widgets, offscreen, the queued fake model): the Search tab follows
the typing and shows the limits read from the words, a time phrase in a question becomes a chip
of the conversation, a removed chip stops limiting, a limit that matches nothing says so, and a
reopened conversation keeps its limits."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt

from desktop_app.core.api import Scope
from desktop_app.core.conversations import ConversationStore
from desktop_app.ui.chat import NOTHING_IN_SCOPE
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.search_tab import SearchTab
from tests.support.clicks import INDEXED, indexed_window
from tests.support.fakes import QueuedModel

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("fake_embedder")]
ENTRIES = {
    "daily/2026-11-24.md": "Cooked a lentil soup with smoked paprika. #cooking",
    "daily/2026-11-03.md": "Cooked a pumpkin risotto for the neighbours. #cooking",
    "daily/2026-03-14.md": "Cooked goulash while it snowed. #cooking",
    "work/heating.md": "---\ntags: [house]\ndate: 2026-11-25\n---\nThe heating pump was replaced.",
}


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    folder = tmp_path / "journal-source"
    for rel, text in ENTRIES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text + "\n", "utf-8")
    for path in folder.rglob("*.md"):
        os.utime(path, (1_590_969_600, 1_590_969_600))  # 2020: only the notes' own dates count
    return folder


@pytest.fixture
def window(
    qtbot: QtBot, tmp_path: Path, journal: Path, quire_home: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MainWindow]:
    monkeypatch.setenv("QUIRE_TODAY", "2026-12-02")
    yield from indexed_window(qtbot, tmp_path / "notes", journal, quire_home)


def _paths(tab: SearchTab) -> list[str]:
    return [tab.results.item(i).data(0x0100).path for i in range(tab.results.count())]


def test_search_follows_the_typing_and_its_limits_can_be_picked_and_removed(
    qtbot: QtBot, window: MainWindow
) -> None:
    tab = window.search_tab
    qtbot.keyClicks(tab.query, "cooked")  # no Enter: results follow the typing
    qtbot.waitUntil(lambda: len(_paths(tab)) == 3, timeout=10_000)
    qtbot.keyClicks(tab.query, " last week")
    qtbot.waitUntil(lambda: _paths(tab) == ["daily/2026-11-24.md"], timeout=10_000)
    assert "From your words: last week (23 Nov 2026 – 29 Nov 2026)" in tab.scope_bar.note.text()
    tab.query.setText("cooked")
    qtbot.waitUntil(lambda: len(_paths(tab)) == 3, timeout=10_000)
    tab.scope_bar._add(Scope(tags=("house",)))  # as the picker's Tag ▸ #house does
    qtbot.waitUntil(lambda: _paths(tab) == ["work/heating.md"], timeout=10_000)  # all within
    assert len(tab.scope_bar.chips) == 1
    qtbot.mouseClick(tab.scope_bar.chips[0], Qt.MouseButton.LeftButton)  # remove the chip
    qtbot.waitUntil(lambda: len(_paths(tab)) == 3, timeout=10_000)
    assert tab.scope_bar.scope.empty and tab.scope_bar.chips == []
    tab.query.setText("folder:garden cooked")
    qtbot.waitUntil(lambda: "nothing matches" in tab.scope_bar.note.text(), timeout=10_000)
    assert _paths(tab) == []


def test_a_conversation_keeps_its_limits_and_says_when_nothing_is_within_them(
    qtbot: QtBot, window: MainWindow, queued_model: QueuedModel
) -> None:
    chat = window.chat
    queued_model.answers.append("You cooked a lentil soup [1].")
    with qtbot.waitSignal(chat.finished, timeout=INDEXED):
        chat.ask("What did I cook last week?")
    assert [c.text() for c in chat.scope_bar.chips] == ["last week (23 Nov 2026 – 29 Nov 2026)  ✕"]
    assert {s.path for s in chat.turns[0].sources} == {"daily/2026-11-24.md"}
    queued_model.answers.append("The pump was replaced [1].")
    with qtbot.waitSignal(chat.finished, timeout=INDEXED):
        chat.ask("tag:house what happened to the heating?")  # a follow-up adds its own limit
    assert len(chat.scope_bar.chips) == 2
    assert {s.path for s in chat.turns[1].sources} == {"work/heating.md"}
    saved_id = chat.conversation.id
    last_week = next(c for c in chat.scope_bar.chips if c.text().startswith("last week"))
    qtbot.mouseClick(last_week, Qt.MouseButton.LeftButton)  # drop "last week"
    assert chat.scope_bar.scope == Scope(tags=("house",))
    queued_model.answers.append("Nothing.")
    with qtbot.waitSignal(chat.finished, timeout=INDEXED):
        chat.ask("folder:garden what did I plant?")
    assert NOTHING_IN_SCOPE in chat.view.toPlainText()
    assert chat.turns[2].sources == []  # never an answer from outside the limits
    chat.new_chat()
    assert chat.scope_bar.scope.empty
    saved = ConversationStore(window.quire.home / "conversations").load(saved_id)
    assert Scope.from_json(saved.scope).tags == ("house",)
    chat.open_conversation(saved)  # as a click in the conversations list does
    assert chat.scope_bar.scope.tags == ("house",) and chat.scope_bar.scope.folders == ("garden",)


def test_a_question_s_scope_words_are_read_off_the_gui_thread(
    qtbot: QtBot, window: MainWindow, queued_model: QueuedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading them looks at the index (which days have notes), which may wait for a reader."""
    chat, quire = window.chat, window.chat.quire
    threads: list[bool] = []
    real = quire.scoped

    def scoped(*args: object, **kwargs: object) -> object:
        threads.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(quire, "scoped", scoped)
    queued_model.answers.append("You cooked a lentil soup [1].")
    with qtbot.waitSignal(chat.finished, timeout=INDEXED):
        chat.ask("What did I cook last week?")
    assert threads and not any(threads)
    assert [c.text() for c in chat.scope_bar.chips] == ["last week (23 Nov 2026 – 29 Nov 2026)  ✕"]


def test_a_when_question_gets_dated_evidence_and_sources_show_day_and_tags(
    qtbot: QtBot, window: MainWindow, queued_model: QueuedModel
) -> None:
    chat = window.chat
    queued_model.answers.append("On 3 November [1].")
    with qtbot.waitSignal(chat.finished, timeout=INDEXED):
        chat.ask("When did I cook a pumpkin risotto for the neighbours?")
    turn = chat.turns[0]
    assert turn.evidence and turn.evidence[0].day == "2026-11-03"
    assert "On 3 Nov 2026 you wrote:" in chat.view.toPlainText()
    assert "3 Nov 2026 · daily/2026-11-03.md" in window.sources.toPlainText()
    assert "#cooking" in window.sources.toPlainText()
    queued_model.answers.append("The pump was replaced [1].")
    with qtbot.waitSignal(chat.finished, timeout=INDEXED):
        chat.ask("What happened to the heating pump?")  # not a "when" question: no day line
    assert "you wrote:" not in chat.view.toPlainText().split("heating pump?")[1]
