"""The passage viewer: the note as plain text with exactly the passage's span selected, buttons to
open or reveal the note, and the note's local images. Remote images are never fetched."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QProcess, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QFontDatabase, QPixmap, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.api import IMAGE_TARGET, formats, span_on_page, suffix_of
from desktop_app.ui.pdf_page import PdfPageView

THUMB_HEIGHT = 120
EMPTY_HEADING = "Click a source or a search result to see it in its note."
VIEW_LIMIT_BYTES = 50_000_000


def image_refs(text: str) -> list[str]:
    return [m.group(1) or m.group(2) for m in IMAGE_TARGET.finditer(text)]


def local_image(note: Path, ref: str) -> Path | None:
    """The file a reference points to, if it is a local file; None for anything remote."""
    url = QUrl(ref)
    if url.scheme() and not url.isLocalFile() and len(url.scheme()) > 1:  # "C:" is a drive
        return None
    path = (
        Path(url.toLocalFile())
        if url.isLocalFile()
        else note.parent / QUrl.fromPercentEncoding(ref.encode())
    )
    return path if path.is_file() else None


def _qt_offset(text: str, offset: int) -> int:
    """Python counts code points, Qt counts UTF-16 units: astral characters take two."""
    return offset + sum(1 for ch in text[:offset] if ord(ch) > 0xFFFF)


def _note_text(note: Path) -> str:
    """What was indexed: a text note as it is, a Word file or web page as extracted (it was
    indexed, so it is not a hostile file)."""
    return formats.load(note, formats.size_cap(note.name, VIEW_LIMIT_BYTES)).text


PageStarts = Callable[[Path, str], list[int]]
# The words OCR read in a span of a note: (0-based page, box as fractions of the page).
OcrRead = Sequence[tuple[int, tuple[float, float, float, float]]]
OcrBoxes = Callable[[Path, str, int, int], OcrRead]


class PassageViewer(QWidget):
    def __init__(
        self, page_starts: PageStarts | None = None, ocr_boxes: OcrBoxes | None = None
    ) -> None:
        super().__init__()
        self.note: Path | None = None
        self.page_starts = page_starts or (lambda folder, path: [])
        self.ocr_boxes = ocr_boxes or (lambda folder, path, start, end: [])
        self.heading = QLabel(EMPTY_HEADING)
        self.heading.setWordWrap(True)
        self.heading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton("Open note")
        self.open_button.setToolTip("Open the note in its default app")
        self.reveal_button = QPushButton("Show in folder")
        self.reveal_button.setToolTip("Show the note in the file manager")
        for button in (self.open_button, self.reveal_button):
            button.setAccessibleName(button.toolTip())
            button.setEnabled(False)
        self.open_button.clicked.connect(self.open_externally)
        self.reveal_button.clicked.connect(self.reveal)
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setAccessibleName("Note viewer")
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont))
        self.images = QWidget()
        self.images_layout = QHBoxLayout(self.images)
        self.images_layout.setContentsMargins(0, 0, 0, 0)
        self.images_area = QScrollArea()
        self.images_area.setWidget(self.images)
        self.images_area.setWidgetResizable(True)
        self.images_area.setMaximumHeight(THUMB_HEIGHT + 30)
        self.images_area.hide()
        self.pdf_page = PdfPageView()
        self.views = QStackedWidget()
        self.views.addWidget(self.text)
        self.views.addWidget(self.pdf_page)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.open_button)
        top.addWidget(self.reveal_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.views, 1)
        layout.addWidget(self.images_area)

    def show_message(self, text: str) -> None:
        self.heading.setText(text)

    def clear(self) -> None:
        """Nothing from the previous conversation stays on screen (New chat)."""
        self.note = None
        self.text.clear()
        self._show_images(Path(), "")
        for button in (self.open_button, self.reveal_button):
            button.setEnabled(False)
        self.heading.setText(EMPTY_HEADING)

    def open_passage(
        self, folder: Path, path: str, start: int, end: int, line_start: int, line_end: int
    ) -> bool:
        note = folder / path
        try:
            if suffix_of(path) == ".pdf":
                read = self.ocr_boxes(folder, path, start, end)  # its scanned pages' words
                page = self._show_pdf(note, self.page_starts(folder, path), start, end, read)
                where = f"p. {page}"
            elif suffix_of(path) in formats.PICTURES:
                self._show_picture(note, self.ocr_boxes(folder, path, start, end))
                where = "read by OCR"
            else:
                self._show_text(note, start, end)
                where = f"lines {line_start}–{line_end}"
        except Exception as exc:  # moved, deleted or unreadable since it was indexed
            self.heading.setText(f"Cannot open {path}: {exc}")
            return False
        self.note = note
        for button in (self.open_button, self.reveal_button):
            button.setEnabled(True)
        self.heading.setText(f"<b>{path}</b> · {where}")
        return True

    def _show_text(self, note: Path, start: int, end: int) -> None:
        text = _note_text(note)
        self.text.setPlainText(text)  # plain text: nothing in a note is ever run
        cursor = self.text.textCursor()
        cursor.setPosition(_qt_offset(text, start))
        cursor.setPosition(_qt_offset(text, end), QTextCursor.MoveMode.KeepAnchor)
        self.text.setTextCursor(cursor)
        self.text.centerCursor()
        self.views.setCurrentWidget(self.text)
        self._show_images(note, text[start:end])

    def _show_pdf(
        self, note: Path, pages: list[int], start: int, end: int, read: OcrRead = ()
    ) -> int:
        """The page the span starts on, rendered, the span's characters (or the words OCR
        read on it) highlighted."""
        page, local_start, local_end = span_on_page(pages, start, end)
        self.views.setCurrentWidget(self.pdf_page)  # first: the page fits the pane's width
        on_page = [box for at, box in read if at == page - 1]
        self.pdf_page.show_span(note, page, local_start, local_end, on_page)
        self._show_images(note, "")
        return page

    def _show_picture(self, note: Path, read: OcrRead) -> None:
        """The picture, the words OCR read in the span highlighted."""
        self.views.setCurrentWidget(self.pdf_page)  # first: it fits the pane's width
        self.pdf_page.show_picture(note, [box for _, box in read])
        self._show_images(note, "")

    def open_note(self, folder: Path, path: str) -> bool:
        """The whole note, from its top, nothing selected (e.g. from the Files list)."""
        if not self.open_passage(folder, path, 0, 0, 1, 1):
            return False
        self.heading.setText(f"<b>{path}</b>")
        self.text.moveCursor(QTextCursor.MoveOperation.Start)
        return True

    def _show_images(self, note: Path, passage: str) -> None:
        while self.images_layout.count():
            item = self.images_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        refs = image_refs(passage)
        for ref in refs:
            label = QLabel()
            local = local_image(note, ref)
            pixmap = QPixmap(str(local)) if local else QPixmap()
            if not pixmap.isNull():
                smooth = Qt.TransformationMode.SmoothTransformation
                label.setPixmap(pixmap.scaledToHeight(THUMB_HEIGHT, smooth))
                label.setToolTip(str(local))
            else:
                why = "remote images are never loaded" if local is None else "unreadable"
                label.setText(f"Image not shown ({why}):\n{ref}")
                label.setEnabled(False)
            label.setAccessibleName(f"Image {ref}")
            self.images_layout.addWidget(label)
        self.images_layout.addStretch(1)
        self.images_area.setVisible(bool(refs))

    def open_externally(self) -> bool:
        """Open the note in its default app; if none is set up, say so and offer the folder."""
        if self.note is None:
            return False
        if QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.note))):
            return True
        self.heading.setText(
            f"No app is set up to open {self.note.suffix or 'this'} files. "
            "Use <b>Show in folder</b> to find the note in your file manager."
        )
        self.reveal_button.setFocus()
        return False

    def reveal(self) -> None:
        if self.note is None:
            return
        if sys.platform == "win32":
            QProcess.startDetached("explorer", [f"/select,{self.note}"])
        elif sys.platform == "darwin":
            QProcess.startDetached("open", ["-R", str(self.note)])
        else:  # no portable "select this file" on Linux desktops: open its folder
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.note.parent)))
