"""Text from pictures of pages (scans, photos, image-only PDF pages): Tesseract through
tesserocr (Apache-2.0 / MIT), with the language data Quire ships (resources/tessdata).

Each word keeps its box on the picture, so a citation opens the picture with the cited words
highlighted. A page is read with every language the user reads (`ces+deu+eng` by default);
when its words say which language the page is in, and some word was read with another
language's letters (German `ä` read as Czech `á`), those lines are read again in its language.
A page that reads poorly is checked for being turned (90°, 180°, 270°) and read upright.

Runs where the file formats run: in the extraction worker (`extractor`), one page at a time.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app import paths
from desktop_app.core.retrieval.analyzer import detect_language

if TYPE_CHECKING:
    from PIL import Image

DEFAULT_LANGUAGES = ("ces", "deu", "eng")
PHOTO_DPI = 300  # a picture says nothing of its scale: read it as a scan at this resolution
SAUVOLA = "2"  # Tesseract's local thresholding: uneven light (a photo) stays readable
# Grey levels between the darkest and the lightest paper of a picture past which its light is
# uneven (a photo) and Sauvola reads it; evenly lit paper (a scan) reads as well, and faster,
# with Tesseract's global threshold.
UNEVEN_LIGHT = 24
MAX_SIDE = 30_000  # Tesseract ends the process on a side over 32,767 pixels
LOW_CONFIDENCE = 80.0  # a page read worse than this (0–100) may be turned: Tesseract's OSD says
# Tesseract's codes (ISO 639-2/T) of the languages Quire's language identification knows.
ISO_639_1 = {
    "ces": "cs",
    "deu": "de",
    "eng": "en",
    "fra": "fr",
    "spa": "es",
    "ita": "it",
    "pol": "pl",
    "slk": "sk",
    "nld": "nl",
    "por": "pt",
    "dan": "da",
    "swe": "sv",
}

# (start, end) of a word in the page's text and its box (left, top, right, bottom) as
# fractions of the picture's width and height (upright as stored, whatever was read).
Word = tuple[int, int, float, float, float, float]
# A line likewise, and whether it starts a paragraph.
Line = tuple[int, int, float, float, float, float, bool]


class OcrUnavailable(Exception):
    """OCR cannot run here; the message says why (no engine for this system, no data)."""


@dataclass(frozen=True)
class ReadPage:
    """What OCR read on one picture."""

    text: str
    words: tuple[Word, ...]
    lines: tuple[Line, ...]  # upright, as read: boxes on the picture turned by `turned`
    language: str  # the page's own language ("deu") when lines were read again in it, else
    # the languages it was read with ("ces+deu+eng")
    turned: int  # degrees (counterclockwise) the picture was turned to be read upright
    confidence: float  # Tesseract's mean word confidence, 0–100


def nothing_found(languages: Sequence[str]) -> str:
    """Why a picture or a scan is skipped when OCR found no text: the same bytes read with
    the same languages are not read again."""
    return f"no text found by OCR ({' '.join(languages)})"


def tessdata_dir() -> Path:
    return paths.resources_dir() / "tessdata"


def installed_languages() -> list[str]:
    """The languages whose data Quire has (Tesseract codes)."""
    return list(_installed())


@lru_cache(maxsize=1)
def _installed() -> tuple[str, ...]:  # the folder is part of the install: read once
    return tuple(sorted(p.stem for p in tessdata_dir().glob("*.traineddata") if p.stem != "osd"))


def unavailable() -> str:
    """Why OCR cannot run on this system, or "" when it can."""
    try:
        _engine()
    except OcrUnavailable as exc:
        return str(exc)
    return ""


def engine_name() -> str:
    """The engine and its version, e.g. "Tesseract 5.5.4 (tesserocr 2.13.0)"."""
    tesserocr = _engine()
    version = tesserocr.tesseract_version().split()[1]
    return f"Tesseract {version} (tesserocr {tesserocr.__version__})"


def usable_languages(wanted: Sequence[str]) -> list[str]:
    """The wanted languages Quire has data for, in order (all it has when none of them)."""
    have = installed_languages()
    chosen = [code for code in wanted if code in have]
    return chosen or have


def read_page(image: Image.Image, dpi: int, languages: Sequence[str]) -> ReadPage:
    """The text and word boxes on `image` (any mode; read in grey), scanned at `dpi`."""
    grey = image.convert("L")
    if max(grey.size) > MAX_SIDE:  # a long screenshot: smaller, in proportion
        factor = MAX_SIDE / max(grey.size)
        size = (max(1, round(grey.width * factor)), max(1, round(grey.height * factor)))
        grey, dpi = grey.resize(size), max(1, round(dpi * factor))
    usable = usable_languages(languages)
    joined = "+".join(usable)
    read = partial(_read, local=_uneven_light(grey))
    lines, confidence = read(grey, dpi, joined)
    turn = 0
    if lines and confidence < LOW_CONFIDENCE:
        turn = _orientation(grey, dpi)
        if turn:
            turned = grey.rotate(turn, expand=True)
            upright, better = read(turned, dpi, joined)
            if better > confidence:
                grey, lines, confidence = turned, upright, better
            else:
                turn = 0
    own = _own_language(lines, usable)
    if own:  # only the lines where another language's letters crept in are read again
        lines = [
            _reread(read, grey, dpi, own, line) if _misread(line, own) else line for line in lines
        ]
    page = _page(lines, grey.size, own or joined, confidence)
    return _turned_back(page, turn) if turn else page


@dataclass
class _Line:
    """A line as Tesseract read it: each word, its box in pixels and the model that read it."""

    words: list[tuple[str, tuple[int, int, int, int], str]]
    paragraph: bool  # it starts a paragraph (or a block)

    @property
    def box(self) -> tuple[int, int, int, int]:
        boxes = [box for _, box, _ in self.words]
        return (
            min(b[0] for b in boxes),
            min(b[1] for b in boxes),
            max(b[2] for b in boxes),
            max(b[3] for b in boxes),
        )


def _own_language(lines: list[_Line], usable: list[str]) -> str:
    """The page's language (Tesseract's code, one of `usable`) when its words say which and
    some word with a letter beyond ASCII was read by another language's model; "" to keep the
    page as read."""
    words = [word for line in lines for word in line.words]
    if len(usable) < 2 or len(words) < 5:
        return ""
    by_iso = {ISO_639_1[code]: code for code in usable if code in ISO_639_1}
    if len(by_iso) < 2:
        return ""
    text = " ".join(content for content, _, _ in words)
    own = by_iso.get(detect_language(text, candidates=list(by_iso)), "")
    return own if own and any(_misread(line, own) for line in lines) else ""


def _misread(line: _Line, own: str) -> bool:
    """A word with a letter beyond ASCII (not a curly quote or a dash) read by another
    language's model."""
    return any(
        model and model != own and any(ch.isalpha() and not ch.isascii() for ch in text)
        for text, _, model in line.words
    )


