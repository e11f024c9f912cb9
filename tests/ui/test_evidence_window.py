"""Evidence first in the window (real facade, bundled models, offscreen): the quoted sentences
appear before any token, and their `[n]` selects exactly that sentence in the viewer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

pytest.importorskip("pytestqt")


from desktop_app.paths import sample_notes
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.viewer import _qt_offset
from tests.support.clicks import INDEXED, click_link, indexed_window, link_hrefs

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("fake_embedder")]


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, quire_home: Path) -> Iterator[MainWindow]:
    yield from indexed_window(qtbot, tmp_path / "notes", sample_notes(), quire_home)


@pytest.mark.slow  # the real chat model answers in the window
def test_evidence_before_tokens_and_its_link_selects_the_sentence(
    qtbot: QtBot, window: MainWindow
) -> None:
    chat = window.chat
    seen: list[tuple[int, str]] = []  # (evidence shown, answer shown) at every view update
    chat.view.textChanged.connect(
        lambda: seen.append(
            (len(chat._live.evidence), chat._live.answer) if chat._live else (0, "")
        )
    )
    statuses: list[str] = []
    chat.activity.connect(statuses.append)
    with qtbot.waitSignal(chat.finished, timeout=INDEXED) as done:
        chat.ask("How much salt goes into the sourdough bread?")
    assert done.args[0].answerable
    first_answer = next(i for i, (_, answer) in enumerate(seen) if answer)
    assert any(count for count, answer in seen[:first_answer] if not answer)  # evidence first
    assert "The model is reading the passages…" in statuses
    evidence = [e.to_json() for e in chat.turns[0].evidence]
    assert evidence and "10 g salt" in evidence[0]["text"]
    turn = chat.turns[0]
    # the first unit is shown once: as the answer when the answer is that unit, else as evidence
    link = "quire:quote/0" if turn.quote == turn.evidence[0] else "quire:evidence/0/0"
    assert link in link_hrefs(chat.view)
    click_link(qtbot, chat.view, link)
    cursor = window.viewer.text.textCursor()
    text = window.viewer.text.toPlainText()
    assert window.viewer.note == Path(evidence[0]["folder"]) / evidence[0]["path"]
    assert cursor.selectionStart() == _qt_offset(text, evidence[0]["start"])
    assert cursor.selectionEnd() == _qt_offset(text, evidence[0]["end"])
    assert cursor.selectedText() == evidence[0]["text"]  # exactly that sentence
    chat.new_chat()
    assert window.viewer.note is None and not window.viewer.text.toPlainText()


def test_empty_question_is_refused_in_the_window(qtbot: QtBot, window: MainWindow) -> None:
    window.chat.ask("   ")
    assert not window.chat.answering
    assert "Type a question first" in window.chat.view.toPlainText()


def test_open_note_without_a_launcher_says_so(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop_app.ui import viewer as viewer_module

    note = tmp_path / "note.md"
    note.write_text("# A note\n\nSome text.\n", "utf-8")
    viewer = viewer_module.PassageViewer()
    qtbot.addWidget(viewer)
    assert viewer.open_note(tmp_path, "note.md")
    monkeypatch.setattr(viewer_module.QDesktopServices, "openUrl", lambda url: False)
    assert not viewer.open_externally()
    assert "Show in folder" in viewer.heading.text() and ".md" in viewer.heading.text()
    viewer.clear()
    assert viewer.note is None and not viewer.text.toPlainText()
    assert not viewer.open_button.isEnabled()
