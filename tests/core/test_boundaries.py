from __future__ import annotations

import subprocess
import sys

CORE_MODULES = [
    "desktop_app.cli",
    "desktop_app.core.service",
    "desktop_app.core.evaluate",
    "desktop_app.core.ingest.indexer",
    "desktop_app.core.retrieval.search",
    "desktop_app.core.models.finder",
    "desktop_app.core.models.download",
]


def test_core_never_imports_qt_or_heavy_libraries_at_import_time() -> None:
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in CORE_MODULES)
        + "bad = [m for m in ('PySide6', 'torch', 'sentence_transformers', 'llama_cpp')"
        " if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_only_the_ui_package_mentions_pyside6() -> None:
    from pathlib import Path

    import desktop_app

    root = Path(desktop_app.__file__).parent
    offenders = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if "PySide6" in p.read_text("utf-8") and p.relative_to(root).parts[0] != "ui"
    ]
    assert offenders == []


def test_self_test_passes_offline(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json
    import os

    env = {**os.environ, "QUIRE_HOME": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run(
        [sys.executable, "-m", "desktop_app", "--self-test"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    report = json.loads(out.stdout)
    assert out.returncode == 0, report
    assert set(report["checks"]) == {
        "fts5", "tiktoken", "embedding_model", "chat_model", "index_and_search", "qt_offscreen",
    }  # fmt: skip
    assert all(check["ok"] for check in report["checks"].values())
