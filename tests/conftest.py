from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
EVAL_DIR = ROOT.parent / "shared" / "eval"


@pytest.fixture(autouse=True)
def quire_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("QUIRE_HOME", str(home))
    return home


@pytest.fixture
def notes_dir(tmp_path: Path) -> Path:
    """A small mixed-language notes folder."""
    folder = tmp_path / "notes"
    (folder / "sync").mkdir(parents=True)
    (folder / ".obsidian").mkdir()
    (folder / ".obsidian" / "config.md").write_text("# hidden\nnever index me", "utf-8")
    (folder / "sync" / "settings.md").write_text(
        "---\ntitle: Sync settings\ntags: [sync, setup]\n---\n"
        "# Sync\n\nQuire keeps folders in sync.\n\n"
        "## Settings\n\n### Selective sync\n\n"
        "Selective sync lets you choose which folders are copied to the laptop.\n"
        "Open Preferences and untick the folders you do not need.\n",
        "utf-8",
    )
    (folder / "kolo.md").write_text(
        "# Jízdní kola\n\nNa jaře jsem vyměnil řetěz na horském kole. Nový řetěz stál 600 korun "
        "a výměna trvala půl hodiny.\n",
        "utf-8",
    )
    (folder / "garten.txt").write_text(
        "Im Garten wachsen Tomaten und Gurken. Die Tomatenpflanzen brauchen viel Wasser "
        "und einen sonnigen Standort.\n",
        "utf-8",
    )
    (folder / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    return folder
