"""The facade's live-index methods (a part of `Quire`, core/service.py): the folders kept live
and the one LiveIndex that watches them, owned by `LiveFolders` (core/live.py)."""

from __future__ import annotations

from pathlib import Path

from desktop_app.core.facade_parts import FacadeParts
from desktop_app.core.live import LiveFolders, LiveIndex, Watching


class LiveMethods(FacadeParts):
    live_folders: LiveFolders
    home: Path

    # -- the live index ------------------------------------------------------------------------
    def _live_index(self, folders: list[Path], watching: Watching) -> LiveIndex:
        return LiveIndex(
            self.database,
            folders,
            self.index_options,
            self.embed,
            on_change=watching.on_change,
            progress=watching.progress,
            force_polling=watching.force_polling,
            home=self.home,
        )

    @property
    def folders(self) -> list[Path]:
        """The folders kept live (resolved), in the order they were added."""
        return self.live_folders.folders

    @property
    def live(self) -> LiveIndex | None:
        """The running live index (None before start_live and after stop_live)."""
        return self.live_folders.index

    def watch(self, folder: Path) -> bool:
        """Keep `folder` indexed live (at once if the live index runs, else from start_live);
        False if it already is."""
        return self.live_folders.watch(folder)

    def unwatch(self, folder: Path) -> None:
        """Stop watching `folder`; its notes then leave the index (the files stay untouched)."""
        self.live_folders.unwatch(folder)

    def start_live(self, watching: Watching | None = None, reconcile: bool = True) -> LiveIndex:
        """Reconcile (unless told not to), then keep the watched folders' index live."""
        return self.live_folders.start(watching, reconcile)

    def stop_live(self, timeout: float = 10.0) -> None:
        self.live_folders.stop(timeout)

    def pause(self) -> None:
        """Stop indexing and embedding soon; changes are collected for resume()."""
        if self.live is not None:
            self.live.pause()

    def resume(self) -> None:
        if self.live is not None:
            self.live.resume()

    @property
    def paused(self) -> bool:
        return self.live_folders.paused
