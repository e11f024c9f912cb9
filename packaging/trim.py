"""Remove from the PyInstaller onedir what Quire never uses at run time, and say how much.

    python packaging/trim.py build/package/dist/quire

Each pattern below names files that no code path of Quire loads (docs/packaging.md lists them
and why it is safe); the self-test and `make package-test` run on the trimmed build. A Windows
onedir (it holds `quire-cli.exe`; it is built on Linux too) lays PySide6 out without the `Qt/`
level and names its libraries `.dll` / `.lib`: it has patterns of its own.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

# Relative to the onedir's `_internal/` (PyInstaller's contents directory).
# Qt plugins for modules Quire does not use (networking, SQL, printing, 3D, multimedia).
_QT_PLUGINS = ("networkinformation", "tls", "sqldrivers", "printsupport", "multimedia",
               "qmltooling", "generic")  # fmt: skip
NEVER_USED = (
    # C/C++ headers, CMake files and static libraries: for building extensions against torch.
    "torch/include",
    "torch/share",
    "torch/lib/*.a",
    "**/*.a",
    # Qt's own translations of its standard dialogs: Quire's interface is English.
    "PySide6/Qt/translations",
    *(f"PySide6/Qt/plugins/{plugin}" for plugin in _QT_PLUGINS),
    # Type stubs and Cython sources: for editors and compilers, not for running.
    "**/*.pyi",
    "**/*.pxd",
)
WINDOWS_NEVER_USED = (
    # Import libraries and static libraries: for linking against a DLL, not for running it.
    "**/*.lib",
    "**/*.a",
    "PySide6/translations",
    *(f"PySide6/plugins/{plugin}" for plugin in _QT_PLUGINS),
    # Mesa's software OpenGL, for Qt Quick / OpenGL without a GPU driver: the window is widgets.
    "PySide6/opengl32sw.dll",
    "**/*.pyi",
    "**/*.pxd",
)


def is_windows(onedir: Path) -> bool:
    return (onedir / "quire-cli.exe").is_file()


def _size(path: Path) -> int:
    if path.is_file() or path.is_symlink():
        return path.lstat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file())


def trim(onedir: Path) -> int:
    internal = onedir / "_internal"
    if not internal.is_dir():  # macOS .app layouts keep the same folder under Contents/
        internal = onedir
    removed = 0
    for pattern in WINDOWS_NEVER_USED if is_windows(onedir) else NEVER_USED:
        for path in sorted(internal.glob(pattern), reverse=True):
            if not path.exists() and not path.is_symlink():
                continue  # inside a folder removed by an earlier pattern
            removed += _size(path)
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
    return removed


def main(argv: list[str]) -> int:
    onedir = Path(argv[1])
    before = _size(onedir)
    removed = trim(onedir)
    after = _size(onedir)
    print(
        f"trim: {onedir}: {before / 2**20:.1f} MiB before, {after / 2**20:.1f} MiB after"
        f" (removed {removed / 2**20:.1f} MiB)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
