"""Case 2 of issue 13 in the window: it opens on a damaged index, says so once, and the notes
are searchable again (offscreen, the real facade and watcher)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

pytest.importorskip("pytestqt")

from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QMessageBox

from desktop_app.core.api import Health, Quire
from desktop_app.core.store import health
from desktop_app.paths import sample_notes
from desktop_app.ui.main_window import MainWindow
from tests.support.corruption import damage_fts, truncate

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("fake_embedder")]
INDEXED = 120_000


def _search(qtbot: QtBot, win: MainWindow, text: str) -> str:
    win.results.clear()
    win.query.setText(text)
    win.search()
    qtbot.waitUntil(lambda: win.results.count() > 0, timeout=30_000)
    return str(win.results.item(0).data(0x0100).path)


@pytest.mark.parametrize("when", ["on open", "in the background"])
def test_window_opens_on_a_damaged_index(
    qtbot: QtBot, tmp_path: Path, quire_home: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    notes = tmp_path / "notes"
    shutil.copytree(sample_notes(), notes)
    (notes / "marker.md").write_text("# Marker\n\nThe word zyxwvutsrq is here.\n", "utf-8")
    quire = Quire.open(quire_home)
    quire.index([notes], embed=False)
    quire.close()
    if when == "on open":
        truncate(quire_home / "quire.sqlite", 9000)
    else:  # a large index: only the cheap check on open, the quick one after it
        monkeypatch.setattr(health, "QUICK_ON_OPEN_MAX_BYTES", 0)
        damage_fts(quire_home / "quire.sqlite", random.Random(13), pages=2)

    quire = Quire.open(quire_home)  # what run_app does: open, then the folders used last time
    assert (quire.repair.recovery is not None) == (when == "on open")
    win = MainWindow(quire, quire.known_folders())
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: len(win.recovery_reports) == 1, timeout=10_000)
    box = win.recovery_box
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert "damaged" in box.text() and "kept as" in box.text()
    box.accept()
    qtbot.waitUntil(lambda: win.ready, timeout=INDEXED)
    assert _search(qtbot, win, "zyxwvutsrq") == "marker.md"
    assert win.last_status is not None and win.last_status.counts.notes == 7
    assert len(win.recovery_reports) == 1  # told once
    win.close()
    QThreadPool.globalInstance().waitForDone(10_000)
    quire.close()


def test_repair_from_the_menu(qtbot: QtBot, tmp_path: Path, quire_home: Path) -> None:
    notes = tmp_path / "notes"
    shutil.copytree(sample_notes(), notes)
    quire = Quire.open(quire_home)
    win = MainWindow(quire, [notes])
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.ready, timeout=INDEXED)
    action = next(a for a in win.actions() if "repair" in a.text())
    action.trigger()  # healthy: nothing replaced
    qtbot.waitUntil(lambda: isinstance(win.repaired, Health) and win.repaired.ok, timeout=30_000)
    assert win.quire.live.index is not None
    assert not list(quire_home.glob("quire.sqlite.*-*"))
    win.close()
    QThreadPool.globalInstance().waitForDone(10_000)
    quire.close()
