"""Pictures (scans, photos of pages and whiteboards) read by OCR (`ocr`), with Pillow.

A picture's size is checked from its header before a pixel is decoded, so a huge picture or a
decompression bomb (a small file that unpacks to gigabytes) fails with its size as the reason.
A photo's EXIF orientation is applied first, as every viewer shows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_app.core.ingest import ocr
from desktop_app.core.ingest.document import Document, PageRead
from desktop_app.core.ingest.note_file import NoteFailed, NoteSkipped

if TYPE_CHECKING:
    from PIL.Image import Image as Picture

MAX_PIXELS = 60_000_000  # an A3 page at 600 dpi, a 48-megapixel photo; more is no page to read
READ_AS = ["PNG", "JPEG", "TIFF", "WEBP"]  # Pillow's readers for the suffixes Quire reads


def load(
    path: Path,
    max_bytes: int,
    languages: Sequence[str] = (),
    on_page: PageRead | None = None,
) -> Document:
    """`max_bytes` is checked by `formats.load`; `languages`: Tesseract's codes, () for none
    (the picture is then not read: OCR is off); `on_page` hears when it was read."""
    if not languages:
        raise NoteSkipped("a picture, and OCR is off")
    why = ocr.unavailable()
    if why:
        raise NoteSkipped(f"a picture, and OCR cannot run here: {why}")
    picture, dpi, frames = open_picture(path)
    page = ocr.read_page(picture, dpi, languages)
    if on_page is not None:
        on_page(1, 1)
    if not page.text.strip():
        raise NoteSkipped(ocr.nothing_found(languages))
    words = tuple(
        (0, a, b, left, top, right, bottom) for a, b, left, top, right, bottom in page.words
    )
    return Document(
        page.text,
        markdown=False,
        title=path.stem.replace("_", " ").replace("-", " "),
        ocr_pages=(0,),
        ocr_words=words,
        warning=f"only the first of its {frames} pages is read" if frames > 1 else "",
    )


def open_picture(path: Path) -> tuple[Picture, int, int]:
    """The picture upright and grey, decoded, the resolution it says it was scanned at (or
    `ocr.PHOTO_DPI`) and how many pages (frames) it has; NoteFailed says why it cannot be
    read. Only the formats Quire names are opened (a PostScript file named `.png` is not run
    through Ghostscript)."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    Image.MAX_IMAGE_PIXELS = None  # checked below, before decoding, with the reason said
    try:
        with Image.open(path, formats=READ_AS) as picture:
            width, height = picture.size
            if width * height > MAX_PIXELS:
                raise NoteFailed(
                    f"picture too large to read: {width} × {height} pixels (more than "
                    f"{MAX_PIXELS // 1_000_000} million: a decompression bomb?)"
                )
            frames = getattr(picture, "n_frames", 1)
            picture.seek(0)  # a multi-page TIFF: its first page
            grey = picture.convert("L")  # one byte a pixel before it is turned
            grey.info["exif"] = picture.info.get("exif", b"")
            upright = ImageOps.exif_transpose(grey, in_place=False) or grey
            dpi = _dpi(picture.info.get("dpi"))
    except UnidentifiedImageError as exc:
        raise NoteFailed("not a picture Quire can read (damaged, or an unknown format)") from exc
    except (OSError, SyntaxError, ValueError) as exc:  # truncated or corrupt data
        raise NoteFailed(f"damaged picture ({exc})") from exc
    return upright, dpi, frames


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
