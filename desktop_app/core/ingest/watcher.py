"""Keep the index true to the folders while Quire runs.

watchdog events → per-path debounce (editors write several times per save) → one lexical
worker that re-indexes just those notes → an embedding worker that follows in the background.
A reconcile pass (the same cheap size/mtime/hash walk as `quire index`) runs at start and
periodically, so edits made while Quire was closed or events the OS dropped are caught too.
"""

from __future__ import annotations

import errno
import heapq
import os
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_app.core import names
from desktop_app.core.cancel import Cancelled, CancelToken, ProgressCallback, no_progress
from desktop_app.core.ingest import indexer, loaders
from desktop_app.core.ingest.recovery import FullDiskRetry, supervised
from desktop_app.core.store.db import DiskFull

DEBOUNCE_SECONDS = 0.25
RECONCILE_SECONDS = 300.0
_NETWORK_FS = {"nfs", "nfs4", "cifs", "smb3", "smbfs", "fuse.sshfs", "9p", "afs", "davfs"}


@dataclass(frozen=True)
class Change:
    """One line of what happened, for `quire watch` and the window's status."""

    # "indexed", "removed", "moved", "skipped", "failed", "warning", "embedded", "notice",
    # "error", and the quiet ones (QUIET_KINDS) the window uses to know when work is done
    kind: str
    path: str = ""
    detail: str = ""

    def __str__(self) -> str:
        """One line, whatever the note's name holds (newlines, undecodable bytes)."""
        return " ".join(names.printable(x) for x in (self.kind, self.path, self.detail) if x)


ChangeCallback = Callable[[Change], None]
QUIET_KINDS = frozenset({"scanned", "caught-up"})


