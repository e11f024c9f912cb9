"""Render resources/icons/quire.svg into the icon files installers need, with Qt (no extra tools).

python packaging/make_icons.py ico OUT.ico          # Windows (PNG-compressed entries)
python packaging/make_icons.py iconset OUT.iconset  # macOS: then `iconutil -c icns OUT.iconset`
python packaging/make_icons.py png OUT_DIR          # hicolor sizes, OUT_DIR/<n>x<n>.png
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

SVG = Path(__file__).resolve().parents[1] / "resources" / "icons" / "quire.svg"
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def render(size: int) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    QSvgRenderer(str(SVG)).render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data.data())


def write_ico(out: Path) -> None:
    images = [(size, render(size)) for size in ICO_SIZES]
    header = struct.pack("<HHH", 0, 1, len(images))
    offset = len(header) + 16 * len(images)
    entries, payload = b"", b""
    for size, png in images:
        side = 0 if size >= 256 else size  # 0 means 256 in an ICONDIRENTRY
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset)
        offset += len(png)
        payload += png
    out.write_bytes(header + entries + payload)


def write_iconset(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for size in (16, 32, 128, 256, 512):
        (out / f"icon_{size}x{size}.png").write_bytes(render(size))
        (out / f"icon_{size}x{size}@2x.png").write_bytes(render(size * 2))


def write_pngs(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for size in PNG_SIZES:
        (out / f"{size}x{size}.png").write_bytes(render(size))


def main(argv: list[str]) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    kind, out = argv[1], Path(argv[2])
    {"ico": write_ico, "iconset": write_iconset, "png": write_pngs}[kind](out)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
