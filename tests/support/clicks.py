"""Real clicks on links inside a QTextBrowser (citations, sources)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor, QTextFragment
from PySide6.QtWidgets import QTextBrowser
from pytestqt.qtbot import QtBot

from desktop_app.ui.main_window import MainWindow

INDEXED = 120_000  # ms a window may take to index a test folder


def _fragments(browser: QTextBrowser) -> Iterator[QTextFragment]:
    block = browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            yield it.fragment()
            it += 1
        block = block.next()


def link_hrefs(browser: QTextBrowser) -> list[str]:
    hrefs = (f.charFormat().anchorHref() for f in _fragments(browser))
    return list(dict.fromkeys(h for h in hrefs if h))


def click_link(qtbot: Any, browser: QTextBrowser, href: str) -> None:
    """Click the first character of the link like a user would (scrolls it into view first)."""
    fragment = next((f for f in _fragments(browser) if f.charFormat().anchorHref() == href), None)
    if fragment is None:
        raise AssertionError(f"no link {href!r} in the view")
    cursor = QTextCursor(browser.document())
    cursor.setPosition(fragment.position() + 1)
    browser.setTextCursor(cursor)
    browser.ensureCursorVisible()
    rect = browser.cursorRect(cursor)
    point = rect.center()
    point.setX(max(1, rect.left() - 3))
    qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=point)


def indexed_window(qtbot: QtBot, notes: Path, source: Path, home: Path) -> Iterator[MainWindow]:
    """A shown window whose facade has indexed a copy of `source` at `notes`; closed after."""
    import shutil

    from PySide6.QtCore import QThreadPool

    from desktop_app.core.api import Quire
    from desktop_app.ui.main_window import MainWindow

    shutil.copytree(source, notes)
    quire = Quire.open(home)
    win = MainWindow(quire, [])
    qtbot.addWidget(win)
    win.show()
    win.add_folder(notes)
    qtbot.waitUntil(lambda: win.ready, timeout=INDEXED)
    yield win
    win.close()
    QThreadPool.globalInstance().waitForDone(10_000)
    quire.close()