class _Debouncer:
    """Collects paths and releases each one after it has been quiet for `delay` seconds."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self._due: dict[tuple[Path, str], float] = {}
        self._heap: list[tuple[float, Path, str]] = []
        self._cond = threading.Condition()

    def touch(self, folder: Path, rel: str) -> None:
        with self._cond:
            due = time.monotonic() + self.delay
            self._due[(folder, rel)] = due
            heapq.heappush(self._heap, (due, folder, rel))
            self._cond.notify()

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


class LiveIndex:
    """Watches folders and keeps their index live. `start()` reconciles first, then watches."""

    def __init__(
        self,
        service: Any,
        folders: list[Path],
        on_change: ChangeCallback = lambda _: None,
        debounce: float = DEBOUNCE_SECONDS,
        reconcile_every: float = RECONCILE_SECONDS,
        force_polling: bool = False,
        progress: ProgressCallback = no_progress,
    ) -> None:
        self.service = service
        self.folders = [f.resolve() for f in folders]
        self.on_change = on_change
        self.progress = progress
        self.reconcile_every = reconcile_every
        self.force_polling = force_polling
        self.polling = False
        self._debouncer = _Debouncer(debounce)
        self._moves: list[tuple[Path, str, str]] = []
        self._removals: list[Path] = []
        self._queue_lock = threading.Lock()
        self._rescan = threading.Event()
        self._embed_needed = threading.Event()
        self._stop = CancelToken()
        self._work = CancelToken()  # cancelled by pause() or stop(); replaced on resume()
        self._running = threading.Event()  # cleared while paused
        self._running.set()
        self._threads: list[threading.Thread] = []
        self._observer: Any = None
        self._watches: dict[Path, Any] = {}
        self.idle = threading.Event()  # set whenever no lexical work is queued
        self.embedding = threading.Event()  # set while an embedding pass runs
        self.full_disk = FullDiskRetry()

    # -- lifecycle -----------------------------------------------------------------------
    def start(self, reconcile: bool = True) -> None:
        self._observer = self._start_observer()
        if reconcile:
            self._rescan.set()
        self._embed_needed.set()
        for target, name in (
            (self._lexical_loop, "quire-index"),
            (self._embed_loop, "quire-embed"),
        ):
            run = supervised(target, self._stop, lambda exc, n=name: self._restarted(n, exc))
            thread = threading.Thread(target=run, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.cancel()
        self._work.cancel()
        self._running.set()
        self._debouncer.wake()
        self._embed_needed.set()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout)
        for thread in self._threads:
            thread.join(timeout)

    def reconcile_now(self) -> None:
        """Ask for a full (cheap) comparison with the disk, e.g. after events were dropped."""
        self._rescan.set()
        self._debouncer.wake()

    @property
    def busy(self) -> bool:
        """Whether indexing or embedding work is running or asked for (read it *before* a
        status query: then a query showing nothing pending means everything is done)."""
        return not self.idle.is_set() or self.embedding.is_set() or self._embed_needed.is_set()

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    def pause(self) -> None:
        """Stop indexing and embedding soon; changes keep being collected for resume()."""
        self._running.clear()
        self._work.cancel()
        self._notice("indexing paused")

    def resume(self) -> None:
        self._work = CancelToken()
        self._running.set()
        self._rescan.set()  # finish what the pause interrupted
        self._embed_needed.set()
        self._debouncer.wake()
        self._notice("indexing resumed")

    def redo(self) -> None:
        """Settings changed: interrupt the current pass and compare everything again."""
        old, self._work = self._work, CancelToken()
        old.cancel()
        self._rescan.set()
        self._embed_needed.set()
        self._debouncer.wake()

    def add_folder(self, folder: Path) -> None:
        folder = folder.resolve()
        if folder in self.folders:
            return
        self.folders.append(folder)
        if self._observer is not None:
            self._schedule(self._observer, folder)
        self.reconcile_now()

    def remove_folder(self, folder: Path) -> None:
        """Stop watching a folder; the indexing thread then drops it from the index (there, so
        that a pass still writing its notes cannot bring them back)."""
        folder = folder.resolve()
        if folder in self.folders:
            self.folders.remove(folder)
        watch = self._watches.pop(folder, None)
        if watch is not None and self._observer is not None:
            self._observer.unschedule(watch)
        with self._queue_lock:
            self._removals.append(folder)
        self.redo()  # interrupt a pass that may be indexing it

    def _apply_removals(self) -> None:
        with self._queue_lock:
            removals, self._removals = self._removals, []
        for folder in removals:
            try:
                indexer.remove_folder(self.service.database, folder)
            except DiskFull as exc:
                with self._queue_lock:
                    self._removals.append(folder)  # tried again on the next round
                self._disk_full(exc)
                continue
            self.on_change(Change("removed", str(folder), "folder"))

    # -- watchdog ------------------------------------------------------------------------
    def _start_observer(self) -> Any:
        from watchdog.observers import Observer
        from watchdog.observers.polling import PollingObserver

        handler = _Handler(self)
        use_polling = self.force_polling or any(_on_network_drive(f) for f in self.folders)
        if not use_polling:
            observer = Observer()
            try:
                for folder in self.folders:
                    self._schedule(observer, folder, handler)
                observer.start()
                return observer
            except OSError as exc:
                reason = _watch_limit_reason(exc)
                self._notice(f"falling back to polling: {reason}")
                observer.stop()
        else:
            self._notice("watching by polling (network drive or polling requested)")
        self.polling = True
        observer = PollingObserver(timeout=1.0)
        for folder in self.folders:
            self._schedule(observer, folder, handler)
        observer.start()
        return observer

    def _schedule(self, observer: Any, folder: Path, handler: Any = None) -> None:
        handler = handler or _Handler(self)
        self._watches[folder] = observer.schedule(handler, str(folder), recursive=True)

    def _notice(self, text: str) -> None:
        self.on_change(Change("notice", detail=text))

    def _error(self, where: str, exc: BaseException) -> None:
        """An unexpected error: logged with its traceback (errors.log) and shown; the thread
        it happened on goes on (or is restarted)."""
        home = getattr(self.service, "home", None)
        if home is not None:
            from desktop_app.crash import record_exception

            with suppress(OSError):
                record_exception(home, type(exc), exc, exc.__traceback__)
        self.on_change(Change("error", detail=f"{where}: {type(exc).__name__}: {exc}"))

    def _restarted(self, name: str, exc: BaseException) -> None:
        """A worker loop died: report it; it runs again and redoes what may have been cut."""
        self._error(f"the {name} thread stopped and was restarted", exc)
        self._rescan.set()
        self._embed_needed.set()

    def _disk_full(self, exc: DiskFull, **waiting: Any) -> None:
        if self.full_disk.failed(**waiting):
            self.on_change(Change("error", detail=f"{exc} (retrying)"))

    def _wrote(self) -> None:
        """A write succeeded: whatever waited for room on the disk is tried again now."""
        if self.full_disk.succeeded():
            self._notice("the disk has room again: indexing what waited")
            self._retry_waiting()

    def _retry_waiting(self) -> None:
        paths, rescan, embed = self.full_disk.take()
        for folder, rel in paths:
            self._debouncer.touch(folder, rel)
        if rescan:
            self._rescan.set()
        if embed:
            self._embed_needed.set()

    def event(self, kind: str, src: str, dest: str | None, is_directory: bool) -> None:
        """Called from watchdog's thread for every event."""
        if is_directory:
            if kind in ("created", "deleted", "moved"):
                self.reconcile_now()  # a whole folder came, went or moved: walk again
            return
        src_loc = self._locate(src)
        dest_loc = self._locate(dest) if dest else None
        if (
            src_loc
            and dest_loc
            and src_loc[0] == dest_loc[0]
            and loaders.is_note_path(src_loc[1])
            and loaders.is_note_path(dest_loc[1])
        ):
            with self._queue_lock:
                self._moves.append((src_loc[0], src_loc[1], dest_loc[1]))
        for loc in (src_loc, dest_loc):
            if loc:
                self._debouncer.touch(*loc)

    def _locate(self, raw: str) -> tuple[Path, str] | None:
        path = Path(os.fsdecode(raw))
        for folder in self.folders:
            try:
                rel = path.relative_to(folder).as_posix()
            except ValueError:
                continue
            return folder, rel
        return None

    # -- workers -------------------------------------------------------------------------
    def _lexical_loop(self) -> None:
        last_reconcile = time.monotonic()
        while not self._stop.cancelled:
            self._apply_removals()
            if not self._running.is_set():
                self.idle.set()
                self._running.wait(0.5)  # wake now and then: removals are applied while paused
                continue
            if self._rescan.is_set() or time.monotonic() - last_reconcile > self.reconcile_every:
                self._rescan.clear()
                complete = self._reconcile()
                last_reconcile = time.monotonic()
                if complete:
                    self.idle.set()
                    self.on_change(Change("scanned", detail=f"{len(self.folders)} folder(s)"))
            self.idle.set()
            if self.full_disk.due():
                self._retry_waiting()
            due = self._debouncer.take_due(timeout=0.5)
            if due and not self._running.is_set():
                for folder, rel in due:  # paused meanwhile: keep them for resume()
                    self._debouncer.touch(folder, rel)
                continue
            if due and not self._stop.cancelled:
                self.idle.clear()
                self._apply_moves()
                self._reindex(due)

    def _reconcile(self) -> bool:
        """Compare every folder with the disk; False if a pause or stop cut it short."""
        self.idle.clear()
        for folder in list(self.folders):
            try:
                report = indexer.index_folder(
                    self.service.database, folder, self.service.index_options(),
                    self.progress, cancel=self._work,
                )  # fmt: skip
            except Cancelled:
                return False
            except DiskFull as exc:
                self._disk_full(exc, rescan=True)
                return False
            except OSError as exc:
                self._notice(f"cannot read {folder}: {exc}")
                continue
            except Exception as exc:  # a bug must not stop the other folders or the watcher
                self._error(f"indexing {folder}", exc)
                continue
            if report.indexed or report.removed:
                self._wrote()
                self._notice(
                    f"{folder.name}: {report.indexed} updated, {report.removed} removed "
                    "since last look"
                )
                self._embed_needed.set()
        return True

    def _apply_moves(self) -> None:
        with self._queue_lock:
            moves, self._moves = self._moves, []
        for folder, src, dest in moves:
            if (folder / src).exists():
                continue  # not a plain rename (e.g. vim's backup dance): re-index both paths
            try:
                moved = indexer.move_note(self.service.database, folder, src, dest)
            except DiskFull:
                moved = False  # both paths are re-indexed, and wait for room if need be
            if moved:
                self.on_change(Change("moved", src, f"→ {dest}"))

    def _reindex(self, due: list[tuple[Path, str]]) -> None:
        by_folder: dict[Path, list[str]] = {}
        for folder, rel in due:
            if folder in self.folders:  # not a folder removed meanwhile
                by_folder.setdefault(folder, []).append(rel)
        for folder, rels in by_folder.items():
            try:
                report = indexer.index_paths(
                    self.service.database, folder, rels, self.service.index_options()
                )
            except DiskFull as exc:
                self._disk_full(exc, paths=[(folder, rel) for rel in rels])
                continue
            except Exception as exc:  # one bad note must never stop the watcher
                self._error(f"updating {len(rels)} note(s) in {folder}", exc)
                continue
            if report.changed_paths or report.removed_paths:
                self._wrote()
            self._report(report, rels)

    def _report(self, report: indexer.IndexReport, rels: list[str]) -> None:
        if report.changed_paths:
            self._embed_needed.set()
        for rel, status, reason in report.problems:
            self.on_change(Change(status if status != "indexed" else "warning", rel, reason))
        for rel in report.changed_paths:
            self.on_change(Change("indexed", rel))
        for rel in report.removed_paths:
            self.on_change(Change("removed", rel))

    def _embed_loop(self) -> None:
        while not self._stop.cancelled:
            self._embed_needed.wait()
            self._running.wait()
            if self._stop.cancelled:
                return
            self.embedding.set()  # before the request is cleared: `busy` never blinks false
            self._embed_needed.clear()
            try:
                count = self.service.embed(self.progress, cancel=self._work)
            except Cancelled:
                continue  # paused or stopped; resume() asks again
            except DiskFull as exc:
                self._disk_full(exc, embed=True)
                continue
            except Exception as exc:
                self._notice(f"embedding failed: {exc}")
                continue
            finally:
                self.embedding.clear()
            if count:
                self._wrote()
                self.on_change(Change("embedded", detail=f"{count} new passages"))
            self.on_change(Change("caught-up"))


class _Handler:
    """A watchdog event handler that forwards every event to the LiveIndex."""

    def __init__(self, live: LiveIndex) -> None:
        self.live = live

    def dispatch(self, event: Any) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        dest = getattr(event, "dest_path", "") or None
        self.live.event(event.event_type, event.src_path, dest, event.is_directory)


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
