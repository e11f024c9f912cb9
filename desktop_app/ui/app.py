"""Start the window: the Qt application, the service and the bundled sample notes."""

from __future__ import annotations

import sys
from pathlib import Path


def run_app(argv: list[str] | None = None) -> int:
    from PySide6.QtWidgets import QApplication

    from desktop_app import paths
    from desktop_app.core.service import Quire
    from desktop_app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(argv or sys.argv)
    app.setApplicationName("Quire")
    service = Quire()
    folders = service.known_folders() or [paths.resources_dir() / "sample_notes"]
    window = MainWindow(service, folders)
    window.show()
    code = app.exec()
    window.index_task.cancel()
    from PySide6.QtCore import QThreadPool

    QThreadPool.globalInstance().waitForDone(5000)
    service.close()
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


def sample_notes() -> Path:
    from desktop_app import paths

    return paths.resources_dir() / "sample_notes"
