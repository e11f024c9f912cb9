"""Look: follow the OS light/dark scheme, crisp icons at any scale, a visible passage selection."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication

from desktop_app import paths


def app_icon() -> QIcon:
    return QIcon(str(paths.resources_dir() / "icons" / "quire.svg"))  # SVG: sharp at any DPI


_choice = {"theme": "system"}


def is_dark() -> bool:
    if _choice["theme"] in ("light", "dark"):
        return _choice["theme"] == "dark"
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def _dark_palette() -> QPalette:
    p = QPalette()
    colors = {
        QPalette.ColorRole.Window: "#202124",
        QPalette.ColorRole.WindowText: "#e8eaed",
        QPalette.ColorRole.Base: "#17181a",
        QPalette.ColorRole.AlternateBase: "#26272b",
        QPalette.ColorRole.Text: "#e8eaed",
        QPalette.ColorRole.Button: "#2b2c30",
        QPalette.ColorRole.ButtonText: "#e8eaed",
        QPalette.ColorRole.Highlight: "#8ab4f8",
        QPalette.ColorRole.HighlightedText: "#111111",
        QPalette.ColorRole.Link: "#8ab4f8",
        QPalette.ColorRole.ToolTipBase: "#2b2c30",
        QPalette.ColorRole.ToolTipText: "#e8eaed",
        QPalette.ColorRole.PlaceholderText: "#9aa0a6",
    }
    for role, color in colors.items():
        p.setColor(role, QColor(color))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#6f7378"))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor("#6f7378"))
    return p


def apply_theme(app: QApplication, theme: str = "system") -> None:
    """Fusion everywhere; colours follow the OS scheme (and its changes) unless the user chose
    "light" or "dark" in the settings."""
    _choice["theme"] = theme
    if app.property("quire_themed"):
        _apply_palette(app)
        return
    app.setProperty("quire_themed", True)
    app.setStyle("Fusion")  # the same widgets everywhere, and it honours the palette below
    app.setWindowIcon(app_icon())
    _apply_palette(app)
    app.styleHints().colorSchemeChanged.connect(lambda _: _apply_palette(app))


def _apply_palette(app: QApplication) -> None:
    palette = _dark_palette() if is_dark() else app.style().standardPalette()
    # The highlighted passage must stay visible when the viewer does not have focus.
    for role in (QPalette.ColorRole.Highlight, QPalette.ColorRole.HighlightedText):
        palette.setColor(QPalette.ColorGroup.Inactive, role, palette.color(role))
    app.setPalette(palette)


def mark_color() -> str:
    """Background for matched query words in snippets, readable on light and dark."""
    return "#5b4a00" if is_dark() else "#fff3a3"


def dim_color() -> str:
    return QApplication.palette().color(QPalette.ColorRole.PlaceholderText).name()
