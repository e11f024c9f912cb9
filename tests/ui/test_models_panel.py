"""Settings → Models with real widgets: models found in a fake home are listed with size, quant,
context and memory, one click on Use switches the chat model through the settings apply path,
and a download from a loopback server lands in the list."""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt, QThreadPool
from PySide6.QtWidgets import QPushButton

from desktop_app.core.api import Quire
from desktop_app.core.models.catalog import CatalogEntry, RemoteFile
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.settings_dialog import SettingsDialog
from tests.support.fake_gguf import gguf_bytes, write_gguf

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("fake_embedder")]
LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def window(qtbot: QtBot, quire_home: Path) -> Iterator[MainWindow]:
    quire = Quire.open(quire_home)
    win = MainWindow(quire, [])
    qtbot.addWidget(win)
    win.show()
    yield win
    win.close()
    QThreadPool.globalInstance().waitForDone(10_000)
    quire.close()


@pytest.fixture
def fake_home(tmp_path: Path) -> Path:
    home = tmp_path / "user"
    write_gguf(home / ".lmstudio" / "models" / "pub" / "repo" / "Qwen2.5-3B-Instruct-Q4_K_M.gguf",
               context=32768, weights=2_000_000)  # fmt: skip
    write_gguf(home / "jan" / "models" / "tiny" / "tinyllama-Q8_0.gguf", file_type=7)
    return home


def _models_tab(qtbot: QtBot, dialog: SettingsDialog, home: Path, count: int) -> None:
    dialog.models.rescan(home=home, env={})
    dialog.tabs.setCurrentWidget(dialog.models)
    qtbot.waitUntil(lambda: len(dialog.models.model_rows()) == count, timeout=10_000)


def _button_for(dialog: SettingsDialog, path: Path | str) -> QPushButton:
    return next(button for p, button in dialog.models.model_rows() if p == str(path))


def test_one_click_switches_the_chat_model(
    qtbot: QtBot, window: MainWindow, fake_home: Path
) -> None:
    qwen = fake_home / ".lmstudio/models/pub/repo/Qwen2.5-3B-Instruct-Q4_K_M.gguf"
    dialog = window.open_settings()
    _models_tab(qtbot, dialog, fake_home, 3)
    found = dialog.models.found
    bundled, listed = found.topLevelItem(0), found.topLevelItem(1)
    assert bundled is not None and listed is not None
    assert bundled.text(1) == "Bundled with Quire"
    button = _button_for(dialog, "")  # the bundled model is the one in use
    assert button.text() == "In use" and not button.isEnabled()
    row = [listed.text(c) for c in range(6)]
    assert row[0] == "Qwen2.5-3B-Instruct-Q4_K_M" and row[1:5] == ["LM Studio", "2 MB", "Q4_K_M",
                                                                    "32,768"]  # fmt: skip
    assert row[5].startswith(("fits", "too big", "needs"))
    assert "2 found on this computer" in dialog.models.scan_status.text()

    qtbot.mouseClick(_button_for(dialog, qwen), LEFT)  # the one click
    assert not dialog.isVisible()
    assert window.quire.settings.chat_model == str(qwen)
    assert str(qwen) in (window.quire.home / "settings.json").read_text("utf-8")

    again = window.open_settings()
    _models_tab(qtbot, again, fake_home, 3)
    button = _button_for(again, qwen)
    assert button.text() == "In use" and not button.isEnabled()
    qtbot.mouseClick(_button_for(again, ""), LEFT)  # one click back to the bundled model
    assert window.quire.settings.chat_model == ""


def test_added_folder_is_searched_and_saved(
    qtbot: QtBot, window: MainWindow, fake_home: Path, tmp_path: Path
) -> None:
    mine = tmp_path / "my models"
    write_gguf(mine / "phi-3-mini-Q5_K_M.gguf", file_type=17)
    dialog = window.open_settings()
    _models_tab(qtbot, dialog, fake_home, 3)
    dialog.models.add_folder(str(mine))  # what the folder dialog hands over
    qtbot.waitUntil(lambda: len(dialog.models.model_rows()) == 4, timeout=10_000)
    dialog.accept()
    assert window.quire.settings.model_folders == [str(mine)]


@pytest.fixture
def file_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    served = tmp_path / "served"
    served.mkdir()

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(served)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}", served
    httpd.shutdown()
    httpd.server_close()
    thread.join(10)


def test_download_then_use(
    qtbot: QtBot, window: MainWindow, fake_home: Path, file_server: tuple[str, Path]
) -> None:
    url, served = file_server
    body = gguf_bytes(name="Tiny", weights=3 << 20)
    (served / "tiny.gguf").write_bytes(body)
    sha = hashlib.sha256(body).hexdigest()
    file = RemoteFile("tiny-Q4_K_M.gguf", f"{url}/tiny.gguf", len(body), sha)
    entry = CatalogEntry("tiny", "Tiny chat", "chat", "MIT", len(body), (file,))
    dialog = window.open_settings()
    _models_tab(qtbot, dialog, fake_home, 3)
    dialog.models.catalog = (entry,)
    dialog.models.fill_catalog()
    qtbot.mouseClick(dialog.models.download_button, LEFT)
    qtbot.waitUntil(lambda: "Saved" in dialog.models.download_status.text(), timeout=20_000)
    qtbot.waitUntil(lambda: len(dialog.models.model_rows()) == 4, timeout=10_000)
    downloaded = window.quire.home / "models" / "tiny-Q4_K_M.gguf"
    assert downloaded.read_bytes() == body
    qtbot.mouseClick(_button_for(dialog, downloaded), LEFT)
    assert window.quire.settings.chat_model == str(downloaded)


def test_a_failed_download_says_why(
    qtbot: QtBot, window: MainWindow, file_server: tuple[str, Path]
) -> None:
    url, _ = file_server
    file = RemoteFile("gone.gguf", f"{url}/gone.gguf", None, None)
    entry = CatalogEntry("gone", "Gone", "chat", "MIT", 10, (file,))
    dialog = window.open_settings()
    dialog.models.catalog = (entry,)
    dialog.models.fill_catalog()
    qtbot.mouseClick(dialog.models.download_button, LEFT)
    qtbot.waitUntil(lambda: "failed" in dialog.models.download_status.text(), timeout=20_000)
    assert "404" in dialog.models.download_status.text()
    assert dialog.models.download_button.isEnabled()
    dialog.reject()
