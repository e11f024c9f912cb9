"""`quire.repair` (core/service.py): a damaged index found and told once, its checks, and the
replacement of the index file, swapped in whole once nothing runs inside the old one (see
core/handle.py)."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_app.core.cancel import CancelToken, ProgressCallback, no_progress
from desktop_app.core.handle import HandleSlot, IndexHandle
from desktop_app.core.ingest import indexer
from desktop_app.core.live import LiveFolders
from desktop_app.core.retrieval.search import Searcher
from desktop_app.core.store.health import Health, IndexDamaged, check_file, is_corruption
from desktop_app.core.store.recovery import Recovery, last_recovery, replace_damaged


@dataclass
class FolderReport:
    """What indexing one folder did (the facade's `index`, and a repair's reindex)."""

    folder: str
    report: indexer.IndexReport


@dataclass
class Reindex:
    """Index the folders into a replaced index before anyone uses it (`quire repair`); the
    reports are filled in."""

    progress: ProgressCallback = no_progress
    embed: bool = True
    reports: list[FolderReport] = field(default_factory=list)


# Index folders into a handle: (handle, folders, progress, cancel, embed) → their reports.
IndexInto = Callable[
    [IndexHandle, list[Path], ProgressCallback, CancelToken, bool], list[FolderReport]
]


class Repair:
    def __init__(
        self,
        slot: HandleSlot,
        path: Path,
        recovery: Recovery | None,
        live: LiveFolders,
        index_into: IndexInto,
    ) -> None:
        """`recovery`: the replacement made on open (or None); `index_into`: the facade's."""
        self._slot, self._path, self._recovery = slot, path, recovery
        self._live, self._index_into = live, index_into

    @property
    def recovery(self) -> Recovery | None:
        """The replacement of a damaged index not told to the user yet (see take_recovery)."""
        return self._recovery

    def take_recovery(self) -> Recovery | None:
        """The replacement not told yet, once: the caller tells the user, then it is forgotten."""
        recovery, self._recovery = self._recovery, None
        return recovery

    def last(self) -> dict[str, Any] | None:
        """The record of the last replacement of the index file (told or not)."""
        return last_recovery(self._path)

    def damage(self, exc: sqlite3.DatabaseError) -> IndexDamaged | None:
        """Whether an SQLite error means a damaged file (else it was a lock, a bad query…)."""
        if is_corruption(exc):
            return IndexDamaged([str(exc)])
        health = check_file(self._path)
        return None if health.ok else IndexDamaged(health.problems)

    def raise_damage(self, exc: sqlite3.DatabaseError) -> None:
        """Raise IndexDamaged (from `exc`) when `exc` means a damaged file."""
        damage = self.damage(exc)
        if damage is not None:
            raise damage from exc

    def check(self, level: str = "full") -> Health:
        return check_file(self._path, level)

    def recover(
        self, problems: list[str], requested: bool = False, reindex: Reindex | None = None
    ) -> Recovery:
        """Replace the index file with a fresh one (the old one is kept aside) once running
        answers are cancelled and reads are done; what starts meanwhile waits for the new one.
        The folders are indexed again by `reindex` before the new index is used, else by the
        CLI (cli/repair.py) or the live index (the window). A live index still running is stopped
        first (nothing may write into the file being replaced) and started again on the new one."""
        was_live, was_paused = self._live.index is not None, self._live.paused
        self._live.stop()
        self._live.join_stopped()
        recovered: list[Recovery] = []

        def fresh(old: IndexHandle) -> IndexHandle:
            old.database.close()
            database, recovery = replace_damaged(self._path, problems, requested)
            recovered.append(recovery)
            handle = dataclasses.replace(
                old,
                database=database,
                searcher=Searcher(database, old.searcher.embedder, old.searcher.companion),
            )
            if reindex is not None:
                folders = [Path(f) for f in recovery.folders if Path(f).is_dir()]
                reindex.reports = self._index_into(
                    handle, folders, reindex.progress, CancelToken(), reindex.embed
                )
            return handle

        self._slot.swap(fresh)
        self._recovery = recovered[0]
        if was_live:  # on the new index: it catches up with the folders
            live = self._live.start()
            if was_paused:
                live.pause()  # …once resumed
        return recovered[0]

    def run(
        self, rebuild: bool = False, reindex: Reindex | None = None
    ) -> tuple[Health, Recovery | None]:
        """The full check; a damaged index (or any, when `rebuild`) is replaced."""
        health = self.check("full")
        if health.ok and not rebuild:
            return health, None
        problems = health.problems or ["rebuild requested"]
        return health, self.recover(problems, health.ok, reindex)
