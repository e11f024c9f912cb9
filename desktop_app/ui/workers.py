"""The one way the window runs work off the GUI thread.

`run_in_background(fn, ...)` calls `fn(progress=..., cancel=...)` on a pool thread and
delivers progress, the result or the error back on the GUI thread through Qt signals.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from desktop_app.core.cancel import Cancelled, CancelToken


class _Signals(QObject):
    progress = Signal(object)
    done = Signal(object)
    failed = Signal(str)


class _Job(QRunnable):
    def __init__(self, fn: Callable[..., Any], signals: _Signals, cancel: CancelToken) -> None:
        super().__init__()
        self.fn, self.signals, self.cancel = fn, signals, cancel

    def run(self) -> None:
        try:
            result = self.fn(progress=self.signals.progress.emit, cancel=self.cancel)
        except Cancelled:
            return
        except Exception as exc:
            detail = "".join(traceback.format_exception(exc))
            self.signals.failed.emit(f"{exc}\n\n{detail}")
            return
        if not self.cancel.cancelled:
            self.signals.done.emit(result)


class Task:
    """A running background job: cancel it, and its late results are dropped."""

    def __init__(self, signals: _Signals, cancel: CancelToken) -> None:
        self.signals, self.token = signals, cancel

    def cancel(self) -> None:
        self.token.cancel()


def _unless_cancelled(
    cancel: CancelToken, callback: Callable[[Any], None]
) -> Callable[[Any], None]:
    def deliver(value: Any) -> None:
        if not cancel.cancelled:  # a cancelled task's queued signals never reach the view
            callback(value)

    return deliver


def run_in_background(
    fn: Callable[..., Any],
    on_done: Callable[[Any], None] | None = None,
    on_error: Callable[[str], None] | None = None,
    on_progress: Callable[[Any], None] | None = None,
    pool: QThreadPool | None = None,
) -> Task:
    signals = _Signals()
    cancel = CancelToken()
    for signal, callback in (
        (signals.done, on_done),
        (signals.failed, on_error),
        (signals.progress, on_progress),
    ):
        if callback is not None:
            signal.connect(_unless_cancelled(cancel, callback))
    (pool or QThreadPool.globalInstance()).start(_Job(fn, signals, cancel))
    return Task(signals, cancel)


class _Relay(QObject):
    delivered = Signal(object)


def on_gui_thread(callback: Callable[[Any], None], owner: QObject) -> Callable[[Any], None]:
    """A function any thread may call; `callback` then runs on the GUI thread. Calls stop
    when `owner` is destroyed (core callbacks, e.g. the live index's, outlive no window)."""
    relay = _Relay(owner)
    relay.delivered.connect(callback)
    return relay.delivered.emit
