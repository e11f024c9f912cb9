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
