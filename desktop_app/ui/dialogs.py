"""Friendly error dialogs with copyable details, and the crash report offered on next start."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget


def _dialog(parent: QWidget | None, title: str, text: str, details: str) -> QMessageBox:
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(title)
    box.setText(text)
    if details:
        box.setDetailedText(details)  # selectable text the user can copy into a bug report
        copy = box.addButton("Copy details", QMessageBox.ButtonRole.ActionRole)
        copy.clicked.disconnect()  # keep the dialog open after copying
        copy.clicked.connect(lambda: QApplication.clipboard().setText(f"{text}\n\n{details}"))
    box.addButton(QMessageBox.StandardButton.Ok)
    return box


def show_error(parent: QWidget | None, text: str, details: str = "") -> QMessageBox:
    """Non-blocking: the window keeps working while the message is shown."""
    box = _dialog(parent, "Quire", text, details)
    box.open()
    return box


def show_info(parent: QWidget | None, text: str, details: str = "") -> QMessageBox:
    """Non-blocking, like show_error, for news that is not an error (a repaired index)."""
    box = _dialog(parent, "Quire", text, details)
    box.setIcon(QMessageBox.Icon.Information)
    box.open()
    return box


def offer_crash_report(parent: QWidget | None, report: Path) -> QMessageBox:
    box = _dialog(
        parent,
        "Quire closed unexpectedly",
        "Quire did not close normally last time. A report was saved on this computer "
        f"(nothing is sent anywhere):\n{report}",
        report.read_text(encoding="utf-8", errors="replace"),
    )
    folder = box.addButton("Open reports folder", QMessageBox.ButtonRole.ActionRole)
    folder.clicked.disconnect()
    folder.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(report.parent))))
    box.open()
    return box
