"""packaging/trim.py removes what Quire never loads, from a Linux and a Windows onedir alike."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.usefixtures("fake_embedder")

# Each layout as PyInstaller writes it: (files trim must remove, files the app loads).
LINUX = (
    ["PySide6/Qt/translations/qt_de.qm", "PySide6/Qt/plugins/tls/libqopensslbackend.so",
     "numpy/_core/lib/libnpymath.a", "numpy/__init__.pyi"],
    ["PySide6/Qt/lib/libQt6Core.so.6", "PySide6/Qt/plugins/platforms/libqxcb.so",
     "llama_cpp/lib/libggml-base.so", "quire"],
)  # fmt: skip
WINDOWS = (
    ["PySide6/translations/qt_de.qm", "PySide6/plugins/tls/qopensslbackend.dll",
     "PySide6/plugins/sqldrivers/qsqlite.dll", "PySide6/opengl32sw.dll",
     "llama_cpp/lib/ggml-base.lib", "numpy/_core/lib/npymath.lib", "numpy/__init__.pyi",
     "PySide6/QtCore.pyi"],
    ["PySide6/Qt6Core.dll", "PySide6/plugins/platforms/qwindows.dll",
     "PySide6/plugins/styles/qmodernwindowsstyle.dll", "llama_cpp/lib/ggml-base.dll",
     "llama_cpp/lib/ggml-cpu-haswell.dll", "python311.dll", "Quire.exe", "quire-cli.exe"],
)  # fmt: skip


def _trim_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("trim", ROOT / "packaging" / "trim.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _placed(name: str) -> str:
    """Where PyInstaller puts a file: executables beside `_internal/`, the rest inside it."""
    return name if name.endswith(".exe") or name == "quire" else f"_internal/{name}"


@pytest.mark.parametrize("layout", [LINUX, WINDOWS], ids=["linux", "windows"])
def test_trim_removes_what_is_never_loaded(
    layout: tuple[list[str], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unused, used = layout
    onedir = tmp_path / "quire"
    for name in unused + used:
        (onedir / _placed(name)).parent.mkdir(parents=True, exist_ok=True)
        (onedir / _placed(name)).write_bytes(b"x" * 2**19)
    assert _trim_module().main([sys.argv[0], str(onedir)]) == 0
    left = {p.relative_to(onedir).as_posix() for p in onedir.rglob("*") if p.is_file()}
    assert left == {_placed(name) for name in used}
    before, after = len(unused + used) / 2, len(used) / 2
    assert f"{before:.1f} MiB before, {after:.1f} MiB after" in capsys.readouterr().out
