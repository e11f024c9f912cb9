"""The Quire window: folders, chat, search and sources, and a viewer that opens a note with the
passage's exact character span selected. A thin layer over the same service the CLI uses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStatusBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.cancel import Progress
from desktop_app.ui.chat import ChatPane
from desktop_app.ui.workers import Task, run_in_background


class MainWindow(QMainWindow):
    def __init__(self, service: Any, folders: list[Path]) -> None:
        super().__init__()
        self.service = service
        self.folders = [f.resolve() for f in folders]
        self._search_task: Task | None = None
        self._sources: list[dict] = []
        self.setWindowTitle("Quire")
        self.resize(1280, 800)
        self._build()
        self.index_task = self._start_indexing()

    # -- layout -----------------------------------------------------------------------------------
    def _build(self) -> None:
        self.folder_list = QListWidget()
        self.folder_list.setAccessibleName("Notes folders")
        add, remove = QPushButton("Add folder…"), QPushButton("Remove")
        add.clicked.connect(self.add_folder)
        remove.clicked.connect(self.remove_folder)
        folder_buttons = QHBoxLayout()
        folder_buttons.addWidget(add)
        folder_buttons.addWidget(remove)
        folders = QWidget()
        fl = QVBoxLayout(folders)
        fl.addWidget(QLabel("<b>Folders</b>"))
        fl.addWidget(self.folder_list, 1)
        fl.addLayout(folder_buttons)

        self.chat = ChatPane(self.service)
        self.chat.sources_ready.connect(self._show_sources)
        self.chat.source_clicked.connect(self.open_source)
        self.chat.finished.connect(self._mark_cited)
        self.query = QLineEdit(placeholderText="Search your notes…  (Enter)")
        self.query.setAccessibleName("Search query")
        self.query.returnPressed.connect(self.search)
        self.results = QListWidget()
        self.results.setAccessibleName("Matching passages")
        self.results.setWordWrap(True)
        self.results.currentItemChanged.connect(self._show_result)
        search = QWidget()
        sl = QVBoxLayout(search)
        sl.addWidget(self.query)
        sl.addWidget(self.results)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.chat, "Ask")
        self.tabs.addTab(search, "Search")

        self.sources = QListWidget()
        self.sources.setAccessibleName("Sources")
        self.sources.setWordWrap(True)
        self.sources.itemClicked.connect(
            lambda item: self.open_source(item.data(Qt.ItemDataRole.UserRole))
        )
        self.heading = QLabel("Indexing your notes…")
        self.heading.setWordWrap(True)
        self.viewer = QPlainTextEdit(readOnly=True)
        self.viewer.setAccessibleName("Note viewer")
        self.viewer.setFont(QFont("DejaVu Sans", 10))
        right = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.addWidget(QLabel("<b>Sources</b>"))
        tl.addWidget(self.sources)
        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.addWidget(self.heading)
        bl.addWidget(self.viewer)
        right.addWidget(top)
        right.addWidget(bottom)
        right.setSizes([250, 550])

        splitter = QSplitter(Qt.Orientation.Horizontal)
        for widget in (folders, self.tabs, right):
            splitter.addWidget(widget)
        splitter.setSizes([220, 560, 500])
        self.setCentralWidget(splitter)
        self.progress_bar = QProgressBar(maximumWidth=240)
        status = QStatusBar()
        status.addPermanentWidget(self.progress_bar)
        self.setStatusBar(status)
        QShortcut(QKeySequence("Ctrl+L"), self, activated=self.query.setFocus)
        self._refresh_folders()

    # -- folders and indexing --------------------------------------------------------------------
    def _start_indexing(self) -> Task:
        folders = list(self.folders)
        self.progress_bar.show()
        return run_in_background(
            lambda progress, cancel: self.service.index(folders, progress=progress, cancel=cancel),
            on_done=self._indexed,
            on_error=self._failed,
            on_progress=self._progress,
        )

    def add_folder(self, folder: Path | None = None) -> None:
        if folder is None:
            chosen = QFileDialog.getExistingDirectory(self, "Add a notes folder")
            if not chosen:
                return
            folder = Path(chosen)
        if folder.resolve() not in self.folders:
            self.folders.append(folder.resolve())
            self.index_task.cancel()
            self.index_task = self._start_indexing()

    def remove_folder(self) -> None:
        item = self.folder_list.currentItem()
        if item is None:
            return
        folder = Path(item.data(Qt.ItemDataRole.UserRole))
        from desktop_app.core.ingest.indexer import remove_folder

        remove_folder(self.service.database, folder)
        self.folders = [f for f in self.folders if f != folder]
        self._refresh_folders()

    def _refresh_folders(self) -> None:
        self.folder_list.clear()
        files = self.service.status(check_integrity=False)["files"]
        for folder in self.folders:
            mine = [f for f in files if f["folder"] == str(folder)]
            indexed = sum(f["status"] == "indexed" for f in mine)
            pending = sum(f["status"] == "pending embedding" for f in mine)
            problems = sum(f["status"] in ("skipped", "failed") for f in mine)
            item = QListWidgetItem(
                f"{folder.name}\n{indexed + pending} notes · {pending} pending · {problems} skipped"
            )
            item.setToolTip(str(folder))
            item.setData(Qt.ItemDataRole.UserRole, str(folder))
            self.folder_list.addItem(item)

    def _progress(self, p: Progress) -> None:
        label = {"index": "Indexing", "embed": "Embedding"}.get(p.phase, p.phase)
        self.progress_bar.setMaximum(max(p.total, 1))
        self.progress_bar.setValue(p.done)
        self.statusBar().showMessage(f"{label} {p.done}/{p.total} {p.detail}")

    def _indexed(self, _reports: Any) -> None:
        counts = self.service.status(check_integrity=False)["counts"]
        self.progress_bar.hide()
        self._refresh_folders()
        self.heading.setText("Ready. Ask a question or search your notes.")
        self.statusBar().showMessage(
            f"{counts['notes']} notes, {counts['chunks']} passages indexed", 10000
        )

    def _failed(self, message: str) -> None:
        self.statusBar().showMessage(f"Problem: {message.splitlines()[0]}")

    # -- search ------------------------------------------------------------------------------------
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
            snippet = " ".join(r.text.split())[:200]
            item = QListWidgetItem(f"[{n}] {where}  ·  {r.score:.2f}\n{snippet}")
            item.setData(Qt.ItemDataRole.UserRole, r)
            item.setToolTip(r.path)
            self.results.addItem(item)
        if results:
            self.results.setCurrentRow(0)
        else:
            self.heading.setText("No matching passages in your notes.")

    def _show_result(self, item: QListWidgetItem | None, _: Any = None) -> None:
        if item is not None:
            r = item.data(Qt.ItemDataRole.UserRole)
            self.open_passage(Path(r.folder), r.path, r.start, r.end, r.line_start, r.line_end)

    # -- sources -----------------------------------------------------------------------------------
    def _show_sources(self, sources: list[dict], answerable: bool) -> None:
        self._sources = sources
        self.sources.clear()
        if not answerable:
            self.sources.addItem("Not in your notes — the closest passages:")
        for s in sources:
            where = " › ".join(s["heading_path"]) or s["title"]
            snippet = " ".join(s["text"].split())[:160]
            item = QListWidgetItem(f"[{s['n']}] {where}\n{snippet}")
            item.setData(Qt.ItemDataRole.UserRole, s["n"])
            item.setToolTip(f"{s['path']} · lines {s['lines'][0]}–{s['lines'][1]}")
            self.sources.addItem(item)

    def _mark_cited(self, done: dict) -> None:
        cited = set(done["citations"]["valid"])
        for row in range(self.sources.count()):
            item = self.sources.item(row)
            n = item.data(Qt.ItemDataRole.UserRole)
            if n is not None and cited and n not in cited:
                item.setForeground(Qt.GlobalColor.gray)  # unused sources are dimmed

    def open_source(self, number: int) -> None:
        source = next((s for s in self._sources if s["n"] == number), None)
        if source is not None:
            self.open_passage(Path(source["folder"]), source["path"], source["start"],
                              source["end"], *source["lines"])  # fmt: skip

    def open_passage(
        self, folder: Path, path: str, start: int, end: int, line_start: int, line_end: int
    ) -> None:
        from desktop_app.core.ingest.loaders import read_note

        try:
            decoded, _ = read_note(folder / path, 50_000_000)
        except Exception as exc:
            self.heading.setText(f"Cannot open {path}: {exc}")
            return
        self.heading.setText(f"{path}  ·  lines {line_start}–{line_end}")
        self.viewer.setPlainText(decoded.text)  # plain text: nothing in a note is ever run
        cursor = self.viewer.textCursor()
        cursor.setPosition(_qt_offset(decoded.text, start))
        cursor.setPosition(_qt_offset(decoded.text, end), QTextCursor.MoveMode.KeepAnchor)
        self.viewer.setTextCursor(cursor)
        self.viewer.centerCursor()

    def closeEvent(self, event: Any) -> None:
        self.index_task.cancel()
        self.chat.stop()
        if self._search_task:
            self._search_task.cancel()
        super().closeEvent(event)


def _qt_offset(text: str, offset: int) -> int:
    """Python counts code points, Qt counts UTF-16 units: astral characters take two."""
    return offset + sum(1 for ch in text[:offset] if ord(ch) > 0xFFFF)
