"""The folders Quire keeps live and the one LiveIndex that watches them (owned by the facade).

The folder list is one list: the running LiveIndex's while one runs, else this owner's (kept
across a stop, so a repaired index is filled again from the same folders and callbacks).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.cancel import ProgressCallback, no_progress
from desktop_app.core.ingest.watcher import (
    QUIET_KINDS,
    Change,
    ChangeCallback,
    ChangeKind,
    LiveIndex,
)

__all__ = ["QUIET_KINDS", "Change", "ChangeKind", "LiveFolders", "LiveIndex", "Watching"]


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
        self.index: LiveIndex | None = None
        self._stopped: list[LiveIndex] = []  # stopped, maybe still finishing a batch

    @property
    def folders(self) -> list[Path]:
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
        """Start the live index on the folders (a running one is stopped first)."""
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

    @property
    def paused(self) -> bool:
        return self.index is not None and self.index.paused
