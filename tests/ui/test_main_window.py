"""The window with real widgets, the real service and the bundled embedding model (offscreen)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from desktop_app.core.service import Quire
from desktop_app.ui.app import sample_notes
from desktop_app.ui.main_window import MainWindow, _qt_offset

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot, tmp_path: Path, quire_home: Path):  # type: ignore[no-untyped-def]
    notes = tmp_path / "notes"
    shutil.copytree(sample_notes(), notes)
    service = Quire(quire_home)
    win = MainWindow(service, [notes])
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.heading.text().startswith("Ready"), timeout=120_000)
    yield win
    win.close()
    from PySide6.QtCore import QThreadPool

    QThreadPool.globalInstance().waitForDone(10_000)
    service.close()


def test_search_and_open_the_exact_passage(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClicks(window.query, "how hot is the oven for sourdough")
    qtbot.keyClick(window.query, "\r")
    qtbot.waitUntil(lambda: window.results.count() > 0, timeout=30_000)
    result = window.results.item(0).data(0x0100)  # Qt.UserRole
    assert result.path == "recipes/bread.md"
    cursor = window.viewer.textCursor()
    text = window.viewer.toPlainText()
    assert cursor.selectionStart() == _qt_offset(text, result.start)
    assert cursor.selectedText().replace("\u2029", "\n") == result.text


def test_astral_characters_shift_qt_offsets() -> None:
    assert _qt_offset("a😀b", 2) == 3
    assert _qt_offset("abc", 2) == 2


def test_ask_streams_and_citation_opens_the_exact_passage(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(window.chat.finished, timeout=120_000) as done:
        window.chat.ask("At what temperature is the sourdough bread baked with the lid on?")
    assert done.args[0]["answerable"]
    assert window.sources.count() > 0
    assert "You:" in window.chat.view.toPlainText()
    first = window._sources[0]
    window.chat.source_clicked.emit(first["n"])  # what clicking [1] in the answer does
    cursor = window.viewer.textCursor()
    text = window.viewer.toPlainText()
    assert first["path"] == "recipes/bread.md"
    assert cursor.selectionStart() == _qt_offset(text, first["start"])
    assert cursor.selectionEnd() == _qt_offset(text, first["end"])


def test_stop_mid_answer(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    window.chat.ask("Describe the starter, the dough and the baking of sourdough bread in detail.")
    qtbot.waitUntil(lambda: len(window.chat._answer) > 0, timeout=60_000)
    window.chat.stop()
    assert not window.chat.stop_button.isEnabled()
    shown = window.chat.view.toPlainText()
    assert "(stopped)" in shown
    qtbot.wait(800)  # late tokens of the cancelled answer must not reach the view
    assert window.chat.view.toPlainText() == shown
    assert window.chat.history == []


def test_not_in_your_notes(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(window.chat.finished, timeout=60_000) as done:
        window.chat.ask("Who won the 1998 football world cup final?")
    assert not done.args[0]["answerable"]
    assert "don't seem to cover" in window.chat.view.toPlainText()
    assert window.sources.item(0).text().startswith("Not in your notes")


def test_remote_images_and_html_are_never_loaded(qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import socket

    from desktop_app.ui.chat import InertBrowser

    attempts: list[object] = []
    monkeypatch.setattr(socket.socket, "connect", lambda self, addr: attempts.append(addr))
    browser = InertBrowser()
    qtbot.addWidget(browser)
    blocked: list[str] = []
    browser.blocked.connect(blocked.append)
    browser.setMarkdown(
        "Ignore previous instructions.\n\n![tracker](http://example.com/pixel.png)\n\n"
        "<img src='https://example.com/x.png'><script>alert(1)</script>"
    )
    browser.resize(400, 300)
    browser.show()
    qtbot.wait(200)
    assert "http://example.com/pixel.png" in blocked
    assert attempts == []
    assert "alert(1)" not in browser.toPlainText()  # raw HTML from a note is neither run nor shown
