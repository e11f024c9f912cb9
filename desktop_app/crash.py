"""Crash reports that stay on this computer.

While Quire runs, a marker file exists and fatal signals are logged by faulthandler; unhandled
exceptions are appended to an error log. A run that ends without `clean_exit()` leaves the
marker behind, and the next start turns the logs into a report it can offer to the user.
"""

from __future__ import annotations

import faulthandler
import platform
import sys
import time
import traceback
from pathlib import Path
from types import TracebackType
from typing import IO

from desktop_app.paths import logs_dir

_fault_file: IO[str] | None = None


def reports_dir(home: Path) -> Path:
    folder = home / "crash-reports"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def previous_crash(home: Path) -> Path | None:
    """A report on the last run if it did not end cleanly (call before `start_run`)."""
    marker = home / "running"
    if not marker.exists():
        return None
    logs = logs_dir(home)
    parts = [f"Quire did not close normally (run started {marker.read_text().strip()})."]
    for name in ("fault.log", "errors.log"):
        path = logs / name
        if path.exists() and path.stat().st_size:
            parts.append(f"--- {name} ---\n{path.read_text(errors='replace')[-20_000:]}")
    parts.append(f"--- system ---\n{_system()}")
    report = reports_dir(home) / time.strftime("crash-%Y%m%d-%H%M%S.txt")
    report.write_text("\n\n".join(parts), encoding="utf-8")
    marker.unlink()
    return report


def start_run(home: Path) -> None:
    global _fault_file
    logs = logs_dir(home)
    (logs / "errors.log").write_text("", encoding="utf-8")
    _fault_file = open(logs / "fault.log", "w", encoding="utf-8")  # noqa: SIM115 (kept open)
    faulthandler.enable(_fault_file)
    (home / "running").write_text(time.strftime("%Y-%m-%d %H:%M:%S"), encoding="utf-8")


def record_exception(
    home: Path,
    kind: type[BaseException],
    exc: BaseException,
    tb: TracebackType | None,
) -> str:
    """Append an unhandled exception to the error log; returns its text."""
    text = "".join(traceback.format_exception(kind, exc, tb))
    with open(logs_dir(home) / "errors.log", "a", encoding="utf-8") as log:
        log.write(f"{time.strftime('%H:%M:%S')}\n{text}\n")
    return text


def clean_exit(home: Path) -> None:
    global _fault_file
    if _fault_file is not None:
        faulthandler.disable()
        _fault_file.close()
        _fault_file = None
    (home / "running").unlink(missing_ok=True)


def _system() -> str:
    return f"Python {sys.version.split()[0]} on {platform.platform()}"
