"""A PDF page or a picture as the viewer shows it: the page rendered by pdfium (the picture
decoded by Qt, or by the core where Qt cannot: HEIF), the cited characters' boxes (the words
OCR read) painted over it, scrolled so the first one is in view."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QImageReader, QPainter, QPixmap
from PySide6.QtWidgets import QLabel, QScrollArea

from desktop_app.core.api import image_format, pdf

HIGHLIGHT = QColor(255, 210, 0, 110)
Box = tuple[float, float, float, float]  # left, top, right, bottom: fractions of the page
MIN_SCALE, MAX_SCALE = 0.5, 2.0  # pixels per PDF point: the page fits the pane's width


class PdfPageView(QScrollArea):
    def __init__(self) -> None:
        super().__init__()
        self.page_label = QLabel()
        self.page_label.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.page_label.setAccessibleName("PDF page")
        self.setWidget(self.page_label)
        self.setWidgetResizable(True)
        self.page = 0
        self.scale = 1.0
        self.highlights: list[QRectF] = []  # in the rendered page's pixels

    def show_span(
        self, path: Path, page: int, start: int, end: int, read: Sequence[Box] = ()
    ) -> None:
        """Render 1-based `page` with the characters `start:end` of its text highlighted, or,
        on a scanned page, the boxes `read` (fractions of the page: the words OCR read there;
        its text is OCR's, not the few characters of its text layer)."""

        def fitted(width: float) -> float:
            return min(MAX_SCALE, max(MIN_SCALE, (self.viewport().width() - 8) / width))

        if read:
            start = end = 0
        rendered, boxes = pdf.view_span(path, page, start, end, fitted)
        self.page, self.scale = page, rendered.scale
        image = _image(rendered)
        self._paint(image, [QRectF(*rendered.rect(b)) for b in boxes] + _rects(read, image))

    def show_picture(self, path: Path, read: Sequence[Box]) -> None:
        """A picture fitted to the pane's width, upright as its EXIF says, the boxes `read`
        (fractions of the picture) highlighted."""
        width = max(100, self.viewport().width() - 8)
        reader = QImageReader(str(path))  # Qt's allocation limit guards the window's memory
        reader.setAutoTransform(True)
        if reader.canRead():
            image = reader.read()
            if image.isNull():
                raise OSError(reader.errorString())
        else:  # a phone's HEIF photo: decoded by the core, its size checked first
            pixels, wide, high = image_format.for_viewing(path, width)
            image = QImage(pixels, wide, high, wide * 3, QImage.Format.Format_RGB888).copy()
        if image.width() > width:
            image = image.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
        image = image.convertToFormat(QImage.Format.Format_RGB32)
        self.page, self.scale = 1, 1.0
        self._paint(image, _rects(read, image))

    def _paint(self, image: QImage, highlights: list[QRectF]) -> None:
        self.highlights = highlights
        painter = QPainter(image)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(HIGHLIGHT)
        for rect in self.highlights:
            painter.drawRect(rect)
        painter.end()
        self.page_label.setPixmap(QPixmap.fromImage(image))
        if self.highlights:
            first = self.highlights[0]
            self.ensureVisible(int(first.x()), int(first.y()), 50, 200)


def _rects(boxes: Sequence[Box], image: QImage) -> list[QRectF]:
    width, height = image.width(), image.height()
    return [
        QRectF(left * width, top * height, (right - left) * width, (bottom - top) * height)
        for left, top, right, bottom in boxes
    ]


def _image(rendered: pdf.RenderedPage) -> QImage:
    fmt = QImage.Format.Format_RGB888 if rendered.channels == 3 else QImage.Format.Format_RGBX8888
    image = QImage(rendered.pixels, rendered.width, rendered.height, rendered.stride, fmt)
    return image.convertToFormat(QImage.Format.Format_RGB32)  # a copy that owns its pixels
