"""Keep the index true to the folders while Quire runs.

watchdog events (`observer`) → per-path debounce (editors write several times per save) → one
lexical worker that re-indexes just those notes → an embedding worker that follows in the
background. A reconcile pass (the same cheap size/mtime/hash walk as `quire index`) runs at
start and periodically, so edits made while Quire was closed or events the OS dropped are
caught too.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import suppress
from functools import partial
from pathlib import Path
from typing import Protocol

from desktop_app.core.cancel import Cancelled, CancelToken, ProgressCallback, no_progress
from desktop_app.core.events import Change, ChangeCallback, ChangeKind
from desktop_app.core.ingest import indexer, loaders, vector_worker
from desktop_app.core.ingest.indexer import IndexOptions
from desktop_app.core.ingest.observer import Debouncer, Handler, Watches, report_changes
from desktop_app.core.ingest.retry import FullDiskRetry, supervised
from desktop_app.core.ingest.writer import IndexReport
from desktop_app.core.store.db import Database, DiskFull
from desktop_app.crash import record_exception

DEBOUNCE_SECONDS = 0.25
RECONCILE_SECONDS = 300.0


class EmbedPass(Protocol):
    """The embedding pass (plan parts, encode what has no vector); returns how many it made."""

    def __call__(
        self, progress: ProgressCallback = ..., cancel: CancelToken | None = ...
    ) -> int: ...


class LiveIndex:
    """Watches folders and keeps their index live. `start()` reconciles first, then watches.
    Writes to `database` with the `options()` of the moment; `embed` makes the vectors;
    unexpected errors are logged in `home` (errors.log)."""

    def __init__(
        self,
        database: Database,
        folders: Iterable[Path],
        options: Callable[[Path], IndexOptions],
        embed: EmbedPass,
        on_change: ChangeCallback = lambda _: None,
        debounce: float = DEBOUNCE_SECONDS,
        reconcile_every: float = RECONCILE_SECONDS,
        force_polling: bool = False,
        progress: ProgressCallback = no_progress,
        home: Path | None = None,
        vectors_paused: Callable[[], bool] = lambda: False,
    ) -> None:
        self.database = database
        self.vectors_paused = vectors_paused  # the user's choice of the moment (Settings)
        self._vectors_pass = CancelToken()  # the running embedding pass's (within `_work`)
        self.options = options
        self.embed = embed
        self.home = home
        self._folders_lock = threading.Lock()
        self._folders: tuple[Path, ...] = tuple(f.resolve() for f in folders)
        self.on_change = on_change
        self.progress = progress
        self.reconcile_every = reconcile_every
        self._watches = Watches(Handler(self), force_polling, self._notice)
        self._debouncer = Debouncer(debounce)
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
        self.idle = threading.Event()  # set whenever no lexical work is queued
        self.embedding = threading.Event()  # set while an embedding pass runs
        self._told_where = ""  # why vectors are computed in this process, once said
        self.full_disk = FullDiskRetry()

    @property
    def folders(self) -> tuple[Path, ...]:
        """The watched folders: a tuple swapped whole under a lock, never changed in place."""
        return self._folders

    @property
    def polling(self) -> bool:
        """Whether folders are watched by polling (network drive, OS limit, or requested)."""
        return self._watches.polling

    # -- lifecycle -----------------------------------------------------------------------
    def start(self, reconcile: bool = True) -> None:
        """Start the threads. The watches start on the indexing thread before its first scan
        (a native watch walks every subfolder); without a scan they start here, so that every
        change after this call is seen."""
        if reconcile:
            self._rescan.set()
        else:
            self._watches.start(lambda: self.folders)
        self._embed_needed.set()
        for target, name in (
            (self._lexical_loop, "quire-index"),
            (self._embed_loop, "quire-embed"),
        ):
            run = supervised(target, self._stop, partial(self._restarted, name))
            thread = threading.Thread(target=run, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout: float | None = 10.0) -> None:  # None: wait for the threads
        self._stop.cancel()
        self._work.cancel()
        self._running.set()
        self._debouncer.wake()
        self._embed_needed.set()
        self._watches.stop(timeout)
        for thread in self._threads:
            thread.join(timeout)

    @property
    def ended(self) -> bool:  # stopped, and its threads have ended: nothing of it writes
        return self._stop.cancelled and not any(t.is_alive() for t in self._threads)

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

    def vectors_changed(self) -> None:
        """The user paused or resumed passage vectors: a pause stops the running pass after
        the batch in hand (it is stored); a resume computes what waits."""
        if self.vectors_paused():
            self._vectors_pass.cancel()
            self._notice("passage vectors paused")
        else:
            self._embed_needed.set()
            self._notice("passage vectors resumed")

    def redo(self) -> None:
        """Settings changed: interrupt the current pass and compare everything again."""
        old, self._work = self._work, CancelToken()
        old.cancel()
        self._rescan.set()
        self._embed_needed.set()
        self._debouncer.wake()

    def add_folder(self, folder: Path) -> None:
        folder = folder.resolve()
        with self._folders_lock:
            if folder in self._folders:
                return
            self._folders = (*self._folders, folder)
        self._watches.add(folder)
        self.reconcile_now()

    def remove_folder(self, folder: Path) -> None:
        """Stop watching a folder; the indexing thread then drops it from the index (there, so
        that a pass still writing its notes cannot bring them back)."""
        folder = folder.resolve()
        with self._folders_lock:
            self._folders = tuple(f for f in self._folders if f != folder)
        self._watches.remove(folder)
        with self._queue_lock:
            self._removals.append(folder)
        self.redo()  # interrupt a pass that may be indexing it

    def _apply_removals(self) -> None:
        with self._queue_lock:
            removals, self._removals = self._removals, []
        for folder in removals:
            try:
                indexer.remove_folder(self.database, folder)
            except DiskFull as exc:
                with self._queue_lock:
                    self._removals.append(folder)  # tried again on the next round
                self._disk_full(exc)
                continue
            self.on_change(Change(ChangeKind.REMOVED, str(folder), "folder"))

    # -- reporting ----------------------------------------------------------------------
    def _tell_where_vectors_are_computed(self) -> None:
        """Once: the vector worker could not run, so vectors are computed in this process."""
        why = vector_worker.shared().state.why
        if why and why != self._told_where:
            self._told_where = why
            self._notice(why)

    def _notice(self, text: str) -> None:
        self.on_change(Change(ChangeKind.NOTICE, detail=text))

    def _error(self, where: str, exc: BaseException) -> None:
        """An unexpected error: logged with its traceback (errors.log) and shown; the thread
        it happened on goes on (or is restarted)."""
        if self.home is not None:
            with suppress(OSError):
                record_exception(self.home, type(exc), exc, exc.__traceback__)
        self.on_change(Change(ChangeKind.ERROR, detail=f"{where}: {type(exc).__name__}: {exc}"))

    def _restarted(self, name: str, exc: BaseException) -> None:
        """A worker loop died: report it; it runs again and redoes what may have been cut."""
        self._error(f"the {name} thread stopped and was restarted", exc)
        self._rescan.set()
        self._embed_needed.set()

    def _disk_full(
        self,
        exc: DiskFull,
        paths: list[tuple[Path, str]] | None = None,
        rescan: bool = False,
        embed: bool = False,
    ) -> None:
        if self.full_disk.failed(paths, rescan, embed):
            self.on_change(Change(ChangeKind.ERROR, detail=f"{exc} (retrying)"))

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

    def event(
        self, kind: str, src: str | bytes, dest: str | bytes | None, is_directory: bool
    ) -> None:
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

    def _locate(self, raw: str | bytes) -> tuple[Path, str] | None:
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
        self._watches.start(lambda: self.folders)  # before the first scan: no change is missed
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
                    scanned = f"{len(self.folders)} folder(s)"
                    self.on_change(Change(ChangeKind.SCANNED, detail=scanned))
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
        for folder in self.folders:
            try:
                report = indexer.index_folder(
                    self.database, folder, self.options(folder), self.progress, cancel=self._work
                )
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
                moved = indexer.move_note(self.database, folder, src, dest)
            except DiskFull:
                moved = False  # both paths are re-indexed, and wait for room if need be
            if moved:
                self.on_change(Change(ChangeKind.MOVED, src, f"→ {dest}"))

    def _reindex(self, due: list[tuple[Path, str]]) -> None:
        by_folder: dict[Path, list[str]] = {}
        watched = self.folders
        for folder, rel in due:
            if folder in watched:  # not a folder removed meanwhile
                by_folder.setdefault(folder, []).append(rel)
        for folder, rels in by_folder.items():
            try:
                report = indexer.index_paths(self.database, folder, rels, self.options(folder))
            except DiskFull as exc:
                self._disk_full(exc, paths=[(folder, rel) for rel in rels])
                continue
            except Exception as exc:  # one bad note must never stop the watcher
                self._error(f"updating {len(rels)} note(s) in {folder}", exc)
                continue
            if report.changed_paths or report.removed_paths:
                self._wrote()
            self._report(report, rels)

    def _report(self, report: IndexReport, rels: list[str]) -> None:
        if report.changed_paths:
            self._embed_needed.set()
        for change in report_changes(report):
            self.on_change(change)

    def _embed_loop(self) -> None:
        # This thread keeps normal priority, as the keyword thread does: it holds the GIL in
        # short turns, and lowered it could be descheduled holding it while the window waits.
        # The vectors are computed at low priority: in the worker, else on a lowered thread.
        while not self._stop.cancelled:
            self._embed_needed.wait()
            self._running.wait()
            if self._stop.cancelled:
                return
            if self.vectors_paused():
                self._embed_needed.clear()  # vectors_changed() asks again
                continue
            self.embedding.set()  # before the request is cleared: `busy` never blinks false
            self._embed_needed.clear()
            self._vectors_pass = CancelToken(within=self._work)
            try:
                count = self.embed(self.progress, cancel=self._vectors_pass)
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
            self._tell_where_vectors_are_computed()
            if count:
                self._wrote()
                self.on_change(Change(ChangeKind.EMBEDDED, detail=f"{count} new passages"))
            self.on_change(Change(ChangeKind.CAUGHT_UP))
