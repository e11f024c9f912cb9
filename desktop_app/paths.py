"""Where Quire keeps its state: everything lives under one home folder.

`QUIRE_HOME` overrides the platform's user data folder (tests always set it).
"""

from __future__ import annotations

import os
from pathlib import Path


def quire_home() -> Path:
    override = os.environ.get("QUIRE_HOME")
    if override:
        home = Path(override).expanduser()
    else:
        import platformdirs

        home = Path(platformdirs.user_data_dir("Quire", appauthor=False))
    home.mkdir(parents=True, exist_ok=True)
    return home


def settings_path() -> Path:
    return quire_home() / "settings.json"


def logs_dir(home: Path | None = None) -> Path:
    path = (home or quire_home()) / "logs"
    path.mkdir(parents=True, exist_ok=True)
    return path


def resources_dir() -> Path:
    """The bundled resources (sample notes), in a checkout or a frozen build."""
    frozen_root = getattr(__import__("sys"), "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def sample_notes() -> Path:
    return resources_dir() / "sample_notes"
