"""The window's side of a damaged index: report a replaced index once, repair on demand (the
menu), and repair when a search runs into the damage. Tells the window through its signals."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from desktop_app.core.api import CancelToken, Health, Quire, Recovery
from desktop_app.ui.workers import ProgressFn, Task, run_in_background


class RepairController(QObject):
    repair_started = Signal()  # the live index is stopped: the window is not ready
    message = Signal(str, int)  # status-bar text and how long it stays (ms)
    recovered = Signal(str, str)  # the index was replaced: what happened, and the problems found
    repaired = Signal(object)  # a repair's outcome (a Recovery, or the Health found): live again
    failed = Signal(str)

    def __init__(self, quire: Quire, parent: QObject) -> None:
        super().__init__(parent)
        self.quire = quire
        self.repair_task: Task | None = None
        self.check_task: Task | None = None

    def report_recovery(self) -> None:
        """Once: the index was damaged and replaced; the live index rebuilds it meanwhile."""
        recovery = self.quire.repair.take_recovery()
        if recovery is not None:
            self.recovered.emit(recovery.message, "\n".join(recovery.problems))

    def repair_index(self, problems: list[str] | None = None) -> None:
        """The full check, then, if damaged (or `problems` are already known), a fresh index
        that the live index fills again from the folders."""
        quire = self.quire
        quire.live.stop(timeout=10.0)
        self.repair_started.emit()
        self.message.emit("Checking the index…", 0)

        def work(progress: ProgressFn, cancel: CancelToken) -> Recovery | Health:
            if problems:
                return quire.repair.recover(problems)
            health, recovery = quire.repair.run()
            return recovery or health

        def done(outcome: Recovery | Health) -> None:
            self.repaired.emit(outcome)
            if isinstance(outcome, Health):
                self.message.emit("The index is healthy: nothing to repair.", 8000)
            else:
                self.report_recovery()

        self.repair_task = run_in_background(work, on_done=done, on_error=self.failed.emit)

    def check_in_background(self) -> None:
        """After an open that ran only the cheap check (a large index), the quick one, off the
        GUI thread; damage found goes the same way as damage found on open."""

        def found(health: Health) -> None:
            if not health.ok:
                self.repair_index(health.problems)

        self.check_task = run_in_background(
            lambda progress, cancel: self.quire.repair.check("quick"),
            on_done=found,
            on_error=self.failed.emit,
        )
