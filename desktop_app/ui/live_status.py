"""The window's controller for the live index: folders added and removed, pause, progress, and
the status (counts, files, readiness) read off the GUI thread after each burst of changes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QFileDialog, QMessageBox

from desktop_app.core.service import (
    CancelToken,
    Change,
    ChangeKind,
    IndexStatus,
    Progress,
    Watching,
)
from desktop_app.ui.dialogs import show_error
from desktop_app.ui.workers import ProgressFn, Task, on_gui_thread, run_in_background

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow

REFRESH_MS = 300  # status refreshes are coalesced: a burst of changes costs one query
PROGRESS_MS = 100
BUSY_REFRESH_MS = 1000  # while indexing or embedding runs, counts are re-read this often


class LiveController(QObject):
    def __init__(self, win: MainWindow) -> None:
        super().__init__(win)
        self.win, self.service = win, win.service
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
        self.win.pages.setCurrentWidget(self.win.main_page)
        watching = Watching(
            on_change=on_gui_thread(self._changed, self),
            progress=on_gui_thread(self._progress, self, latest_only=True),
        )
        self.service.start_live(watching)
        self._progress_timer.start()
        self.win.statusBar().showMessage("Looking for new and changed notes…")
        self.refresh_status()

    def add_folder(self, folder: Path | None = None) -> None:
        if folder is None:
            chosen = QFileDialog.getExistingDirectory(self.win, "Add a notes folder")
            if not chosen:
                return
            folder = Path(chosen)
        if not self.service.watch(folder):
            return
        self.ready = False
        if self.service.live is None:
            self.start()
        else:
            self.refresh_status()

    def remove_folder(self, folder: Path) -> None:
        answer = QMessageBox.question(
            self.win,
            "Remove folder",
            f"Stop using {folder}?\nIts notes leave Quire's index; the files stay untouched.",
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.forget_folder(folder)

    def forget_folder(self, folder: Path) -> None:
        self.service.unwatch(folder)  # its indexing thread drops it, then reports back
        self.refresh_status()

    def set_paused(self, paused: bool) -> None:
        if self.service.live is None:
            return
        if paused:
            self.service.pause()
            self.win.progress_bar.hide()
            self.win.statusBar().showMessage("Indexing paused — search and answers still work")
        else:
            self.service.resume()

    def stop(self, timeout: float = 10.0) -> None:
        if self._status_task is not None:
            self._status_task.cancel()  # its late result must not reach a closed window
        self.service.stop_live(timeout)

    # -- what the live index reports ---------------------------------------------------------
    def _changed(self, change: Change) -> None:
        if change.kind == ChangeKind.ERROR:  # also in errors.log; indexing goes on
            self.win.statusBar().showMessage(str(change))
            if self.error_notice is None or not self.error_notice.isVisible():
                self.error_notice = show_error(
                    self.win, f"Indexing hit a problem and goes on:\n{change.detail}"
                )
        elif change.kind in (ChangeKind.FAILED, ChangeKind.NOTICE, ChangeKind.WARNING):
            self.win.statusBar().showMessage(str(change), 8000)
        if not self._refresh_timer.isActive():
            self._refresh_timer.start(REFRESH_MS)

    def _progress(self, progress: Progress) -> None:
        self._latest_progress = progress  # shown by a timer: thousands of files, few repaints

    def _show_progress(self) -> None:
        p, self._latest_progress = self._latest_progress, None
        if p is None or self.service.paused:
            return
        bar = self.win.progress_bar
        if p.done >= p.total:
            bar.hide()
            return
        self.ready = False
        bar.show()
        bar.setMaximum(max(p.total, 1))
        bar.setValue(p.done)
        if p.phase == "embed":
            text = f"Computing vectors {p.done}/{p.total} — keyword search already works"
        elif p.phase == "parts":
            text = f"Preparing passages {p.done}/{p.total} — keyword search already works"
        else:
            text = f"Reading notes {p.done}/{p.total}  {p.detail}"
        self.win.statusBar().showMessage(text)

    # -- status ----------------------------------------------------------------------------------
    def refresh_status(self) -> None:
        """Read the index status off the GUI thread, then update folders, files and readiness."""
        if self._status_task is not None:
            self._status_task.cancel()
        service, live = self.service, self.service.live

        def query(progress: ProgressFn, cancel: CancelToken) -> tuple[bool, IndexStatus]:
            busy = live is None or live.busy  # read first: the query below is never older
            return busy, service.status(check_integrity=False)

        self._status_task = run_in_background(
            query, on_done=self._status_ready, on_error=self.win.failed
        )

    def _status_ready(self, result: tuple[bool, IndexStatus]) -> None:
        busy, status = result
        self.last_status = status
        self.win.folders_panel.show_folders(self.service.folders, status.files)
        self.win.files.show_status(status)
        counts = status.counts
        if self.service.paused:
            return
        if busy or counts.pending_embedding:
            if not self._refresh_timer.isActive():
                self._refresh_timer.start(BUSY_REFRESH_MS)  # the workers are still going
            return
        self.ready = True
        self.win.progress_bar.hide()
        if self.win.chat.answering:
            return  # the status bar says what the answer waits for, not "Ready"
        problems = counts.skipped + counts.failed
        extra = f" · {problems} skipped or failed (see Files)" if problems else ""
        self.win.statusBar().showMessage(
            f"Ready — {counts.notes} notes, {counts.chunks} passages{extra}"
        )
