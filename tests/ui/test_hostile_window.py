"""The window on a folder holding a file whose name is not valid UTF-8 (offscreen, real watcher,
real models): the good notes become searchable, the bad file shows as failed in the Files tab,
and live indexing keeps working."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt, QThreadPool

from desktop_app.core.api import Quire
from desktop_app.core.ingest.watcher import LiveIndex
from desktop_app.ui.main_window import MainWindow
from tests.support.hostile import word

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("fake_embedder")]
INDEXED = 120_000


def _rows(win: MainWindow) -> dict[str, tuple[str, str]]:
    """What the Files tab shows: file -> (status, details)."""
    win.tabs.setCurrentWidget(win.files)
    model = win.files.model
    shown = {}
    for row in range(model.rowCount()):
        cells = [model.index(row, col).data(Qt.ItemDataRole.DisplayRole) for col in (0, 1, 4)]
        shown[cells[0]] = (cells[1], cells[2])
    return shown


def _search(qtbot: QtBot, win: MainWindow, text: str) -> list[str]:
    win.results.clear()
    win.query.setText(text)
    win.search()
    qtbot.waitUntil(lambda: win.results.count() > 0, timeout=30_000)
    results = [
        win.results.item(i).data(Qt.ItemDataRole.UserRole) for i in range(win.results.count())
    ]
    return [r.path for r in results]


def test_a_latin1_file_name_fails_alone_and_live_indexing_goes_on(
    qtbot: QtBot, tmp_path: Path, quire_home: Path
) -> None:
    folder = tmp_path / "vault"
    folder.mkdir()
    for n in range(4):
        (folder / f"good{n}.md").write_text(f"# Good {n}\n\nIt mentions {word(n)}.\n", "utf-8")
    fd = os.open(os.fsencode(folder) + b"/caf\xe9.md", os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"# Cafe\n\nLatin-1 name.\n")
    os.close(fd)
    quire = Quire.open(quire_home)
    win = MainWindow(quire, [folder])
    qtbot.addWidget(win)
    win.show()
    try:
        qtbot.waitUntil(lambda: win.ready, timeout=INDEXED)
        qtbot.waitUntil(
            lambda: "vault/caf\\xe9.md" in _rows(win), timeout=30_000
        )  # listed once shown
        rows = _rows(win)
        assert rows["vault/caf\\xe9.md"][0] == "failed"
        assert "not valid UTF-8" in rows["vault/caf\\xe9.md"][1]
        assert all(rows[f"vault/good{n}.md"][0] == "indexed" for n in range(4))
        for n in range(4):
            assert f"good{n}.md" in _search(qtbot, win, word(n))
        (folder / "later.md").write_text(f"# Later\n\nNow {word(50)} too.\n", "utf-8")
        qtbot.waitUntil(lambda: "vault/later.md" in _rows(win), timeout=60_000)
        assert "later.md" in _search(qtbot, win, word(50))
        assert win.quire.live.index is not None and all(
            t.is_alive() for t in win.quire.live.index._threads
        )
    finally:
        win.close()
        QThreadPool.globalInstance().waitForDone(10_000)
        quire.close()


def test_bad_settings_are_shown_once(qtbot: QtBot, quire_home: Path) -> None:
    quire_home.mkdir(parents=True, exist_ok=True)
    (quire_home / "settings.json").write_text('{"chunk_tokens": -5, "temperature": NaN}')
    for shown in (True, False):  # the second start finds the corrected file
        quire = Quire.open(quire_home)
        win = MainWindow(quire, [])
        qtbot.addWidget(win)
        win.show()
        if shown:
            qtbot.waitUntil(partial(lambda w: w.settings_notice is not None, win), timeout=10_000)
            assert win.settings_notice is not None and win.settings_notice.isVisible()
            text = win.settings_notice.text()
            assert "chunk_tokens = -5" in text and "temperature = NaN" in text
        else:
            qtbot.wait(200)  # let the start-up timer run
            assert win.settings_notice is None
        assert quire.settings.chunk_tokens == 200
        win.close()
        quire.close()


def test_a_crashed_index_thread_is_shown_and_restarted(
    qtbot: QtBot, tmp_path: Path, quire_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "vault"
    folder.mkdir()
    (folder / "good.md").write_text(f"# Good\n\nIt mentions {word(3)}.\n", "utf-8")
    real = LiveIndex._reconcile
    calls: list[int] = []

    def crash_once(self: LiveIndex) -> bool:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("boom in the index thread")
        return real(self)

    monkeypatch.setattr(LiveIndex, "_reconcile", crash_once)
    quire = Quire.open(quire_home)
    win = MainWindow(quire, [folder])
    qtbot.addWidget(win)
    win.show()
    try:
        qtbot.waitUntil(lambda: win.error_notice is not None, timeout=30_000)
        assert win.error_notice is not None and win.error_notice.isVisible()
        assert "boom in the index thread" in win.error_notice.text()
        assert "restarted" in win.error_notice.text()
        qtbot.waitUntil(lambda: win.ready, timeout=INDEXED)  # the restarted thread did the work
        assert "good.md" in _search(qtbot, win, word(3))
    finally:
        win.close()
        QThreadPool.globalInstance().waitForDone(10_000)
        quire.close()
