"""Pictures (scans, photos of pages and whiteboards) read by OCR (`ocr`), with Pillow.

A picture's size is checked from its header before a pixel is decoded, so a huge picture or a
decompression bomb (a small file that unpacks to gigabytes) fails with its size as the reason.
A photo's EXIF orientation is applied first, as every viewer shows it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_app.core.ingest import ocr
from desktop_app.core.ingest.document import Document
from desktop_app.core.ingest.note_file import NoteFailed, NoteSkipped

if TYPE_CHECKING:
    from PIL.Image import Image as Picture

MAX_PIXELS = 60_000_000  # an A3 page at 600 dpi, a 48-megapixel photo; more is no page to read


def load(
    path: Path,
    max_bytes: int,
    languages: Sequence[str] = (),
    on_page: Callable[[int, int], None] | None = None,
) -> Document:
    """`max_bytes` is checked by `formats.load`; `languages`: Tesseract's codes, () for none
    (the picture is then not read: OCR is off); `on_page` hears when it was read."""
    if not languages:
        raise NoteSkipped("a picture, and OCR is off")
    why = ocr.unavailable()
    if why:
        raise NoteSkipped(f"a picture, and OCR cannot run here: {why}")
    picture, dpi = open_picture(path)
    page = ocr.read_page(picture, dpi, languages)
    if on_page is not None:
        on_page(1, 1)
    if not page.text.strip():
        raise NoteSkipped("no text found in the picture")
    words = tuple(
        (0, a, b, left, top, right, bottom) for a, b, left, top, right, bottom in page.words
    )
    return Document(
        page.text,
        markdown=False,
        title=path.stem.replace("_", " ").replace("-", " "),
        ocr_pages=(0,),
        ocr_words=words,
    )


def open_picture(path: Path) -> tuple[Picture, int]:
    """The picture upright, decoded, and the resolution it says it was scanned at (or
    `ocr.PHOTO_DPI`); NoteFailed says why it cannot be read."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    Image.MAX_IMAGE_PIXELS = None  # checked below, before decoding, with the reason said
    try:
        with Image.open(path) as picture:
            width, height = picture.size
            if width * height > MAX_PIXELS:
                raise NoteFailed(
                    f"picture too large to read: {width} × {height} pixels (more than "
                    f"{MAX_PIXELS // 1_000_000} million: a decompression bomb?)"
                )
            picture.seek(0)  # a multi-page TIFF: its first page
            upright = ImageOps.exif_transpose(picture)
            upright.load()
            dpi = _dpi(picture.info.get("dpi"))
    except UnidentifiedImageError as exc:
        raise NoteFailed("not a picture Quire can read (damaged, or an unknown format)") from exc
    except (OSError, SyntaxError, ValueError) as exc:  # truncated or corrupt data
        raise NoteFailed(f"damaged picture ({exc})") from exc
    return upright, dpi


def _dpi(said: object) -> int:
    """A resolution a scanner wrote (150–1200 dpi), else what a photo is read as."""
    if isinstance(said, tuple) and said:
        try:
            value = round(float(said[0]))
        except (TypeError, ValueError):
            return ocr.PHOTO_DPI
        if 150 <= value <= 1200:
            return value
    return ocr.PHOTO_DPI
