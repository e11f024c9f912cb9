"""The chat pane: ask, watch the answer stream in as Markdown, click `[n]` to open the passage."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QTimer, QUrl, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.workers import Task, run_in_background

FLUSH_MS = 30  # tokens reach the view in small batches, so the event loop stays free
_CITATION = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")


class InertBrowser(QTextBrowser):
    """Renders Markdown but never loads anything remote: notes and answers are data."""

    blocked = Signal(str)

    def loadResource(self, kind: int, url: QUrl) -> Any:
        if url.isLocalFile() or url.scheme() in ("", "data"):
            return super().loadResource(kind, url)
        self.blocked.emit(url.toString())
        return None


def linkify(answer: str, valid: Callable[[int], bool]) -> str:
    """Markdown for an answer: valid `[n]` become links to the source, others stay plain text."""

    def repl(match: re.Match[str]) -> str:
        numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
        parts = [f"[[{n}]](quire:source/{n})" if valid(n) else f"\\[{n}\\]" for n in numbers]
        return "".join(parts)

    escaped = answer.replace("<", "&lt;")
    return _CITATION.sub(repl, escaped)


class ChatPane(QWidget):
    source_clicked = Signal(int)
    sources_ready = Signal(list, bool)  # sources, answerable
    finished = Signal(dict)

    def __init__(self, service: Any) -> None:
        super().__init__()
        self.service = service
        self.history: list[Any] = []
        self._task: Task | None = None
        self._pending = ""
        self._answer = ""
        self._sources: list[dict] = []
        self._done_turns: list[str] = []
        self.view = InertBrowser(openLinks=False)
        self.view.setAccessibleName("Conversation")
        self.view.anchorClicked.connect(self._anchor)
        self.input = QPlainTextEdit(
            placeholderText="Ask your notes…  (Ctrl+Enter to send, Esc to stop)"
        )
        self.input.setAccessibleName("Question")
        self.input.setMaximumHeight(90)
        self.ask_button = QPushButton("Ask")
        self.stop_button = QPushButton("Stop", enabled=False)
        self.new_button = QPushButton("New chat")
        self.copy_button = QPushButton("Copy answer")
        for button in (self.ask_button, self.stop_button, self.new_button, self.copy_button):
            button.setAccessibleName(button.text())
        self.ask_button.clicked.connect(self.ask)
        self.stop_button.clicked.connect(self.stop)
        self.new_button.clicked.connect(self.new_chat)
        self.copy_button.clicked.connect(self._copy)
        buttons = QHBoxLayout()
        for b in (self.ask_button, self.stop_button, self.new_button, self.copy_button):
            buttons.addWidget(b)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.input)
        layout.addLayout(buttons)
        QShortcut(QKeySequence("Ctrl+Return"), self, activated=self.ask)
        QShortcut(QKeySequence("Escape"), self, activated=self.stop)
        self._flush_timer = QTimer(self, interval=FLUSH_MS)
        self._flush_timer.timeout.connect(self._flush)

    # -- asking --------------------------------------------------------------------------------
    def ask(self, question: str | None = None) -> None:
        question = (question or self.input.toPlainText()).strip()
        if not question:
            return
        self.stop()
        self.input.clear()
        self._answer, self._pending, self._sources = "", "", []
        self._question = question
        history = list(self.history)
        self._task = run_in_background(
            lambda progress, cancel: self._consume(question, history, progress, cancel),
            on_done=self._done,
            on_error=self._error,
            on_progress=self._event,
        )
        self.stop_button.setEnabled(True)
        self._flush_timer.start()
        self._render()

    def _consume(self, question: str, history: list[Any], progress: Any, cancel: Any) -> dict:
        last: dict = {}
        for event in self.service.ask(question, history=history, cancel=cancel):
            progress(event)
            last = event
        return last

    def _event(self, event: dict) -> None:
        if event["type"] == "sources":
            self._sources = event["sources"]
            self.sources_ready.emit(event["sources"], bool(event["answerable"]))
        elif event["type"] == "token":
            self._pending += event["text"]

    def _flush(self) -> None:
        if self._pending:
            self._answer += self._pending
            self._pending = ""
            self._render()

    def _done(self, last: dict) -> None:
        self._flush()
        self._flush_timer.stop()
        self.stop_button.setEnabled(False)
        if last.get("type") == "error":
            self._answer = f"**Problem:** {last['message']}"
        elif last.get("type") == "done":
            from desktop_app.core.answer.ask import Turn

            self.history.append(Turn(self._question, last["answer"]))
            self.finished.emit(last)
        self._done_turns.append(self._turn_markdown())
        self._answer = ""
        self._render(final=True)

    def _error(self, message: str) -> None:
        self._flush_timer.stop()
        self.stop_button.setEnabled(False)
        self._answer = f"**Problem:** {html.escape(message.splitlines()[0])}"
        self._done_turns.append(self._turn_markdown())
        self._render(final=True)

    def stop(self) -> None:
        if self._task is not None and not self._task.token.cancelled:
            self._task.token.cancel()  # the worker sees it within one token
            self._flush()
            self._flush_timer.stop()
            self._answer += " *(stopped)*"
            self._done_turns.append(self._turn_markdown())
            self._answer = ""
            self._render(final=True)
        self.stop_button.setEnabled(False)

    def new_chat(self) -> None:
        self.stop()
        self.history.clear()
        self._done_turns.clear()
        self._answer = ""
        self.view.clear()

    def _copy(self) -> None:
        from PySide6.QtWidgets import QApplication

        text = self.history[-1].answer if self.history else self._answer
        QApplication.clipboard().setText(text)

    # -- rendering -------------------------------------------------------------------------------
    def _turn_markdown(self) -> str:
        count = len(self._sources)
        answer = linkify(self._answer, lambda n: 1 <= n <= count)
        return f"**You:** {html.escape(self._question)}\n\n{answer}\n\n---\n"

    def _render(self, final: bool = False) -> None:
        parts = list(self._done_turns)
        if not final and self._task is not None:
            parts.append(self._turn_markdown() + ("▍" if not self._task.token.cancelled else ""))
        self.view.setMarkdown("\n".join(parts))
        bar = self.view.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _anchor(self, url: QUrl) -> None:
        if url.scheme() == "quire" and url.path().startswith("source/"):
            self.source_clicked.emit(int(url.path().split("/")[1]))
