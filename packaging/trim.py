"""Remove from the PyInstaller onedir what Quire never uses at run time, and say how much.

    python packaging/trim.py build/package/dist/quire

Each pattern below names files that no code path of Quire loads (README "Install" lists them
and why it is safe); the self-test and `make package-test` run on the trimmed build.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

# Relative to the onedir's `_internal/` (PyInstaller's contents directory).
NEVER_USED = (
    # C/C++ headers, CMake files and static libraries: for building extensions against torch.
    "torch/include",
    "torch/share",
    "torch/lib/*.a",
    "**/*.a",
    # Qt's own translations of its standard dialogs: Quire's interface is English.
    "PySide6/Qt/translations",
    # Qt plugins for modules Quire does not use (networking, SQL, printing, 3D, multimedia).
    "PySide6/Qt/plugins/networkinformation",
    "PySide6/Qt/plugins/tls",
    "PySide6/Qt/plugins/sqldrivers",
    "PySide6/Qt/plugins/printsupport",
    "PySide6/Qt/plugins/multimedia",
    "PySide6/Qt/plugins/qmltooling",
    "PySide6/Qt/plugins/generic",
    # Type stubs and Cython sources: for editors and compilers, not for running.
    "**/*.pyi",
    "**/*.pxd",
)


def _size(path: Path) -> int:
    if path.is_file() or path.is_symlink():
        return path.lstat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file())


def trim(onedir: Path) -> int:
    internal = onedir / "_internal"
    if not internal.is_dir():  # macOS .app layouts keep the same folder under Contents/
        internal = onedir
    removed = 0
    for pattern in NEVER_USED:
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
    print(f"trim: removed {removed / 2**20:.1f} MiB of {before / 2**20:.1f} MiB from {onedir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
