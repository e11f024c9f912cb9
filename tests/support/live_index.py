"""A LiveIndex wired to a Quire the way the window and `quire watch` wire it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_app.core.api import Quire
from desktop_app.core.ingest.watcher import LiveIndex


def live_index(quire: Quire, folders: list[Path], **options: Any) -> LiveIndex:
    return LiveIndex(
        quire.database, folders, quire.index_options, quire.embed, home=quire.home, **options
    )
