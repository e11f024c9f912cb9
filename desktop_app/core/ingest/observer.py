"""The watchdog side of live indexing: what an indexing run changed (as `Change` events), the
observer (native, or polling on network drives and when the OS limit of watches is reached),
and the per-path debounce (editors write several times per save)."""

from __future__ import annotations

import errno
import heapq
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from desktop_app.core.events import Change, ChangeKind
from desktop_app.core.ingest import formats
from desktop_app.core.store.note_status import NoteStatus

PARSED_QUIET_SECONDS = 2.0

if TYPE_CHECKING:
    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers.api import BaseObserver, ObservedWatch

    from desktop_app.core.ingest.writer import IndexReport

_NETWORK_FS = {"nfs", "nfs4", "cifs", "smb3", "smbfs", "fuse.sshfs", "9p", "afs", "davfs"}


_PROBLEM_KINDS = {NoteStatus.SKIPPED: ChangeKind.SKIPPED, NoteStatus.FAILED: ChangeKind.FAILED}


def report_changes(report: IndexReport) -> Iterator[Change]:
    """What an indexing run did, one Change a file: its problems (a warning for a file indexed
    all the same), then the notes indexed and removed."""
    for path, status, reason in report.problems:
        yield Change(_PROBLEM_KINDS.get(status, ChangeKind.WARNING), path, reason)
    for path in report.changed_paths:
        yield Change(ChangeKind.INDEXED, path)
    for path in report.removed_paths:
        yield Change(ChangeKind.REMOVED, path)


class EventSink(Protocol):
    """Who hears the file events (the LiveIndex)."""

    def event(
        self, kind: str, src: str | bytes, dest: str | bytes | None, is_directory: bool
    ) -> None: ...


