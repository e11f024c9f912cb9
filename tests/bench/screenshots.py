"""Screenshots of the window's main states (run under Xvfb: DISPLAY=:99 QT_QPA_PLATFORM=xcb).

usage: python tests/bench/screenshots.py OUT_DIR [--only scopes]

`--only scopes` takes just the scope shots, on the journal test set (tests/data/journal) with
QUIRE_TODAY at its today.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication


def wait_until(condition: Callable[[], bool], timeout_ms: int = 300_000) -> None:
    """Run the event loop until `condition` holds (checked every 50 ms) or the time is up."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    timer = QTimer(interval=50)

    def check() -> None:
        if condition():
            loop.quit()

    timer.timeout.connect(check)
    timer.start()
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()
    timer.stop()


def application() -> QApplication:
    """The running QApplication (a test's, when run by one), else a new one."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    return app if isinstance(app, QApplication) else QApplication(sys.argv)


def scope_shots(out: Path) -> int:
    """The Search tab and a chat limited by a time phrase and a tag, on the journal set."""
    os.environ["QUIRE_TODAY"] = "2026-12-02"

    from desktop_app.core.api import Quire
    from desktop_app.ui.main_window import MainWindow
    from desktop_app.ui.theme import apply_theme

    app = application()
    apply_theme(app)
    tmp = Path(tempfile.mkdtemp())
    notes = tmp / "journal"
    shutil.copytree(ROOT / "tests" / "data" / "journal" / "notes", notes)
    for path in notes.rglob("*.md"):
        os.utime(path, (1_590_969_600, 1_590_969_600))  # only the notes' own dates count
    quire = Quire.open(tmp / "home")
    window = MainWindow(quire, [notes])
    window.resize(1360, 860)
    window.show()

    wait_until(lambda: window.ready)
    window.tabs.setCurrentIndex(1)
    window.query.setText("tag:travel train 2025")
    wait_until(lambda: window.results.count() > 0, 10_000)
    wait_until(lambda: False, 400)
    window.grab().save(str(out / "10-scope-search.png"))
    window.tabs.setCurrentWidget(window.chat)
    finished: list[object] = []  # the Done events
    window.chat.finished.connect(finished.append)
    window.chat.ask("Was habe ich letzten Monat im Garten gepflanzt?")
    wait_until(lambda: bool(finished))
    if window.sources.sources:
        window.open_source(window.sources.sources[0])
    wait_until(lambda: False, 400)
    window.grab().save(str(out / "11-scope-chat.png"))
    window.close()
    quire.close()
    shutil.rmtree(tmp, ignore_errors=True)
    app.quit()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--only", choices=["scopes"])
    args = parser.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    if args.only == "scopes":
        return scope_shots(out)
    from PySide6.QtWidgets import QWidget

    from desktop_app.core.api import Quire
    from desktop_app.paths import sample_notes
    from desktop_app.ui.main_window import MainWindow
    from desktop_app.ui.theme import apply_theme

    app = application()
    apply_theme(app)
    tmp = Path(tempfile.mkdtemp())
    notes = tmp / "notes"
    shutil.copytree(sample_notes(), notes)
    (notes / "scan.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary" * 50)
    quire = Quire.open(tmp / "home")
    window = MainWindow(quire, [])
    window.resize(1360, 860)
    window.show()

    def shot(name: str, widget: QWidget | None = None) -> None:
        wait_until(lambda: False, 400)
        (widget or window).grab().save(str(out / name))

    shot("0-welcome.png")
    window.add_folder(notes)
    wait_until(lambda: window.ready)
    window.tabs.setCurrentWidget(window.files)  # the view asks for the file list when shown
    wait_until(lambda: window.last_status is not None and window.last_status.files is not None)
    window.files.filter.setCurrentIndex(1)
    shot("1-files-status.png")
    window.tabs.setCurrentWidget(window.chat)
    finished: list[object] = []  # the Done events
    window.chat.finished.connect(finished.append)
    window.chat.ask("At what temperature do I bake the sourdough bread, and for how long?")
    wait_until(lambda: bool(finished))
    window.open_source(window.sources.sources[0])
    shot("2-answer-with-passage.png")
    window.chat.ask("Who won the 1998 football world cup final?")
    wait_until(lambda: len(finished) > 1)
    shot("3-not-in-notes.png")
    window.tabs.setCurrentIndex(1)
    window.query.setText("Museumsinsel Eintritt")
    window.search()
    wait_until(lambda: window.results.count() > 0)
    shot("4-search.png")
    dialog = window.open_settings()
    shot("5-settings.png", dialog)
    dialog.reject()
    apply_theme(app, "dark")
    window.sources.refresh()
    window.tabs.setCurrentWidget(window.chat)
    window.chat.new_chat()
    window.chat.ask("Wie lange dauert die Zugfahrt von Prag nach Berlin?")
    wait_until(lambda: len(finished) > 2)
    window.open_source(window.sources.sources[0])
    shot("6-dark.png")
    apply_theme(app, "light")
    window.sources.refresh()
    window.chat.new_chat()
    window.chat.ask("How long does the train from Prague to Berlin take?")
    wait_until(lambda: len(finished) > 3)
    shot("8-checked-answer.png")
    window.chat.new_chat()
    window.chat.ask("What does Quire do with a scanned PDF that has no text layer?")
    wait_until(lambda: len(finished) > 4)
    cited = [e for e in window.chat.turns[-1].evidence if e.path.endswith(".pdf")]
    hits = [r for r in quire.search("scanned PDF no text layer", top_k=5) if r.page]
    window.open_source(cited[0] if cited else hits[0])  # the page, the passage painted over it
    shot("9-pdf-citation.png")
    window.chat.new_chat()
    window.chat.ask("Jak dlouho se peče svíčková?")  # a language the bundled model does not write
    wait_until(lambda: len(finished) > 5)
    shot("12-answer-in-the-notes-words.png")
    window.close()
    quire.close()
    shutil.rmtree(tmp, ignore_errors=True)
    app.quit()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
