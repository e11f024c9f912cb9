"""The first-start page: open the bundled sample notes, or pick your own folder."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_app.core.api import formats_read
from desktop_app.ui.theme import app_icon


class WelcomePage(QWidget):
    open_samples = Signal()
    choose_folder = Signal()

    def __init__(self) -> None:
        super().__init__()
        icon = QLabel()
        icon.setPixmap(app_icon().pixmap(QSize(96, 96), self.devicePixelRatioF()))  # sharp on HiDPI
        icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        title = QLabel("<h1>Welcome to Quire</h1>")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        text = QLabel(
            "Ask questions about your own notes and get answers that cite the exact passage.<br>"
            "Everything stays on this computer: no account, no network."
        )
        text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        text.setWordWrap(True)
        self.samples_button = QPushButton("Try it on the sample notes")
        self.samples_button.setDefault(True)
        self.folder_button = QPushButton("Choose my notes folder…")
        for button, signal in (
            (self.samples_button, self.open_samples),
            (self.folder_button, self.choose_folder),
        ):
            button.setMinimumHeight(40)
            button.setMinimumWidth(280)
            button.setAccessibleName(button.text())
            button.clicked.connect(signal.emit)
        hint = QLabel(f"{formats_read()}, in any language.")
        hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint.setEnabled(False)
        layout = QVBoxLayout(self)
        layout.addStretch(2)
        for label in (icon, title, text):
            layout.addWidget(label)
        layout.addSpacing(24)
        for button in (self.samples_button, self.folder_button):
            layout.addWidget(button, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addSpacing(12)
        layout.addWidget(hint)
        layout.addStretch(3)