class Debouncer:
    """Collects paths and releases each one after it has been quiet for `delay` seconds."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self._due: dict[tuple[Path, str], float] = {}
        self._heap: list[tuple[float, Path, str]] = []
        self._cond = threading.Condition()

    def touch(self, folder: Path, rel: str) -> None:
        with self._cond:
            due = time.monotonic() + self.quiet_for(rel)
            self._due[(folder, rel)] = due
            heapq.heappush(self._heap, (due, folder, rel))
            self._cond.notify()

    def quiet_for(self, rel: str) -> float:
        """A viewer re-saving a PDF or a Word file writes it in pieces seconds apart, and
        extracting it costs more than re-reading a text note: such files wait longer."""
        if formats.suffix_of(rel) in formats.ISOLATED:
            return max(self.delay, PARSED_QUIET_SECONDS)
        return self.delay

    def wake(self) -> None:
        with self._cond:
            self._cond.notify()

    def take_due(self, timeout: float) -> list[tuple[Path, str]]:
        """Wait up to `timeout` for paths whose quiet period is over."""
        with self._cond:
            deadline = time.monotonic() + timeout
            while True:
                now = time.monotonic()
                ready = []
                while self._heap and self._heap[0][0] <= now:
                    due, folder, rel = heapq.heappop(self._heap)
                    if self._due.get((folder, rel)) == due:  # not touched again since
                        del self._due[(folder, rel)]
                        ready.append((folder, rel))
                if ready or now >= deadline:
                    return ready
                wait = min(deadline, self._heap[0][0] if self._heap else deadline) - now
                self._cond.wait(max(0.001, wait))


class Handler:
    """A watchdog event handler that forwards every event to the LiveIndex (the watch asks only
    for those that can change the index: `_changes_only`)."""

    def __init__(self, sink: EventSink) -> None:
        self.sink = sink

    def dispatch(self, event: FileSystemEvent) -> None:
        dest = getattr(event, "dest_path", "") or None
        self.sink.event(event.event_type, event.src_path, dest, event.is_directory)


class Watches:
    """The observer and one watch per folder."""

    def __init__(self, handler: Handler, force_polling: bool, notice: Callable[[str], None]):
        self.handler = handler
        self.force_polling = force_polling
        self.notice = notice
        self.observer: BaseObserver | None = None
        self.polling = False
        self._watches: dict[Path, ObservedWatch] = {}
        # start() runs on the indexing thread; add, remove and stop come from the caller's
        self._lock = threading.Lock()
        self._stopped = False

    @property
    def _handler(self) -> FileSystemEventHandler:
        return cast("FileSystemEventHandler", self.handler)  # watchdog only calls dispatch()

    def start(self, folders: Callable[[], Iterable[Path]]) -> None:
        """Watch `folders()` natively; by polling on a network drive or when the OS runs out of
        watches. Once: not again after a start or a stop. It runs on the indexing thread,
        before its first scan, since a native watch walks every subfolder to add it."""
        with self._lock:
            if self.observer is None and not self._stopped:
                self._start_first(list(folders()))

    def _start_first(self, folders: list[Path]) -> None:
        from watchdog.observers import Observer
        from watchdog.observers.polling import PollingObserver

        if not (self.force_polling or any(_on_network_drive(f) for f in folders)):
            observer = Observer()
            try:
                self._start(observer, folders)
                return
            except OSError as exc:
                self.notice(f"falling back to polling: {_watch_limit_reason(exc)}")
                observer.stop()
        else:
            self.notice("watching by polling (network drive or polling requested)")
        self.polling = True
        self._watches.clear()
        self._start(PollingObserver(timeout=1.0), folders)

    def _start(self, observer: BaseObserver, folders: list[Path]) -> None:
        for folder in folders:
            self._watches[folder] = self._schedule(observer, folder)
        self.observer = observer  # first: a stop that interrupts the start still ends its threads
        observer.start()

    def add(self, folder: Path) -> None:
        """Watch one more folder (a start still to come watches it with the others)."""
        with self._lock:
            if self.observer is not None:
                self._watches[folder] = self._schedule(self.observer, folder)

    def _schedule(self, observer: BaseObserver, folder: Path) -> ObservedWatch:
        return observer.schedule(
            self._handler, str(folder), recursive=True, event_filter=_changes_only()
        )

    def remove(self, folder: Path) -> None:
        with self._lock:
            watch = self._watches.pop(folder, None)
            if watch is not None and self.observer is not None:
                self.observer.unschedule(watch)

    def stop(self, timeout: float | None) -> None:
        with self._lock:
            self._stopped = True
            observer = self.observer
        if observer is not None:
            observer.stop()
            if observer.is_alive():  # not if its start was interrupted before it ran
                observer.join(timeout)


def _changes_only() -> list[type[FileSystemEvent]]:
    """The events that can change the index. Without a filter the kernel also reports every
    open and every read-only close: each note Quire (or any program) reads would be two more
    events for watchdog's threads to parse in the window's process."""
    from watchdog import events as e

    return [
        e.FileCreatedEvent,
        e.FileModifiedEvent,
        e.FileDeletedEvent,
        e.FileMovedEvent,
        e.FileClosedEvent,  # written and closed
        e.DirCreatedEvent,
        e.DirDeletedEvent,
        e.DirMovedEvent,
    ]


def _watch_limit_reason(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "the system's limit of watched folders is reached (inotify max_user_watches)"
    if exc.errno == errno.EMFILE:
        return "too many open files (inotify max_user_instances)"
    return str(exc)


def _on_network_drive(folder: Path) -> bool:
    """Linux: look the folder's mount up in /proc/mounts; elsewhere assume local."""
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return False
    best, fstype = "", ""
    target = str(folder)
    for line in mounts:
        fields = line.split()
        if len(fields) < 3 or len(fields[1]) <= len(best):
            continue
        if target == fields[1] or target.startswith(fields[1].rstrip("/") + "/"):
            best, fstype = fields[1], fields[2]
    return fstype in _NETWORK_FS
