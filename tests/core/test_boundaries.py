"""The layers: import-linter's contracts (pyproject.toml) hold, and every module outside
desktop_app.ui imports with Qt absent and without loading a heavy library."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

HEAVY = ("PySide6", "shiboken6", "torch", "sentence_transformers", "llama_cpp")

# Qt made unimportable, then every module under desktop_app except the window package (and
# __main__, which runs the CLI) imported; prints what failed and what heavy library got loaded.
IMPORT_ALL = """
import importlib, json, pkgutil, sys
sys.modules["PySide6"] = None
sys.modules["shiboken6"] = None
import desktop_app
names = sorted(
    m.name for m in pkgutil.walk_packages(desktop_app.__path__, "desktop_app.")
    if not m.name.startswith("desktop_app.ui") and m.name != "desktop_app.__main__"
)
failed = {}
for name in names:
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed[name] = f"{type(exc).__name__}: {exc}"
heavy = [m for m in %r if sys.modules.get(m) is not None]
print(json.dumps({"imported": names, "failed": failed, "heavy": heavy}))
"""


def test_import_contracts_hold() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run(
        [str(lint_imports), "--no-cache"], capture_output=True, text=True, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_every_module_outside_the_ui_imports_without_qt_or_heavy_libraries() -> None:
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL % (HEAVY,)], capture_output=True, text=True, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
    )  # fmt: skip
    report = json.loads(done.stdout)
    assert report["failed"] == {}
    assert report["heavy"] == []
    for package in ("cli", "core.service", "core.answer.ask", "core.ingest.watcher", "settings"):
        assert f"desktop_app.{package}" in report["imported"]  # the walk found the tree


def test_the_import_check_sees_a_module_that_needs_qt(tmp_path: Path) -> None:
    """The check above would fail if a core module imported Qt (shown on a planted module)."""
    package = tmp_path / "desktop_app"
    package.mkdir()
    (package / "__init__.py").write_text("", "utf-8")
    (package / "leaky.py").write_text("from PySide6 import QtCore\n", "utf-8")
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL % (HEAVY,)], capture_output=True, text=True,
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)}, check=True,
    )  # fmt: skip
    assert "desktop_app.leaky" in json.loads(done.stdout)["failed"]


@pytest.mark.slow
def test_self_test_passes_offline(tmp_path: Path) -> None:
    env = {**os.environ, "QUIRE_HOME": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run(
        [sys.executable, "-m", "desktop_app", "--self-test"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    report = json.loads(out.stdout)
    assert out.returncode == 0, report
    assert set(report["checks"]) == {
        "fts5", "tiktoken", "embedding_model", "chat_model", "index_and_search", "pdf",
        "qt_offscreen",
    }  # fmt: skip
    assert all(check["ok"] for check in report["checks"].values())
