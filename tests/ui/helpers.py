"""Real clicks on links inside a QTextBrowser (citations, sources)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QTextBrowser


def link_hrefs(browser: QTextBrowser) -> list[str]:
    hrefs = []
    block = browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            href = it.fragment().charFormat().anchorHref()
            if href and href not in hrefs:
                hrefs.append(href)
            it += 1
        block = block.next()
    return hrefs


def click_link(qtbot: Any, browser: QTextBrowser, href: str) -> None:
    """Click the first character of the link like a user would (scrolls it into view first)."""
    block = browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(browser.document())
                cursor.setPosition(fragment.position() + 1)
                browser.setTextCursor(cursor)
                browser.ensureCursorVisible()
                rect = browser.cursorRect(cursor)
                point = rect.center()
                point.setX(max(1, rect.left() - 3))
                qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=point)
                return
            it += 1
        block = block.next()
    raise AssertionError(f"no link {href!r} in the view")
