"""`quire.live` (core/service.py): the folders Quire keeps live and the one LiveIndex that
watches them.

The folder list is one list: the running LiveIndex's while one runs, else this owner's (kept
across a stop, so a repaired index is filled again from the same folders and callbacks).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.cancel import ProgressCallback, no_progress
from desktop_app.core.events import ChangeCallback
from desktop_app.core.ingest.watcher import LiveIndex


@dataclass(frozen=True)
class Watching:
    """How the live index reports and watches (given once, kept for a restart)."""

    on_change: ChangeCallback = lambda _: None
    progress: ProgressCallback = no_progress
    force_polling: bool = False


LiveIndexFactory = Callable[[list[Path], Watching], LiveIndex]


class LiveFolders:
    def __init__(self, make: LiveIndexFactory) -> None:
        self._make = make
        self._folders: list[Path] = []
        self._watching = Watching()
        self.index: LiveIndex | None = None  # the running one (None before start, after stop)
        self._stopped: list[LiveIndex] = []  # stopped, maybe still finishing a batch

    @property
    def folders(self) -> list[Path]:
        """The folders kept live (resolved), in the order they were added."""
        return list(self.index.folders if self.index is not None else self._folders)

    def watch(self, folder: Path) -> bool:
        """Keep `folder` live (now, if the live index runs); False if it already was."""
        folder = folder.resolve()
        if folder in self.folders:
            return False
        if self.index is not None:
            self.index.add_folder(folder)
        else:
            self._folders.append(folder)
        return True

    def unwatch(self, folder: Path) -> None:
        """Stop watching `folder`; the live index then drops its notes from the index."""
        folder = folder.resolve()
        if self.index is not None:
            self.index.remove_folder(folder)
        self._folders = [f for f in self._folders if f != folder]

    def start(self, watching: Watching | None = None, reconcile: bool = True) -> LiveIndex:
        """Reconcile (unless told not to), then keep the folders' index live (a running live
        index is stopped first)."""
        self.stop()
        self._watching = watching or self._watching
        self.index = self._make(list(self._folders), self._watching)
        self.index.start(reconcile=reconcile)
        return self.index

    def stop(self, timeout: float = 10.0) -> None:
        index, self.index = self.index, None
        if index is not None:
            self._folders = list(index.folders)
            index.stop(timeout)
            self._stopped.append(index)

    def join_stopped(self) -> None:
        """Wait until stopped live indexes have ended (each finishes its current batch first):
        nothing may still write when the database closes."""
        while self._stopped:
            self._stopped.pop().stop(timeout=None)

    def pause(self) -> None:
        """Stop indexing and embedding soon; changes are collected for resume()."""
        if self.index is not None:
            self.index.pause()

    def resume(self) -> None:
        if self.index is not None:
            self.index.resume()

    @property
    def paused(self) -> bool:
        return self.index is not None and self.index.paused
