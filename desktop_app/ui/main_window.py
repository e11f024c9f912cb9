"""The Quire window (search-first for now): folder status, a query box, ranked passages and a
viewer that opens the note with the passage's exact character span selected."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QPlainTextEdit,
    QProgressBar,
    QSplitter,
    QStatusBar,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.cancel import Progress
from desktop_app.ui.workers import Task, run_in_background


class MainWindow(QMainWindow):
    def __init__(self, service: Any, folders: list[Path]) -> None:
        super().__init__()
        self.service = service
        self.folders = folders
        self._search_task: Task | None = None
        self.setWindowTitle("Quire")
        self.resize(1100, 700)
        self._build()
        self.index_task = run_in_background(
            lambda progress, cancel: service.index(folders, progress=progress, cancel=cancel),
            on_done=self._indexed,
            on_error=self._failed,
            on_progress=self._progress,
        )

    def _build(self) -> None:
        self.query = QLineEdit(placeholderText="Search your notes…  (Enter)")
        self.query.setAccessibleName("Search query")
        self.query.returnPressed.connect(self.search)
        self.results = QListWidget()
        self.results.setAccessibleName("Matching passages")
        self.results.currentItemChanged.connect(self._show_passage)
        self.viewer = QPlainTextEdit(readOnly=True)
        self.viewer.setAccessibleName("Note viewer")
        self.heading = QLabel("Indexing your notes…")
        left = QWidget()
        layout = QVBoxLayout(left)
        layout.addWidget(self.query)
        layout.addWidget(self.results)
        right = QWidget()
        rlayout = QVBoxLayout(right)
        rlayout.addWidget(self.heading)
        rlayout.addWidget(self.viewer)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setSizes([450, 650])
        self.setCentralWidget(splitter)
        self.progress_bar = QProgressBar(maximumWidth=240)
        status = QStatusBar()
        status.addPermanentWidget(self.progress_bar)
        self.setStatusBar(status)
        QShortcut(QKeySequence("Ctrl+L"), self, activated=self.query.setFocus)

    def _progress(self, p: Progress) -> None:
        label = {"index": "Indexing", "embed": "Embedding"}.get(p.phase, p.phase)
        self.progress_bar.setMaximum(max(p.total, 1))
        self.progress_bar.setValue(p.done)
        self.statusBar().showMessage(f"{label} {p.done}/{p.total} {p.detail}")

    def _indexed(self, reports: Any) -> None:
        counts = self.service.status()["counts"]
        self.progress_bar.hide()
        self.heading.setText("Ready. Type a question or keywords.")
        self.statusBar().showMessage(
            f"{counts['notes']} notes, {counts['chunks']} passages indexed", 10000
        )

    def _failed(self, message: str) -> None:
        self.statusBar().showMessage(f"Problem: {message.splitlines()[0]}")

    def search(self) -> None:
        text = self.query.text().strip()
        if not text:
            return
        if self._search_task:
            self._search_task.cancel()  # last query wins
        self._search_task = run_in_background(
            lambda progress, cancel: self.service.search(text),
            on_done=self._show_results,
            on_error=self._failed,
        )

    def _show_results(self, results: list[Any]) -> None:
        self.results.clear()
        for n, r in enumerate(results, start=1):
            where = " › ".join([r.title, *r.heading_path[1:]]) if r.title else r.path
            snippet = " ".join(r.text.split())[:160]
            item = QListWidgetItem(f"[{n}] {where}\n{snippet}")
            item.setData(Qt.ItemDataRole.UserRole, r)
            item.setToolTip(html.escape(r.path))
            self.results.addItem(item)
        if results:
            self.results.setCurrentRow(0)
        else:
            self.heading.setText("No matching passages in your notes.")

    def _show_passage(self, item: QListWidgetItem | None, _: Any = None) -> None:
        if item is None:
            return
        result = item.data(Qt.ItemDataRole.UserRole)
        self.open_passage(result)

    def open_passage(self, result: Any) -> None:
        path = Path(result.folder) / result.path
        try:
            from desktop_app.core.ingest.loaders import read_note

            decoded, _ = read_note(path, 50_000_000)
        except Exception as exc:
            self.heading.setText(f"Cannot open {result.path}: {exc}")
            return
        self.heading.setText(f"{result.path}  ·  lines {result.line_start}–{result.line_end}")
        self.viewer.setPlainText(decoded.text)
        cursor = self.viewer.textCursor()
        cursor.setPosition(_qt_offset(decoded.text, result.start))
        cursor.setPosition(_qt_offset(decoded.text, result.end), QTextCursor.MoveMode.KeepAnchor)
        self.viewer.setTextCursor(cursor)
        self.viewer.centerCursor()

    def closeEvent(self, event: Any) -> None:
        self.index_task.cancel()
        if self._search_task:
            self._search_task.cancel()
        super().closeEvent(event)


def _qt_offset(text: str, offset: int) -> int:
    """Python counts code points, Qt counts UTF-16 units: astral characters take two."""
    return offset + sum(1 for ch in text[:offset] if ord(ch) > 0xFFFF)
