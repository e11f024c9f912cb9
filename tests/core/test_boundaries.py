"""The layers: import-linter's contracts (pyproject.toml) hold, and every module outside
desktop_app.ui imports with Qt absent and without loading a heavy library."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.usefixtures("fake_embedder")

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
    if not m.name.startswith("desktop_app.ui") and not m.name.endswith(".__main__")
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
        "fts5", "tiktoken", "embedding_model", "multilingual_embedding_model", "vector_worker",
        "chat_model", "index_and_search", "ocr", "pdf", "analyzer", "word_lists", "qt_offscreen",
    }  # fmt: skip
    assert all(check["ok"] for check in report["checks"].values())
    worker = "spawn" if sys.platform == "win32" else "forkserver"
    assert report["checks"]["pdf"]["worker"] == worker  # how the extractor's worker started
    assert report["checks"]["analyzer"]["worker"] == worker
    assert report["checks"]["analyzer"]["passages"] > 1
    vectors = report["checks"]["vector_worker"]
    assert vectors["where"] == "worker" and vectors["started_by"] == worker
    multilingual = report["checks"]["multilingual_embedding_model"]
    assert multilingual["model"].startswith("multilingual-e5-small")
    ocr = report["checks"]["ocr"]
    assert ocr["languages"] == ["ces", "deu", "eng"] and "libde265" in ocr["heif"]


# -- SQL only in desktop_app/core/store --------------------------------------------------------
PACKAGE = ROOT / "desktop_app"
STORE = PACKAGE / "core" / "store"
SQL_CALLS = {"execute", "executemany", "executescript"}
SQL_STATEMENT = re.compile(
    r"\s*(?:(?:SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|REPLACE)\b.*"
    r"\b(?:FROM|INTO|TABLE|SET|INDEX|TRIGGER|VIEW)\b|PRAGMA\s)",
    re.DOTALL,
)


def sql_in(source: str) -> list[str]:
    """Calls of .execute/.executemany/.executescript and string literals (f-strings too) that
    read as SQL statements, by line."""
    found: dict[int, str] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in SQL_CALLS:
                found[node.lineno] = f".{node.func.attr}()"
        elif isinstance(node, ast.expr) and SQL_STATEMENT.match(text := _literal_text(node)):
            found.setdefault(node.lineno, text[:60])
    return [f"{line}: {what}" for line, what in sorted(found.items())]


def _literal_text(node: ast.AST) -> str:
    """A string literal's text; an f-string's literal parts joined ("" for other nodes)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_literal_text(part) for part in node.values)
    return ""


def test_sql_runs_only_in_the_store() -> None:
    outside = {
        str(path.relative_to(ROOT)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if STORE not in path.parents and (found := sql_in(path.read_text("utf-8")))
    }
    assert outside == {}


def test_the_sql_check_sees_sql_in_a_planted_module() -> None:
    planted = (
        "def rows(db, within):\n"
        "    db.conn.executemany('x', [])\n"
        "    sql = f'SELECT id FROM chunks WHERE id IN ({within})'\n"
        "    return 'DELETE FROM notes'\n"
    )
    assert [line.split(":")[0] for line in sql_in(planted)] == ["2", "3", "4"]
    assert sql_in('"""Select the notes from a folder."""\nx = "a SELECT of chunk ids"\n') == []


def test_every_module_name_is_unique_within_its_part() -> None:
    """Within the core, the window and the command line each module name says one thing; a front
    end's module may share the name of what it fronts (cli/ask.py runs core/answer/ask.py)."""
    names: dict[tuple[str, str], list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name not in ("__init__.py", "__main__.py"):
            part = path.relative_to(PACKAGE).parts[0]
            key = (part if part in ("core", "ui", "cli") else "", path.stem)
            names.setdefault(key, []).append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in names.items() if len(paths) > 1} == {}
    assert ("cli", "ask") in names and ("core", "ask") in names  # the walk found both parts


def _facade_fields_assigned(source: str) -> list[int]:
    """Lines assigning a field of the facade (`quire.x = …`, `self.quire.x = …`): its state
    changes only through its methods."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            for part in target.elts if isinstance(target, ast.Tuple) else [target]:
                owner = part.value if isinstance(part, ast.Attribute) else None
                named = isinstance(owner, ast.Name) and owner.id == "quire"
                if named or (isinstance(owner, ast.Attribute) and owner.attr == "quire"):
                    lines.append(node.lineno)
    return lines


def test_no_caller_assigns_the_facades_fields() -> None:
    assigned = {
        str(path.relative_to(ROOT)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := _facade_fields_assigned(path.read_text("utf-8")))
    }
    assert assigned == {}
    assert _facade_fields_assigned("recovery, win.quire.recovery = x, None\n") == [1]


def test_the_qt_contract_names_every_part_beside_the_window() -> None:
    """ "Qt only inside desktop_app.ui" lists whole packages and modules; a new one beside them
    fails here until it is listed (so the contract cannot miss a module)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    qt = next(c for c in contracts if c["name"] == "Qt only inside desktop_app.ui")
    parts = {
        f"desktop_app.{p.stem}"
        for p in PACKAGE.iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").is_file())
        and p.stem not in ("__init__", "__main__", "ui")
    }
    assert set(qt["source_modules"]) == parts
    assert {"desktop_app.cli", "desktop_app.core"} <= parts
