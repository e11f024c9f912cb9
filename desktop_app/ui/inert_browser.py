"""A text browser that renders Markdown and HTML but never loads anything remote."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWidgets import QTextBrowser


class InertBrowser(QTextBrowser):
    """Renders Markdown but never loads anything remote: notes and answers are data."""

    blocked = Signal(str)

    def loadResource(self, kind: int, name: QUrl | str) -> Any:
        url = QUrl(name)
        if url.isLocalFile() or url.scheme() in ("", "data"):
            return super().loadResource(kind, url)
        self.blocked.emit(url.toString())
        return None
