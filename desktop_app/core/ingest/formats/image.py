"""Pictures (scans, photos of pages and whiteboards) read by OCR (`ocr`), with Pillow.

A picture's size is checked from its header before a pixel is decoded, so a huge picture or a
decompression bomb (a small file that unpacks to gigabytes) fails with its size as the reason.
A photo's EXIF orientation is applied first, as every viewer shows it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_app.core.ingest import ocr
from desktop_app.core.ingest.document import Document, PageRead
from desktop_app.core.ingest.note_file import NoteFailed, NoteSkipped

if TYPE_CHECKING:
    from PIL.Image import Image as Picture

MAX_PIXELS = 60_000_000  # an A3 page at 600 dpi, a 48-megapixel photo; more is no page to read
READ_AS = ["PNG", "JPEG", "TIFF", "WEBP", "HEIF"]  # Pillow's readers for Quire's suffixes


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
    read."""
    with _checked(path) as picture:
        frames = getattr(picture, "n_frames", 1)
        upright = _upright(picture, "L")  # one byte a pixel before it is turned
        dpi = _dpi(picture.info.get("dpi"))
    return upright, dpi, frames


def for_viewing(path: Path, max_width: int) -> tuple[bytes, int, int]:
    """The picture as a viewer shows it, for formats the window's toolkit cannot decode
    (HEIF): upright, RGB, at most `max_width` pixels wide; its bytes, width and height.
    NoteFailed says why it cannot be shown."""
    with _checked(path) as picture:
        upright = _upright(picture, "RGB")
    if upright.width > max_width > 0:
        upright.thumbnail((max_width, upright.height))
    return upright.tobytes(), upright.width, upright.height


@contextmanager
def _checked(path: Path) -> Iterator[Picture]:
    """The picture (its first page) opened, not decoded, its size checked from its header;
    only the formats Quire names are opened (a PostScript file named `.png` is not run through
    Ghostscript). A damaged or unknown picture, or one too large, raises NoteFailed with the
    reason."""
    from PIL import Image, UnidentifiedImageError

    _read_heif()
    Image.MAX_IMAGE_PIXELS = None  # checked below, before decoding, with the reason said
    try:
        with Image.open(path, formats=READ_AS) as picture:
            width, height = picture.size
            if width * height > MAX_PIXELS:
                raise NoteFailed(
                    f"picture too large to read: {width} × {height} pixels (more than "
                    f"{MAX_PIXELS // 1_000_000} million: a decompression bomb?)"
                )
            picture.seek(0)  # a multi-page TIFF: its first page
            yield picture
    except UnidentifiedImageError as exc:
        raise NoteFailed("not a picture Quire can read (damaged, or an unknown format)") from exc
    except (OSError, SyntaxError, ValueError) as exc:  # truncated or corrupt data
        raise NoteFailed(f"damaged picture ({exc})") from exc


def _upright(picture: Picture, mode: str) -> Picture:
    """The decoded picture in `mode`, turned as its EXIF orientation says."""
    from PIL import ImageOps

    converted = picture.convert(mode)
    converted.info["exif"] = picture.info.get("exif", b"")
    return ImageOps.exif_transpose(converted, in_place=False) or converted


@cache
def _read_heif() -> None:
    """Teach Pillow HEIF (a phone's photos), decode only; its container applies its own
    rotation, and its EXIF orientation is then set to upright, so nothing turns it twice."""
    from pi_heif import register_heif_opener

    register_heif_opener()


def heif_decoder() -> str:
    """The library HEIF photos are decoded with, as it names itself."""
    from pi_heif import libheif_info

    info = libheif_info()
    return f"libheif {info['libheif']} ({', '.join(info['decoders'].values())})"


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
