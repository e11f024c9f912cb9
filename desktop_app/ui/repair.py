"""The window's side of a damaged index: report a replaced index once, repair on demand (the
menu), and repair when a search runs into the damage. Functions of the main window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop_app.core.service import CancelToken, Recovery
from desktop_app.ui.dialogs import show_info
from desktop_app.ui.workers import ProgressFn, run_in_background

if TYPE_CHECKING:
    from desktop_app.core.service import Health
    from desktop_app.ui.main_window import MainWindow


def report_recovery(win: MainWindow) -> None:
    """Once: the index was damaged and replaced; the live index rebuilds it meanwhile."""
    recovery = win.service.take_recovery()
    if recovery is None:
        return
    win.recovery_reports.append(recovery.message)
    win.statusBar().showMessage(recovery.message, 15000)
    win.recovery_box = show_info(win, recovery.message, "\n".join(recovery.problems))


def repair_index(win: MainWindow, problems: list[str] | None = None) -> None:
    """The full check, then, if damaged (or `problems` are already known), a fresh index that
    the live index fills again from the folders."""
    win.service.stop_live(timeout=10.0)
    win.ready = False
    win.statusBar().showMessage("Checking the index…")
    service = win.service

    def work(progress: ProgressFn, cancel: CancelToken) -> Recovery | None:
        return service.recover(problems) if problems else service.repair()[1]

    def done(recovery: Recovery | None) -> None:
        win.repaired = recovery or "healthy"
        if win.folders:
            win.start_live_index()
        if recovery is None:
            win.statusBar().showMessage("The index is healthy: nothing to repair.", 8000)
        else:
            report_recovery(win)

    win.repair_task = run_in_background(work, on_done=done, on_error=win.failed)


def check_in_background(win: MainWindow) -> None:
    """After an open that ran only the cheap check (a large index), the quick one, off the GUI
    thread; damage found goes the same way as damage found on open."""

    def found(health: Health) -> None:
        if not health.ok:
            repair_index(win, health.problems)

    win.check_task = run_in_background(
        lambda progress, cancel: win.service.check("quick"), on_done=found, on_error=win.failed
    )
