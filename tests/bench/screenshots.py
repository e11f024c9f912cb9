"""Screenshots of the window's main states (run under Xvfb: DISPLAY=:99 QT_QPA_PLATFORM=xcb).

usage: python tests/bench/screenshots.py OUT_DIR
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from desktop_app.core.service import Quire
    from desktop_app.paths import sample_notes
    from desktop_app.ui.main_window import MainWindow

    app = QApplication(sys.argv)
    tmp = Path(tempfile.mkdtemp())
    notes = tmp / "notes"
    shutil.copytree(sample_notes(), notes)
    service = Quire(tmp / "home")
    window = MainWindow(service, [notes])
    window.show()

    def wait_until(condition, timeout_ms: int = 120_000) -> None:  # type: ignore[no-untyped-def]
        loop = QEventLoop()
        timer = QTimer(interval=50)
        timer.timeout.connect(lambda: condition() and loop.quit())
        timer.start()
        QTimer.singleShot(timeout_ms, loop.quit)
        loop.exec()
        timer.stop()

    wait_until(lambda: window.heading.text().startswith("Ready"))
    window.grab().save(str(out / "1-ready.png"))
    finished: list[dict] = []
    window.chat.finished.connect(finished.append)
    window.chat.ask("At what temperature do I bake the sourdough bread, and for how long?")
    wait_until(lambda: bool(finished))
    window.open_source(1)
    wait_until(lambda: False, 300)
    window.grab().save(str(out / "2-answer-with-passage.png"))
    window.chat.ask("Who won the 1998 football world cup final?")
    wait_until(lambda: len(finished) > 1)
    wait_until(lambda: False, 300)
    window.grab().save(str(out / "3-not-in-notes.png"))
    window.tabs.setCurrentIndex(1)
    window.query.setText("řetěz kolo svíčková Berlin")
    window.query.setText("Museumsinsel Eintritt")
    window.search()
    wait_until(lambda: window.results.count() > 0)
    wait_until(lambda: False, 300)
    window.grab().save(str(out / "4-search.png"))
    window.close()
    service.close()
    app.quit()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