def _page(lines: list[_Line], size: tuple[int, int], language: str, confidence: float) -> ReadPage:
    """The page's text (words joined by spaces, lines by a line break, paragraphs by a blank
    line) with each word's and line's place in it and box (fractions of the picture)."""
    width, height = float(size[0]), float(size[1])

    def fractions(box: tuple[int, int, int, int]) -> tuple[float, float, float, float]:
        return box[0] / width, box[1] / height, box[2] / width, box[3] / height

    parts: list[str] = []
    words: list[Word] = []
    placed: list[Line] = []
    pos = 0
    for line in lines:
        if parts:
            gap = "\n\n" if line.paragraph else "\n"
            parts.append(gap)
            pos += len(gap)
        first = pos
        for n, (content, box, _) in enumerate(line.words):
            if n:
                parts.append(" ")
                pos += 1
            words.append((pos, pos + len(content), *fractions(box)))
            parts.append(content)
            pos += len(content)
        placed.append((first, pos, *fractions(line.box), line.paragraph or not placed))
    return ReadPage("".join(parts), tuple(words), tuple(placed), language, 0, confidence)


# --- Tesseract ---------------------------------------------------------------------------

_LOCK = threading.Lock()  # one Tesseract instance per language set, used by one thread at once


def _engine() -> Any:
    try:
        import tesserocr
    except ImportError as exc:
        raise OcrUnavailable(f"no OCR engine for this system (tesserocr: {exc})") from exc
    if not _installed():
        raise OcrUnavailable(f"no OCR language data in {tessdata_dir()}")
    return tesserocr


