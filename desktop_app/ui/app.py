"""Start the window: the Qt application, the service and the bundled sample notes."""

from __future__ import annotations

import sys
from pathlib import Path
from types import TracebackType


def run_app(folders: list[Path] | None = None, argv: list[str] | None = None) -> int:
    """Open the window on `folders`, else on the folders used last time, else the welcome page."""
    from PySide6.QtCore import QThreadPool, QTimer
    from PySide6.QtWidgets import QApplication

    from desktop_app import crash
    from desktop_app.core.service import Quire
    from desktop_app.ui.dialogs import offer_crash_report, show_error
    from desktop_app.ui.main_window import MainWindow
    from desktop_app.ui.theme import apply_theme

    app = QApplication.instance() or QApplication(argv or sys.argv)
    app.setApplicationName("Quire")
    app.setDesktopFileName("quire")
    service = Quire()
    apply_theme(app, service.settings.theme)
    report = crash.previous_crash(service.home)
    crash.start_run(service.home)
    chosen = [f for f in (folders or []) if f.is_dir()]
    window = MainWindow(service, chosen + [f for f in service.known_folders() if f not in chosen])

    def unhandled(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        details = crash.record_exception(service.home, kind, exc, tb)
        show_error(window, f"Something went wrong: {exc}", details)  # the window keeps working

    sys.excepthook = unhandled
    window.show()
    if report is not None:
        QTimer.singleShot(0, lambda: offer_crash_report(window, report))
    code = app.exec()
    window.close()
    QThreadPool.globalInstance().waitForDone(5000)
    service.close()
    crash.clean_exit(service.home)
    return int(code)


def offscreen_check() -> dict[str, object]:
    """Create and paint a widget with the offscreen platform (used by --self-test)."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication, QLabel

    app = QApplication.instance() or QApplication([])
    label = QLabel("Quire")
    label.resize(120, 40)
    image = label.grab().toImage()
    return {"platform": app.platformName(), "painted": not image.isNull()}
