"""Where Quire keeps its state: everything lives under one home folder.

`QUIRE_HOME` overrides the platform's user data folder (tests always set it).
"""

from __future__ import annotations

import os
import shutil
import sys
from importlib.util import find_spec
from pathlib import Path

import platformdirs


def quire_home() -> Path:
    override = os.environ.get("QUIRE_HOME")
    if override:
        home = Path(override).expanduser()
    else:
        home = Path(platformdirs.user_data_dir("Quire", appauthor=False))
    home.mkdir(parents=True, exist_ok=True)
    return home


def settings_path() -> Path:
    return quire_home() / "settings.json"


def logs_dir(home: Path | None = None) -> Path:
    path = (home or quire_home()) / "logs"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _frozen_root() -> Path | None:
    """The folder a PyInstaller build unpacks its data into (`_internal/`), if frozen."""
    root = getattr(sys, "_MEIPASS", None)
    return Path(root) if root else None


def resources_dir() -> Path:
    """The read-only resources (sample notes, icon) in every kind of install.

    A wheel and a frozen build carry them inside the package as `desktop_app/_resources`
    (setup.py's build step and packaging/quire.spec map the top-level `resources/` there);
    a checkout or an editable install reads the top-level folder itself.
    """
    package = Path(__file__).resolve().parent
    for candidate in (package / "_resources", package.parent / "resources"):
        if (candidate / "sample_notes").is_dir():
            return candidate
    raise FileNotFoundError(f"Quire's resources are missing (looked next to {package})")


def sample_notes() -> Path:
    """The bundled sample notes (read-only: index a copy, see `user_sample_notes`)."""
    return resources_dir() / "sample_notes"


def user_sample_notes(home: Path | None = None) -> Path:
    """A copy of the sample notes in the user's data folder, made once, so edits stay the user's."""
    target = (home or quire_home()) / "sample_notes"
    if not target.is_dir():
        staging = target.with_name(".sample_notes.partial")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(sample_notes(), staging)
        for path in staging.rglob("*"):  # the install folder may be read-only; the copy is not
            path.chmod(0o755 if path.is_dir() else 0o644)
        staging.replace(target)
    return target


def data_package_dir(package: str) -> Path | None:
    """The folder of an installed data-only package (a model wheel), found without importing it.

    In a frozen build PyInstaller copies the package's files to `_internal/<package>/`.
    """
    frozen = _frozen_root()
    if frozen is not None and (frozen / package).is_dir():
        return frozen / package
    spec = find_spec(package)
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(spec.origin).parent if spec.origin else None