def _uneven_light(grey: Image.Image) -> bool:
    """Whether the paper's brightness varies across the picture (`UNEVEN_LIGHT`): the text
    filtered out of a small copy, the lightest and darkest twentieth of the paper compared."""
    from PIL import ImageFilter

    factor = max(1, min(8, min(grey.size) // 16))
    paper = grey.reduce(factor).filter(ImageFilter.MaxFilter(7)).histogram()
    total, seen, levels = sum(paper), 0, list[int]()
    for level, count in enumerate(paper):
        seen += count
        while len(levels) < 2 and seen >= total * (0.05, 0.95)[len(levels)]:
            levels.append(level)
    return len(levels) == 2 and levels[1] - levels[0] > UNEVEN_LIGHT


@lru_cache(maxsize=8)
def _api(languages: str, one_line: bool = False, local: bool = True) -> Any:
    tesserocr = _engine()
    psm = tesserocr.PSM.AUTO
    if languages == "osd":
        psm = tesserocr.PSM.OSD_ONLY
    elif one_line:
        psm = tesserocr.PSM.SINGLE_LINE
    api = tesserocr.PyTessBaseAPI(path=str(tessdata_dir()), lang=languages, psm=psm)
    api.SetVariable("thresholding_method", SAUVOLA if local else "0")
    return api


def _read(
    grey: Image.Image,
    dpi: int,
    languages: str,
    within: tuple[int, int, int, int] | None = None,
    local: bool = True,
) -> tuple[list[_Line], float]:
    """The lines Tesseract reads on the picture (in the box `within`: one line, in pixels)
    and its mean word confidence; `local`: Sauvola's threshold, else Otsu's."""
    tesserocr = _engine()
    with _LOCK, _native_messages_muted():
        api = _api(languages, one_line=within is not None, local=local)
        api.SetImage(grey)
        api.SetSourceResolution(dpi)
        if within is not None:
            left, top, right, bottom = within
            api.SetRectangle(left, top, right - left, bottom - top)
        try:
            api.Recognize()
            iterator = api.GetIterator()  # None when the page has nothing Tesseract calls text
            lines = _lines(tesserocr, iterator) if iterator is not None else []
            confidence = float(api.MeanTextConf()) if lines else 0.0
        finally:
            api.Clear()
    return lines, confidence


def _reread(
    read: Callable[..., tuple[list[_Line], float]],
    grey: Image.Image,
    dpi: int,
    own: str,
    line: _Line,
) -> _Line:
    """`line` read again in the page's own language alone (a little more than its box)."""
    left, top, right, bottom = line.box
    margin = max(2, (bottom - top) // 3)
    within = (
        max(0, left - margin),
        max(0, top - margin),
        min(grey.width, right + margin),
        min(grey.height, bottom + margin),
    )
    again, _ = read(grey, dpi, own, within)
    words = [word for reread in again for word in reread.words]
    # The same words, read better: a re-read that splits or merges more than one word (a
    # neighbouring line's edge in the box) is not trusted over the first reading.
    trusted = words and abs(len(words) - len(line.words)) <= 1
    return _Line(words, line.paragraph) if trusted else line


def _lines(tesserocr: Any, iterator: Any) -> list[_Line]:
    level = tesserocr.RIL
    lines: list[_Line] = []
    for word in tesserocr.iterate_level(iterator, level.WORD):
        try:
            content = (word.GetUTF8Text(level.WORD) or "").strip()
        except RuntimeError:  # "No text returned": a page without a word found
            continue
        box = word.BoundingBox(level.WORD)
        if not content or box is None:
            continue
        paragraph = word.IsAtBeginningOf(level.PARA) or word.IsAtBeginningOf(level.BLOCK)
        if not lines or paragraph or word.IsAtBeginningOf(level.TEXTLINE):
            lines.append(_Line([], paragraph))
        lines[-1].words.append((content, tuple(box), word.WordRecognitionLanguage() or ""))
    return lines


@contextmanager
def _native_messages_muted() -> Iterator[None]:
    """Leptonica writes its complaints ("Error in boxClipToRectangle") straight to the
    process's standard error: nothing for a user to act on, so it goes nowhere meanwhile."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "wb") as sink:
            os.dup2(sink.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _orientation(grey: Image.Image, dpi: int) -> int:
    """Degrees (counterclockwise) to turn the picture so its text stands upright: 0 when
    Tesseract's orientation detection cannot tell."""
    with _LOCK, _native_messages_muted():
        api = _api("osd")
        api.SetImage(grey)
        api.SetSourceResolution(dpi)
        try:
            found = api.DetectOrientationScript()
        finally:
            api.Clear()
    if not found:
        return 0
    return int(found.get("orient_deg", 0)) % 360


def _turned_back(page: ReadPage, turn: int) -> ReadPage:
    """`page` read from the picture turned by `turn`°, its word boxes on the picture as stored."""
    back = _UNTURN[turn]

    def box_back(box: Sequence[float]) -> tuple[float, float, float, float]:
        (x0, y0), (x1, y1) = back(box[0], box[1]), back(box[2], box[3])
        return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)

    words = tuple((a, b, *box_back(box)) for a, b, *box in page.words)
    return replace(page, words=words, turned=turn)  # its lines stay upright (`_ocr_lines`)


# A point (fractions) on the picture turned counterclockwise by the key, back on the picture.
_UNTURN: dict[int, Callable[[float, float], tuple[float, float]]] = {
    0: lambda u, v: (u, v),
    90: lambda u, v: (1.0 - v, u),
    180: lambda u, v: (1.0 - u, 1.0 - v),
    270: lambda u, v: (v, 1.0 - u),
}
