"""The Quire window: folders with live status, chat, search, sources, and a viewer that opens a
note with the passage's exact character span selected. A thin layer over the core service."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QStatusBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.cancel import Progress
from desktop_app.core.conversations import ConversationStore
from desktop_app.core.ingest.watcher import Change, LiveIndex
from desktop_app.core.store.health import IndexDamaged
from desktop_app.ui.chat import ChatPane
from desktop_app.ui.dialogs import show_error
from desktop_app.ui.folders import FilesView, FoldersPanel
from desktop_app.ui.repair import (
    check_in_background,
    repair_index,
    report_recovery,
    search_or_damage,
)
from desktop_app.ui.settings_dialog import SettingsDialog
from desktop_app.ui.sources import SourcesPanel
from desktop_app.ui.viewer import PassageViewer
from desktop_app.ui.welcome import WelcomePage
from desktop_app.ui.workers import Task, on_gui_thread, run_in_background

REFRESH_MS = 300  # status refreshes are coalesced: a burst of changes costs one query
PROGRESS_MS = 100
BUSY_REFRESH_MS = 1000  # while indexing or embedding runs, counts are re-read this often


class MainWindow(QMainWindow):
    def __init__(self, service: Any, folders: list[Path], store: ConversationStore | None = None):
        super().__init__()
        self.service = service
        self.folders = [f.resolve() for f in folders]
        self.store = store or ConversationStore(service.home / "conversations")
        self.live: LiveIndex | None = None
        self.settings_notice: QMessageBox | None = None
        self.error_notice: QMessageBox | None = None  # a background error (one box at a time)
        self.ready = False
        self.last_status: dict[str, Any] | None = None
        self._search_task: Task | None = None
        self._status_task: Task | None = None
        self._latest_progress: Progress | None = None
        self.setWindowTitle("Quire")
        self.resize(1280, 820)
        self._build()
        self.recovery_reports: list[str] = []  # what was shown about a replaced index
        if service.recovery is not None:
            QTimer.singleShot(0, lambda: report_recovery(self))
        elif service.checked_on_open == "cheap":  # a large index: the quick check runs now
            QTimer.singleShot(0, lambda: check_in_background(self))
        if self.folders:
            self.start_live_index()
        else:
            self.pages.setCurrentWidget(self.welcome)
        QTimer.singleShot(0, self._tell_settings_problems)

    def _tell_settings_problems(self) -> None:
        """Settings that could not be used were reset when loading (and saved): say so once."""
        problems = getattr(self.service.settings, "problems", [])
        if problems:
            lines = "\n".join(f"• {p}" for p in problems)
            self.settings_notice = show_error(
                self, f"Some settings could not be used; Quire uses their defaults:\n{lines}"
            )

    # -- layout -----------------------------------------------------------------------------------
    def _build(self) -> None:
        self.welcome = WelcomePage()
        self.welcome.open_samples.connect(self.open_sample_notes)
        self.welcome.choose_folder.connect(self.add_folder)
        self.folders_panel = FoldersPanel()
        self.folders_panel.add_requested.connect(self.add_folder)
        self.folders_panel.remove_requested.connect(self.remove_folder)
        self.folders_panel.pause_toggled.connect(self.set_paused)
        self.conversations = QListWidget()
        self.conversations.setAccessibleName("Earlier conversations")
        self.conversations.setWordWrap(True)
        self.conversations.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.conversations.itemActivated.connect(self._open_conversation)
        self.conversations.itemClicked.connect(self._open_conversation)
        delete = QPushButton("Delete")
        delete.setAccessibleName("Delete conversation")
        delete.clicked.connect(self._delete_conversation)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.addWidget(self.folders_panel, 3)
        ll.addWidget(QLabel("<b>Conversations</b>"))
        ll.addWidget(self.conversations, 2)
        self.conversation_notice = QLabel(wordWrap=True)  # damaged conversation files, once
        self.conversation_notice.hide()
        ll.addWidget(self.conversation_notice)
        ll.addWidget(delete)

        self.chat = ChatPane(self.service, self.store)
        self.chat.source_clicked.connect(self.open_source)
        self.chat.finished.connect(lambda done: self.sources.mark_cited(
            set(done["citations"]["valid"])))  # fmt: skip
        self.chat.conversation_saved.connect(lambda _: self._conversation_saved())
        self.chat.activity.connect(self._answer_activity)
        self.query = QLineEdit(placeholderText="Search your notes…  (Enter) — no model needed")
        self.query.setAccessibleName("Search query")
        self.query.setClearButtonEnabled(True)
        self.query.returnPressed.connect(self.search)
        self.results = QListWidget()
        self.results.setAccessibleName("Matching passages")
        self.results.setWordWrap(True)
        self.results.currentItemChanged.connect(self._show_result)
        search = QWidget()
        sl = QVBoxLayout(search)
        sl.addWidget(self.query)
        sl.addWidget(self.results)
        self.files = FilesView()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.chat, "Ask")
        self.tabs.addTab(search, "Search")
        self.tabs.addTab(self.files, "Files")

        self.sources = SourcesPanel()
        self.sources.source_clicked.connect(self.open_source)
        self.chat.sources_ready.connect(self.sources.show_sources)
        self.sources.show_sources([])
        self.viewer = PassageViewer()
        self.files.open_requested.connect(self.viewer.open_note)
        self.chat.cleared.connect(self.viewer.clear)
        right = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(QLabel("<b>Sources</b>"))
        tl.addWidget(self.sources)
        right.addWidget(top)
        right.addWidget(self.viewer)
        right.setSizes([300, 500])

        splitter = QSplitter(Qt.Orientation.Horizontal)
        for widget in (left, self.tabs, right):
            splitter.addWidget(widget)
        splitter.setSizes([240, 560, 480])
        main = QWidget()
        ml = QHBoxLayout(main)
        ml.addWidget(splitter)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.welcome)
        self.pages.addWidget(main)
        self.pages.setCurrentWidget(main)
        self.main_page = main
        self.setCentralWidget(self.pages)

        self.progress_bar = QProgressBar(maximumWidth=240)
        self.progress_bar.hide()
        status = QStatusBar()
        status.addPermanentWidget(self.progress_bar)
        self.setStatusBar(status)
        self._build_menu()
        self._refresh_timer = QTimer(self, singleShot=True, interval=REFRESH_MS)
        self._refresh_timer.timeout.connect(self.refresh_status)
        self._progress_timer = QTimer(self, interval=PROGRESS_MS)
        self._progress_timer.timeout.connect(self._show_progress)
        self._list_conversations()

    def _build_menu(self) -> None:
        actions = (
            ("&Add notes folder…", "Ctrl+O", self.add_folder),
            ("&New chat", "Ctrl+N", self.chat.new_chat),
            ("&Search notes", "Ctrl+L", self._focus_search),
            ("Se&ttings…", "Ctrl+,", self.open_settings),
            ("Check and &repair the index", "", lambda: repair_index(self)),
            ("Show Quire's &data folder", "", self.show_data_folder),
            ("&Quit", "Ctrl+Q", self.close),
        )
        menu = self.menuBar().addMenu("&Quire")
        for text, keys, slot in actions:
            action = QAction(text, self)
            if keys:
                action.setShortcut(QKeySequence(keys))
            action.triggered.connect(lambda _=False, s=slot: s())
            menu.addAction(action)
            self.addAction(action)  # shortcuts work even while the menu bar is hidden

    # -- folders and live indexing -------------------------------------------------------------
    def start_live_index(self) -> None:
        self.pages.setCurrentWidget(self.main_page)
        self.live = LiveIndex(
            self.service.database,
            self.folders,
            self.service.index_options,
            self.service.embed,
            home=self.service.home,
            on_change=on_gui_thread(self._changed, self),
            progress=on_gui_thread(self._progress, self, latest_only=True),
        )
        self.live.start()
        self._progress_timer.start()
        self.statusBar().showMessage("Looking for new and changed notes…")
        self.refresh_status()

    def open_sample_notes(self) -> None:
        from desktop_app.paths import user_sample_notes

        self.add_folder(user_sample_notes(self.service.home))

    def add_folder(self, folder: Path | None = None) -> None:
        if folder is None:
            chosen = QFileDialog.getExistingDirectory(self, "Add a notes folder")
            if not chosen:
                return
            folder = Path(chosen)
        folder = folder.resolve()
        if folder in self.folders:
            return
        self.folders.append(folder)
        self.ready = False
        if self.live is None:
            self.start_live_index()
        else:
            self.live.add_folder(folder)
            self.refresh_status()

    def remove_folder(self, folder: Path) -> None:
        answer = QMessageBox.question(
            self, "Remove folder",
            f"Stop using {folder}?\nIts notes leave Quire's index; the files stay untouched.",
        )  # fmt: skip
        if answer != QMessageBox.StandardButton.Yes:
            return
        self.forget_folder(folder)

    def forget_folder(self, folder: Path) -> None:
        self.folders = [f for f in self.folders if f != folder]
        if self.live is not None:
            self.live.remove_folder(folder)  # its indexing thread drops it, then reports back
        self.refresh_status()

    def set_paused(self, paused: bool) -> None:
        if self.live is None:
            return
        if paused:
            self.live.pause()
            self.progress_bar.hide()
            self.statusBar().showMessage("Indexing paused — search and answers still work")
        else:
            self.live.resume()

    def _changed(self, change: Change) -> None:
        if change.kind == "error":  # also in errors.log; indexing goes on
            self.statusBar().showMessage(str(change))
            if self.error_notice is None or not self.error_notice.isVisible():
                self.error_notice = show_error(
                    self, f"Indexing hit a problem and goes on:\n{change.detail}"
                )
        elif change.kind in ("failed", "notice", "warning"):
            self.statusBar().showMessage(str(change), 8000)
        if not self._refresh_timer.isActive():
            self._refresh_timer.start(REFRESH_MS)

    def _progress(self, progress: Progress) -> None:
        self._latest_progress = progress  # shown by a timer: thousands of files, few repaints

    def _show_progress(self) -> None:
        p, self._latest_progress = self._latest_progress, None
        if p is None or (self.live is not None and self.live.paused):
            return
        if p.done >= p.total:
            self.progress_bar.hide()
            return
        self.ready = False
        self.progress_bar.show()
        self.progress_bar.setMaximum(max(p.total, 1))
        self.progress_bar.setValue(p.done)
        if p.phase == "embed":
            text = f"Computing vectors {p.done}/{p.total} — keyword search already works"
        elif p.phase == "parts":
            text = f"Preparing passages {p.done}/{p.total} — keyword search already works"
        else:
            text = f"Reading notes {p.done}/{p.total}  {p.detail}"
        self.statusBar().showMessage(text)

    def refresh_status(self) -> None:
        """Read the index status off the GUI thread, then update folders, files and readiness."""
        if self._status_task is not None:
            self._status_task.cancel()
        live = self.live

        def query(progress: Any, cancel: Any) -> tuple[bool, dict[str, Any]]:
            busy = live is None or live.busy  # read first: the query below is then never older
            return busy, self.service.status(check_integrity=False)

        self._status_task = run_in_background(
            query, on_done=self._status_ready, on_error=self._failed
        )

    def _status_ready(self, result: tuple[bool, dict[str, Any]]) -> None:
        busy, status = result
        self.last_status = status
        self.folders_panel.show_folders(self.folders, status["files"])
        self.files.show_status(status)
        counts = status["counts"]
        if self.live is not None and self.live.paused:
            return
        if busy or counts["pending_embedding"]:
            if not self._refresh_timer.isActive():
                self._refresh_timer.start(BUSY_REFRESH_MS)  # the workers are still going
            return
        self.ready = True
        self.progress_bar.hide()
        if self.chat.answering:
            return  # the status bar says what the answer waits for, not "Ready"
        problems = counts["skipped"] + counts["failed"]
        extra = f" · {problems} skipped or failed (see Files)" if problems else ""
        self.statusBar().showMessage(
            f"Ready — {counts['notes']} notes, {counts['chunks']} passages{extra}"
        )

    def _failed(self, message: str) -> None:
        first, _, details = message.partition("\n\n")
        show_error(self, f"Something went wrong: {first}", details)

    def show_data_folder(self) -> None:
        """Database, settings, logs, crash reports and conversations all live here."""
        from PySide6.QtCore import QUrl
        from PySide6.QtGui import QDesktopServices

        QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.service.home)))

    # -- settings --------------------------------------------------------------------------------
    def open_settings(self) -> SettingsDialog:
        dialog = SettingsDialog(self.service.settings, self)
        dialog.accepted.connect(lambda: self.apply_settings(dialog.chosen()))
        dialog.open()
        return dialog

    def apply_settings(self, settings: Any) -> None:
        from PySide6.QtWidgets import QApplication

        from desktop_app.ui.theme import apply_theme

        changed = self.service.apply_settings(settings)
        apply_theme(QApplication.instance(), settings.theme)  # type: ignore[arg-type]
        self.sources.refresh()  # its highlight colours follow the theme
        if not changed or self.live is None:
            return
        self.live.redo()
        self.ready = False
        if "embedding model" in changed:
            self.statusBar().showMessage(
                "Embedding model changed: every passage is embedded again in the background. "
                "Keyword search works meanwhile."
            )
        else:
            self.statusBar().showMessage("Passage size changed: reading every note again…")

    # -- conversations -----------------------------------------------------------------------------
    def _list_conversations(self) -> None:
        """Read every saved conversation once, at start; later saves update single rows."""
        self.conversations.clear()
        for conversation in self.store.recent():
            self.conversations.addItem(_conversation_item(conversation))
        reports = self.store.take_reports()
        if reports:
            more = f" (and {len(reports) - 1} more)" if len(reports) > 1 else ""
            self.conversation_notice.setText(reports[0] + more)
            self.conversation_notice.setToolTip("\n\n".join(reports))
            self.conversation_notice.show()

    def _conversation_saved(self) -> None:
        """The current conversation was saved: move its row to the top, with its new count."""
        saved = self.chat.conversation
        for row in range(self.conversations.count()):
            if self.conversations.item(row).data(Qt.ItemDataRole.UserRole) == saved.id:
                self.conversations.takeItem(row)
                break
        self.conversations.insertItem(0, _conversation_item(saved))

    def _open_conversation(self, item: QListWidgetItem) -> None:
        try:
            conversation = self.store.load(item.data(Qt.ItemDataRole.UserRole))
        except (OSError, ValueError, TypeError) as exc:
            show_error(self, "This conversation cannot be opened.", str(exc))
            return
        self.tabs.setCurrentWidget(self.chat)
        self.chat.open_conversation(conversation)

    def _delete_conversation(self) -> None:
        item = self.conversations.currentItem()
        if item is None:
            return
        conversation_id = item.data(Qt.ItemDataRole.UserRole)
        self.store.delete(conversation_id)
        if self.chat.conversation.id == conversation_id:
            self.chat.new_chat()
        self.conversations.takeItem(self.conversations.row(item))

    # -- search ------------------------------------------------------------------------------------
    def _focus_search(self) -> None:
        self.tabs.setCurrentIndex(1)
        self.query.setFocus()
        self.query.selectAll()

    def search(self) -> None:
        text = self.query.text().strip()
        if not text:
            return
        if self._search_task:
            self._search_task.cancel()  # last query wins
        self._search_task = run_in_background(
            lambda progress, cancel: search_or_damage(self.service, text),
            on_done=self._show_results,
            on_error=self._failed,
        )

    def _answer_activity(self, text: str) -> None:
        if text:
            self.statusBar().showMessage(text)
        else:
            self.statusBar().clearMessage()
            self.refresh_status()

    def _show_results(self, results: list[Any] | IndexDamaged) -> None:
        from desktop_app.core.answer.ask import relevant

        if isinstance(results, IndexDamaged):
            repair_index(self, results.problems)
            return
        results = relevant(results, SEARCH_FLOOR)
        self.results.clear()
        for n, r in enumerate(results, start=1):
            where = " › ".join([r.title, *r.heading_path[1:]]) if r.title else r.path
            snippet = " ".join(r.text.split())[:200]
            item = QListWidgetItem(f"[{n}] {where}  ·  {r.score:.3f}\n{snippet}")
            item.setData(Qt.ItemDataRole.UserRole, r)
            item.setToolTip(f"{r.path} · lines {r.line_start}–{r.line_end}")
            self.results.addItem(item)
        if results:
            self.results.setCurrentRow(0)
        else:
            self.viewer.show_message("No matching passages in your notes.")

    def _show_result(self, item: QListWidgetItem | None, _: Any = None) -> None:
        if item is not None:
            r = item.data(Qt.ItemDataRole.UserRole)
            self.open_passage(Path(r.folder), r.path, r.start, r.end, r.line_start, r.line_end)

    # -- sources and the viewer ----------------------------------------------------------------
    def open_source(self, source: dict) -> None:
        self.open_passage(Path(source["folder"]), source["path"], source["start"],
                          source["end"], *source["lines"])  # fmt: skip

    def open_passage(
        self, folder: Path, path: str, start: int, end: int, line_start: int, line_end: int
    ) -> None:
        self.viewer.open_passage(folder, path, start, end, line_start, line_end)

    def closeEvent(self, event: Any) -> None:
        self.chat.stop()
        for task in (self._search_task, self._status_task):
            if task is not None:
                task.cancel()  # their late results must not reach a closed window
        if self.live is not None:
            self.live.stop(timeout=5.0)
            self.live = None
        super().closeEvent(event)


SEARCH_FLOOR = 0.5  # the Search tab lists passages down to half the best one's score


def _conversation_item(conversation: Any) -> QListWidgetItem:
    when = time.strftime("%d %b %H:%M", time.localtime(conversation.updated))
    count = len(conversation.turns)
    item = QListWidgetItem(
        f"{conversation.title}\n{when} · {count} question{'s' if count != 1 else ''}"
    )
    item.setToolTip(conversation.title)
    item.setData(Qt.ItemDataRole.UserRole, conversation.id)
    return item
