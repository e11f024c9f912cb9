"""The Quire window: folders with live status, chat, search, sources, and a viewer that opens a
note with the passage's exact character span selected. A thin layer over the facade (Quire):
the tabs and panes are their own widgets; `LiveController` runs folders, progress and status."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, QUrl
from PySide6.QtGui import QAction, QCloseEvent, QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QSplitter,
    QStackedWidget,
    QStatusBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.api import (
    Conversation,
    Done,
    Evidence,
    Health,
    IndexStatus,
    Passage,
    Quire,
    Recovery,
    SearchResult,
)
from desktop_app.paths import user_sample_notes
from desktop_app.settings import Settings
from desktop_app.ui.chat import ChatPane
from desktop_app.ui.conversations_pane import ConversationsPane
from desktop_app.ui.dialogs import show_error, show_info
from desktop_app.ui.folders_pane import FilesView, FoldersPanel
from desktop_app.ui.live_status import LiveController
from desktop_app.ui.repair import RepairController
from desktop_app.ui.search_tab import SearchTab
from desktop_app.ui.settings_dialog import SettingsDialog
from desktop_app.ui.sources import SourcesPanel
from desktop_app.ui.theme import apply_theme
from desktop_app.ui.viewer import PassageViewer
from desktop_app.ui.welcome import WelcomePage

START_UNPAINTED_MS = 1000  # the live index of a window not painted by then starts anyway


class _AfterFirstPaint(QObject):
    """Calls `then` once `widget` has painted for the first time, then stops listening (a
    filter in Python would otherwise take the GIL for every event of the window)."""

    def __init__(self, widget: QWidget, then: Callable[[], None]) -> None:
        super().__init__(widget)
        self._then = then
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self._then)  # after this paint has reached the screen
        return False


class MainWindow(QMainWindow):
    def __init__(self, quire: Quire, folders: list[Path]) -> None:
        super().__init__()
        self.quire = quire
        quire.warm_up()  # before the event loop: the indexer thread loading it would stall it
        for folder in folders:
            quire.live.watch(folder)
        self.settings_notice: QMessageBox | None = None
        self.recovery_reports: list[str] = []  # what was shown about a replaced index
        self.recovery_box: QMessageBox | None = None
        self.repaired: Recovery | Health | None = None  # the last repair's outcome
        self.setWindowTitle("Quire")
        self.resize(1280, 820)
        self._build()
        self.live_status = LiveController(
            quire,
            self,
            answering=lambda: self.chat.answering,
            files_shown=lambda: self.files.isVisible(),
        )
        self.repairs = RepairController(quire, self)
        self._connect_controllers()
        self.conversations_pane.list_all()
        if quire.repair.recovery is not None:
            QTimer.singleShot(0, self.repairs.report_recovery)
        elif quire.checked_on_open == "cheap":  # a large index: the quick check runs now
            QTimer.singleShot(0, self.repairs.check_in_background)
        self._index_waits_for_paint = bool(quire.live.folders)
        if self._index_waits_for_paint:  # a window never shown starts it anyway
            self._first_paint = _AfterFirstPaint(self, self._start_after_paint)
            QTimer.singleShot(START_UNPAINTED_MS, self._start_after_paint)
        else:
            self.pages.setCurrentWidget(self.welcome)
        QTimer.singleShot(0, self._tell_settings_problems)

    def _start_after_paint(self) -> None:
        """The live index starts once the window has painted: its first seconds (the folder
        scan, the fork server, the models' identity) keep both cores busy, and the first
        paint, which takes the GIL many times, would wait behind them on a loaded machine."""
        if self._index_waits_for_paint:
            self.start_live_index()

    def _tell_settings_problems(self) -> None:
        """Settings that could not be used were reset when loading (and saved): say so once."""
        problems = self.quire.settings.problems
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
        self.folders_panel.remove_requested.connect(lambda f: self.live_status.remove_folder(f))
        self.folders_panel.pause_toggled.connect(lambda p: self.live_status.set_paused(p))
        self.folders_panel.ocr_toggled.connect(self.set_ocr_in)
        self.conversations_pane = ConversationsPane(self.quire)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.addWidget(self.folders_panel, 3)
        ll.addWidget(self.conversations_pane, 2)
        self.chat = ChatPane(self.quire)
        self.search_tab = SearchTab(self.quire)
        self.files = FilesView()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.chat, "Ask")
        self.tabs.addTab(self.search_tab, "Search")
        self.tabs.addTab(self.files, "Files")
        self.sources = SourcesPanel()
        self.viewer = PassageViewer(self.quire.page_starts, self.quire.ocr_boxes)
        self._connect()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        for widget in (left, self.tabs, self._right_pane()):
            splitter.addWidget(widget)
        splitter.setSizes([240, 560, 480])
        self._pages(splitter)
        self.progress_bar = QProgressBar()
        self.progress_bar.setMaximumWidth(240)
        self.progress_bar.hide()
        status = QStatusBar()
        status.addPermanentWidget(self.progress_bar)
        self.setStatusBar(status)
        self._build_menu()

    def _connect(self) -> None:
        self.conversations_pane.opened.connect(self._show_conversation)
        self.conversations_pane.deleted.connect(self._conversation_deleted)
        self.chat.source_clicked.connect(self.open_source)
        self.chat.models_wanted.connect(self.open_models)
        self.chat.finished.connect(self._answered)
        self.chat.conversation_saved.connect(
            lambda _: self.conversations_pane.saved(self.chat.conversation)
        )
        self.chat.activity.connect(self._answer_activity)
        self.chat.sources_ready.connect(self.sources.show_sources)
        self.chat.cleared.connect(self.viewer.clear)
        self.search_tab.passage_chosen.connect(self.open_source)
        self.search_tab.nothing_found.connect(
            lambda: self.viewer.show_message("No matching passages in your notes.")
        )
        self.search_tab.damaged.connect(lambda exc: self.repairs.repair_index(exc.problems))
        self.search_tab.failed.connect(self.failed)
        self.sources.source_clicked.connect(self.open_source)
        self.sources.show_sources([])
        self.files.open_requested.connect(self.viewer.open_note)
        self.files.files_wanted.connect(lambda: self.live_status.refresh_status())

    def _connect_controllers(self) -> None:
        live, repairs = self.live_status, self.repairs
        live.started.connect(lambda: self.pages.setCurrentWidget(self.main_page))
        live.progress_changed.connect(self._show_progress)
        live.status_read.connect(self._show_status)
        repairs.repair_started.connect(self._not_ready)
        repairs.recovered.connect(self._tell_recovery)
        repairs.repaired.connect(self._repaired)
        for controller in (live, repairs):
            controller.message.connect(lambda text, ms: self.statusBar().showMessage(text, ms))
            controller.failed.connect(self.failed)

    def _not_ready(self) -> None:
        self.ready = False

    def _show_progress(self, done: int, total: int) -> None:
        self.progress_bar.setVisible(total > 0)
        if total > 0:
            self.progress_bar.setMaximum(total)
            self.progress_bar.setValue(done)

    def _show_status(self, status: IndexStatus) -> None:
        off = set(self.quire.settings.ocr_off_folders)
        self.folders_panel.show_folders(self.quire.live.folders, status.folders, off)
        self.files.show_status(status)

    def _tell_recovery(self, message: str, problems: str) -> None:
        self.recovery_reports.append(message)
        self.statusBar().showMessage(message, 15000)
        self.recovery_box = show_info(self, message, problems)

    def _repaired(self, outcome: Recovery | Health) -> None:
        self.repaired = outcome
        if self.quire.live.folders:
            self.start_live_index()

    def _right_pane(self) -> QSplitter:
        right = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(QLabel("<b>Sources</b>"))
        tl.addWidget(self.sources)
        right.addWidget(top)
        right.addWidget(self.viewer)
        right.setSizes([300, 500])
        return right

    def _pages(self, splitter: QSplitter) -> None:
        main = QWidget()
        ml = QHBoxLayout(main)
        ml.addWidget(splitter)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.welcome)
        self.pages.addWidget(main)
        self.pages.setCurrentWidget(main)
        self.main_page = main
        self.setCentralWidget(self.pages)

    def _build_menu(self) -> None:
        actions = (
            ("&Add notes folder…", "Ctrl+O", self.add_folder),
            ("&New chat", "Ctrl+N", self.chat.new_chat),
            ("&Search notes", "Ctrl+L", self._focus_search),
            ("Se&ttings…", "Ctrl+,", self.open_settings),
            ("Check and &repair the index", "", lambda: self.repairs.repair_index()),
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

    # -- folders and the live index (LiveController) -------------------------------------------
    @property
    def ready(self) -> bool:
        return self.live_status.ready

    @ready.setter
    def ready(self, value: bool) -> None:
        self.live_status.ready = value

    @property
    def last_status(self) -> IndexStatus | None:
        return self.live_status.last_status

    @property
    def error_notice(self) -> QMessageBox | None:
        return self.live_status.error_notice

    def start_live_index(self) -> None:
        self._index_waits_for_paint = False
        self.live_status.start()

    def add_folder(self, folder: Path | None = None) -> None:
        self.live_status.add_folder(folder)

    def forget_folder(self, folder: Path) -> None:
        self.live_status.forget_folder(folder)

    def open_sample_notes(self) -> None:

        self.add_folder(user_sample_notes(self.quire.home))

    def refresh_status(self) -> None:
        self.live_status.refresh_status()

    def failed(self, message: str) -> None:
        first, _, details = message.partition("\n\n")
        show_error(self, f"Something went wrong: {first}", details)

    def show_data_folder(self) -> None:
        """Database, settings, logs, crash reports and conversations all live here."""

        QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.quire.home)))

    # -- settings --------------------------------------------------------------------------------
    def open_settings(self) -> SettingsDialog:
        dialog = SettingsDialog(self.quire.settings, self, memory=self.quire.memory)
        dialog.accepted.connect(lambda: self.apply_settings(dialog.chosen()))
        dialog.open()
        return dialog

    def open_models(self) -> SettingsDialog:
        """Settings at its Models tab: the offer of a better model, followed."""
        dialog = self.open_settings()
        dialog.tabs.setCurrentWidget(dialog.models_page)
        return dialog

    def set_ocr_in(self, folder: Path, on: bool) -> None:
        """One folder's OCR switch (its menu in the Folders list)."""
        self.quire.set_ocr_in(folder, on)
        self.live_status.refresh_status()

    def apply_settings(self, settings: Settings) -> None:

        changed = self.quire.apply_settings(settings)  # the live index starts over if need be
        app = QApplication.instance()
        if isinstance(app, QApplication):  # typed as its QCoreApplication base
            apply_theme(app, settings.theme)
        self.sources.refresh()  # its highlight colours follow the theme
        if not changed or self.quire.live.index is None:
            return
        self.ready = False
        if "embedding model" in changed:
            self.statusBar().showMessage(
                "Embedding model changed: every passage is embedded again in the background. "
                "Keyword search works meanwhile."
            )
        else:
            self.statusBar().showMessage("Passage size changed: reading every note again…")

    # -- conversations, search, the viewer -------------------------------------------------------
    @property
    def conversations(self) -> QListWidget:
        return self.conversations_pane.list

    @property
    def conversation_notice(self) -> QLabel:
        return self.conversations_pane.notice

    def _open_conversation(self, item: QListWidgetItem) -> None:
        self.conversations_pane.open_item(item)

    def _show_conversation(self, conversation: Conversation) -> None:
        self.tabs.setCurrentWidget(self.chat)
        self.chat.open_conversation(conversation)

    def _conversation_deleted(self, conversation_id: str) -> None:
        if self.chat.conversation.id == conversation_id:
            self.chat.new_chat()

    @property
    def query(self) -> QLineEdit:
        return self.search_tab.query

    @property
    def results(self) -> QListWidget:
        return self.search_tab.results

    def search(self) -> None:
        self.search_tab.search()

    def _focus_search(self) -> None:
        self.tabs.setCurrentIndex(1)
        self.search_tab.focus()

    def _answer_activity(self, text: str) -> None:
        if text:
            self.statusBar().showMessage(text)
        else:
            self.statusBar().clearMessage()
            self.refresh_status()

    def _answered(self, done: Done) -> None:
        self.sources.mark_cited(done.cited)

    def open_source(self, source: Passage | Evidence | SearchResult) -> None:
        folder, path = Path(source.folder), source.path
        self.open_passage(
            folder, path, source.start, source.end, source.line_start, source.line_end
        )

    def open_passage(
        self, folder: Path, path: str, start: int, end: int, line_start: int, line_end: int
    ) -> None:
        self.viewer.open_passage(folder, path, start, end, line_start, line_end)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.chat.stop()
        self.search_tab.cancel()
        self.live_status.stop(timeout=5.0)
        super().closeEvent(event)
