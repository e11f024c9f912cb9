"""The window's controller for the live index: folders added and removed, pause, progress, and
the status (counts, folders, files while the Files view shows them, readiness) read off the GUI
thread after each burst of changes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from desktop_app.core.api import (
    CancelToken,
    Change,
    ChangeKind,
    IndexStatus,
    Phase,
    Progress,
    Quire,
    Watching,
)
from desktop_app.ui.dialogs import show_error
from desktop_app.ui.workers import ProgressFn, Task, on_gui_thread, run_in_background

REFRESH_MS = 300  # status refreshes are coalesced: a burst of changes costs one query
PROGRESS_MS = 100
BUSY_REFRESH_MS = 1000  # while indexing or embedding runs, counts are re-read this often


class LiveController(QObject):
    """Tells the window what to show through its signals; never touches the window's widgets."""

    started = Signal()  # the folders are live: the main page replaces the welcome page
    message = Signal(str, int)  # status-bar text and how long it stays (ms; 0: until replaced)
    progress_changed = Signal(int, int)  # done, total; a total of 0 hides the progress bar
    # the index status after each refresh: counts and folders, and every file while shown
    status_read = Signal(object)
    failed = Signal(str)

    def __init__(
        self,
        quire: Quire,
        parent: QWidget,
        answering: Callable[[], bool],
        files_shown: Callable[[], bool],
    ) -> None:
        super().__init__(parent)
        self.quire, self._parent, self._answering = quire, parent, answering
        self._files_shown = files_shown  # whether a refresh lists every file (the Files view)
        self.ready = False
        self.last_status: IndexStatus | None = None
        self.error_notice: QMessageBox | None = None  # a background error (one box at a time)
        self._status_task: Task | None = None
        self._latest_progress: Progress | None = None
        self._refresh_timer = QTimer(self, singleShot=True, interval=REFRESH_MS)
        self._refresh_timer.timeout.connect(self.refresh_status)
        self._progress_timer = QTimer(self, interval=PROGRESS_MS)
        self._progress_timer.timeout.connect(self._show_progress)

    # -- folders -------------------------------------------------------------------------------
    def start(self) -> None:
        self.started.emit()
        watching = Watching(
            on_change=on_gui_thread(self._changed, self),
            progress=on_gui_thread(self._progress, self, latest_only=True),
        )
        self.quire.live.start(watching)
        self._progress_timer.start()
        self.message.emit("Looking for new and changed notes…", 0)
        self.refresh_status()

    def add_folder(self, folder: Path | None = None) -> None:
        if folder is None:
            chosen = QFileDialog.getExistingDirectory(self._parent, "Add a notes folder")
            if not chosen:
                return
            folder = Path(chosen)
        if not self.quire.live.watch(folder):
            return
        self.ready = False
        if self.quire.live.index is None:
            self.start()
        else:
            self.refresh_status()

    def remove_folder(self, folder: Path) -> None:
        answer = QMessageBox.question(
            self._parent,
            "Remove folder",
            f"Stop using {folder}?\nIts notes leave Quire's index; the files stay untouched.",
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.forget_folder(folder)

    def forget_folder(self, folder: Path) -> None:
        self.quire.live.unwatch(folder)  # its indexing thread drops it, then reports back
        self.refresh_status()

    def set_paused(self, paused: bool) -> None:
        if self.quire.live.index is None:
            return
        if paused:
            self.quire.live.pause()
            self.progress_changed.emit(0, 0)
            self.message.emit("Indexing paused — search and answers still work", 0)
        else:
            self.quire.live.resume()

    def stop(self, timeout: float = 10.0) -> None:
        if self._status_task is not None:
            self._status_task.cancel()  # its late result must not reach a closed window
        self.quire.live.stop(timeout)

    # -- what the live index reports ---------------------------------------------------------
    def _changed(self, change: Change) -> None:
        if change.kind == ChangeKind.ERROR:  # also in errors.log; indexing goes on
            self.message.emit(str(change), 0)
            if self.error_notice is None or not self.error_notice.isVisible():
                self.error_notice = show_error(
                    self._parent, f"Indexing hit a problem and goes on:\n{change.detail}"
                )
        elif change.kind in (ChangeKind.FAILED, ChangeKind.NOTICE, ChangeKind.WARNING):
            self.message.emit(str(change), 8000)
        if not self._refresh_timer.isActive():
            self._refresh_timer.start(REFRESH_MS)

    def _progress(self, progress: Progress) -> None:
        self._latest_progress = progress  # shown by a timer: thousands of files, few repaints

    def _show_progress(self) -> None:
        p, self._latest_progress = self._latest_progress, None
        if p is None or self.quire.live.paused:
            return
        if p.done >= p.total:
            self.progress_changed.emit(0, 0)
            return
        self.ready = False
        self.progress_changed.emit(p.done, max(p.total, 1))
        if p.phase == Phase.EMBED:
            text = f"Computing vectors {p.done}/{p.total} — keyword search already works"
        elif p.phase == Phase.OCR:
            text = f"Reading {p.detail} by OCR: page {p.done} of {p.total}"
        elif p.phase == Phase.PARTS:
            text = f"Preparing passages {p.done}/{p.total} — keyword search already works"
        else:
            text = f"Reading notes {p.done}/{p.total}  {p.detail}"
        self.message.emit(text, 0)

    # -- status ----------------------------------------------------------------------------------
    def refresh_status(self) -> None:
        """Read the index status off the GUI thread, then update folders, files and readiness."""
        if self._status_task is not None:
            self._status_task.cancel()
        quire, live = self.quire, self.quire.live.index
        # a row per file is Python work beside the event loop: only for a Files view shown
        list_files = self._files_shown()

        def query(progress: ProgressFn, cancel: CancelToken) -> tuple[bool, IndexStatus]:
            busy = live is None or live.busy  # read first: the query below is never older
            return busy, quire.status(check_integrity=False, list_files=list_files)

        self._status_task = run_in_background(
            query, on_done=self._status_ready, on_error=self.failed.emit
        )

    def _status_ready(self, result: tuple[bool, IndexStatus]) -> None:
        busy, status = result
        self.last_status = status
        self.status_read.emit(status)
        counts = status.counts
        if self.quire.live.paused:
            return
        if busy or counts.pending_embedding:
            if not self._refresh_timer.isActive():
                self._refresh_timer.start(BUSY_REFRESH_MS)  # the workers are still going
            return
        self.ready = True
        self.progress_changed.emit(0, 0)
        if self._answering():
            return  # the status bar says what the answer waits for, not "Ready"
        problems = counts.skipped + counts.failed
        extra = f" · {problems} skipped or failed (see Files)" if problems else ""
        self.message.emit(f"Ready — {counts.notes} notes, {counts.chunks} passages{extra}", 0)
