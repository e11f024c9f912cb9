"""The one way the window runs work off the GUI thread.

`run_in_background(fn, ...)` calls `fn(progress=..., cancel=...)` on a pool thread and
delivers progress, the result or the error back on the GUI thread, in order.

Values cross threads through `GuiQueue`: producers append to a deque, and at most one queued
wake-up signal (carrying no Python object) is in flight however fast they produce. A signal per
value by the ten thousand floods the event loop, and with PySide6 6.12 on Python 3.11 it
corrupted the reference count of `True` until the interpreter aborted.
"""

from __future__ import annotations

import threading
import traceback
from collections import deque
from collections.abc import Callable
from enum import Enum, auto
from typing import Any, NamedTuple

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from desktop_app.core.api import Cancelled, CancelToken

ProgressFn = Callable[[Any], None]  # what a background job calls with each event


class _Wake(QObject):
    """Lives on the GUI thread, so a wake-up emitted by any other thread is queued to it."""

    wake = Signal()

    def __init__(self, drain: Callable[[], None], parent: QObject | None) -> None:
        super().__init__(parent)
        self._drain = drain
        self.wake.connect(self.drain)

    @Slot()
    def drain(self) -> None:
        self._drain()


class GuiQueue:
    """Any thread calls `put(value)`; `callback(value)` then runs on the GUI thread, in order,
    drained in batches. With `latest_only`, values not yet delivered are replaced by the newest
    (progress: only the current count matters). Calls after `owner` is destroyed are dropped."""

    def __init__(
        self,
        callback: Callable[[Any], None],
        owner: QObject | None = None,
        latest_only: bool = False,
    ) -> None:
        self._callback = callback
        self._latest_only = latest_only
        self._items: deque[Any] = deque()
        self._lock = threading.Lock()
        self._wake_pending = False
        self._closed = False
        self._waker = _Wake(self._drain, owner)
        self._waker.destroyed.connect(self._close)

    def put(self, value: Any) -> None:
        with self._lock:
            if self._closed:
                return
            if self._latest_only:
                self._items.clear()
            self._items.append(value)
            if self._wake_pending:
                return
            self._wake_pending = True
        try:
            self._waker.wake.emit()
        except RuntimeError:  # the owner (and its waker) is gone: nobody is listening any more
            self._close()

    def _close(self, *_: object) -> None:
        with self._lock:
            self._closed = True
            self._items.clear()

    def _drain(self) -> None:
        with self._lock:
            items = list(self._items)
            self._items.clear()
            self._wake_pending = False
        for value in items:
            self._callback(value)


_running: set[GuiQueue] = set()


class Step(Enum):
    """What a background job reports to the GUI thread."""

    PROGRESS = auto()  # a value the job passed to `progress` (an answer event, a count…)
    DONE = auto()  # its result
    FAILED = auto()  # the error that ended it, with its traceback
    END = auto()  # nothing more will come


class JobReport(NamedTuple):
    step: Step
    value: Any = None


class _Job(QRunnable):
    def __init__(self, fn: Callable[..., Any], events: GuiQueue, cancel: CancelToken) -> None:
        super().__init__()
        self.fn, self.events, self.cancel = fn, events, cancel

    def run(self) -> None:
        def progress(value: Any) -> None:
            self.events.put(JobReport(Step.PROGRESS, value))

        try:
            result = self.fn(progress=progress, cancel=self.cancel)
        except Cancelled:
            pass
        except Exception as exc:
            detail = "".join(traceback.format_exception(exc))
            self.events.put(JobReport(Step.FAILED, f"{exc}\n\n{detail}"))
        else:
            if not self.cancel.cancelled:
                self.events.put(JobReport(Step.DONE, result))
        finally:
            self.events.put(JobReport(Step.END))


class Task:
    """A running background job: cancel it, and its late results are dropped."""

    def __init__(self, events: GuiQueue, cancel: CancelToken) -> None:
        self.events, self.token = events, cancel

    def cancel(self) -> None:
        self.token.cancel()


def run_in_background(
    fn: Callable[..., Any],
    on_done: Callable[[Any], None] | None = None,
    on_error: Callable[[str], None] | None = None,
    on_progress: Callable[[Any], None] | None = None,
    pool: QThreadPool | None = None,
) -> Task:
    cancel = CancelToken()
    handlers = {Step.DONE: on_done, Step.FAILED: on_error, Step.PROGRESS: on_progress}

    def deliver(report: JobReport) -> None:
        if report.step == Step.END:
            _running.discard(events)
            return
        handler = handlers[report.step]
        if handler is not None and not cancel.cancelled and _receiver_alive(handler):
            handler(report.value)  # a cancelled task's events, or a deleted widget's, never arrive

    events = GuiQueue(deliver)
    _running.add(events)  # kept alive until its last event is delivered, even if the Task is not
    (pool or QThreadPool.globalInstance()).start(_Job(fn, events, cancel))
    return Task(events, cancel)


def _receiver_alive(handler: Callable[[Any], None]) -> bool:
    """False when `handler` is a method of a widget whose C++ object Qt already deleted."""
    owner = getattr(handler, "__self__", None)
    return not isinstance(owner, QObject) or shiboken6.isValid(owner)


def on_gui_thread(
    callback: Callable[[Any], None], owner: QObject, latest_only: bool = False
) -> Callable[[Any], None]:
    """A function any thread may call; `callback` then runs on the GUI thread. Calls stop
    when `owner` is destroyed (core callbacks, e.g. the live index's, outlive no window)."""
    return GuiQueue(callback, owner, latest_only).put
