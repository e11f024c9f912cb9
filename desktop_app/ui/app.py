"""Start the window: the Qt application, the facade (Quire) and the bundled sample notes."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from types import TracebackType

import PySide6
from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox, QWidget

from desktop_app import crash
from desktop_app.core.api import NewerDatabaseError, Quire
from desktop_app.ui.dialogs import offer_crash_report, show_error
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.theme import apply_theme


def run_app(
    folders: list[Path] | None = None, argv: list[str] | None = None, smoke: bool = False
) -> int:
    """Open the window on `folders`, else on the folders used last time, else the welcome page.

    `smoke`: quit as soon as the window is shown, printing when (installer checks, benchmarks).
    """
    app = _application(argv or sys.argv)
    defect = binding_defect()
    if defect:
        print(f"quire: {defect}", file=sys.stderr)
        return 1
    app.setApplicationName("Quire")
    app.setDesktopFileName("app.quire.Quire")  # the .desktop file's id (packaging/linux)
    quire = _open_quire(smoke)
    if quire is None:
        return 3
    apply_theme(app, quire.settings.theme)
    report = crash.previous_crash(quire.home)
    crash.start_run(quire.home)
    chosen = [f for f in (folders or []) if f.is_dir()]
    window = MainWindow(quire, chosen + [f for f in quire.known_folders() if f not in chosen])

    def unhandled(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        details = crash.record_exception(quire.home, kind, exc, tb)
        show_error(window, f"Something went wrong: {exc}", details)  # the window keeps working

    sys.excepthook = unhandled
    _quit_on_sigterm(app)
    window.show()
    if report is not None and not smoke:
        QTimer.singleShot(0, lambda: offer_crash_report(window, report))
    if smoke:
        QTimer.singleShot(0, lambda: _smoke_done(window, app))
    code = app.exec()
    window.close()
    QThreadPool.globalInstance().waitForDone(5000)
    quire.close()
    crash.clean_exit(quire.home)
    return int(code)


def _application(argv: list[str]) -> QApplication:
    """The running QApplication, created on first use (`instance()` is typed as its base)."""
    existing = QApplication.instance()
    if existing is None:
        return QApplication(argv)
    assert isinstance(existing, QApplication), "a QCoreApplication already runs: no widgets"
    return existing


def _open_quire(smoke: bool) -> Quire | None:
    """The facade on the user's index; None (after saying why) when a newer Quire wrote it."""
    try:
        return Quire.open(models_in_worker=True)  # the window loads no embedding model
    except NewerDatabaseError as exc:
        print(f"quire: {exc}", file=sys.stderr)
        if not smoke:
            QMessageBox.critical(None, "Quire", str(exc))
        return None


def _quit_on_sigterm(app: QApplication) -> None:
    """A session logout or `kill` closes the window cleanly (Python only sees the signal when it
    runs, so a short timer gives it the chance)."""
    signal.signal(signal.SIGTERM, lambda *_: app.quit())
    timer = QTimer(app)
    timer.timeout.connect(lambda: None)
    timer.start(250)


def binding_defect() -> str | None:
    """Why this Qt binding would crash the window, if it would. PySide6 6.12.0 on Python 3.11
    drops a reference to `True` on every `Signal.emit()` from Python, until the interpreter
    aborts in `bool_dealloc` (a large vault's indexing reaches it in seconds)."""

    class Probe(QObject):
        ping = Signal()

    probe = Probe()
    before = sys.getrefcount(True)
    for _ in range(20):
        probe.ping.emit()
    if sys.getrefcount(True) < before - 10:
        return (
            f"PySide6 {PySide6.__version__} loses a reference to True on every signal and would "
            "crash Quire's window; install the pinned one: pip install PySide6-Essentials==6.11.3"
        )
    return None


def _smoke_done(window: QWidget, app: QApplication) -> None:
    shown = {"window_shown_at": time.time(), "visible": window.isVisible()}
    print(json.dumps(shown), flush=True)
    app.quit()


def offscreen_check() -> dict[str, object]:
    """Create and paint a widget with the offscreen platform (used by --self-test)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = _application([])
    defect = binding_defect()
    if defect:
        raise RuntimeError(defect)
    label = QLabel("Quire")
    label.resize(120, 40)
    image = label.grab().toImage()
    return {"platform": app.platformName(), "painted": not image.isNull()}
