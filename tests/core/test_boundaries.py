from __future__ import annotations

import subprocess
import sys

CORE_MODULES = [
    "desktop_app.cli",
    "desktop_app.core.service",
    "desktop_app.core.evaluate",
    "desktop_app.core.ingest.indexer",
    "desktop_app.core.retrieval.search",
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
