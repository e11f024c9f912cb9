"""Text from pictures of pages (scans, photos, image-only PDF pages): Tesseract through
tesserocr (Apache-2.0 / MIT), with the language data Quire ships (resources/tessdata).

Each word keeps its box on the picture, so a citation opens the picture with the cited words
highlighted. A page is read with every language the user reads (`ces+deu+eng` by default);
when its words say which language the page is in, and some word was read with another
language's letters (German `ä` read as Czech `á`), the page is read again in its own language.
A page that reads poorly is checked for being turned (90°, 180°, 270°) and read upright.

Runs where the file formats run: in the extraction worker (`extractor`), one page at a time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app import paths
from desktop_app.core.retrieval.analyzer import detect_language

if TYPE_CHECKING:
    from PIL import Image

DEFAULT_LANGUAGES = ("ces", "deu", "eng")
PHOTO_DPI = 300  # a picture says nothing of its scale: read it as a scan at this resolution
SAUVOLA = "2"  # Tesseract's local thresholding: uneven light (a photo) stays readable
LOW_CONFIDENCE = 80.0  # a page read worse than this (0–100) may be turned: Tesseract's OSD says
# Tesseract's codes (ISO 639-2/T) of the languages Quire's language identification knows.
ISO_639_1 = {
    "ces": "cs", "deu": "de", "eng": "en", "fra": "fr", "spa": "es", "ita": "it",
    "pol": "pl", "slk": "sk", "nld": "nl", "por": "pt", "dan": "da", "swe": "sv",
}  # fmt: skip

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
    lines: tuple[Line, ...]
    language: str  # the Tesseract languages it was read with at last, e.g. "deu"
    turned: int  # degrees (counterclockwise) the picture was turned to be read upright
    confidence: float  # Tesseract's mean word confidence, 0–100
    read_by: tuple[str, ...] = ()  # the language model that read each word


def tessdata_dir() -> Path:
    return paths.resources_dir() / "tessdata"


def installed_languages() -> list[str]:
    """The languages whose data Quire has (Tesseract codes)."""
    return sorted(p.stem for p in tessdata_dir().glob("*.traineddata") if p.stem != "osd")


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
    joined = "+".join(usable_languages(languages))
    page = _read(grey, dpi, joined)
    if page.confidence < LOW_CONFIDENCE:
        turn = _orientation(grey, dpi)
        if turn:
            upright = _read(grey.rotate(turn, expand=True), dpi, joined)
            if upright.confidence > page.confidence:
                page = _turned_back(upright, turn)
    own = _own_language(page, languages)
    if own and own != page.language:
        again = _read(grey.rotate(page.turned, expand=True) if page.turned else grey, dpi, own)
        page = _turned_back(again, page.turned) if page.turned else again
    return page


# --- Tesseract ---------------------------------------------------------------------------

_LOCK = threading.Lock()  # one Tesseract instance per language set, used by one thread at once


def _engine() -> Any:
    try:
        import tesserocr
    except ImportError as exc:
        raise OcrUnavailable(f"no OCR engine for this system (tesserocr: {exc})") from exc
    if not installed_languages():
        raise OcrUnavailable(f"no OCR language data in {tessdata_dir()}")
    return tesserocr


@lru_cache(maxsize=4)
def _api(languages: str) -> Any:
    tesserocr = _engine()
    psm = tesserocr.PSM.OSD_ONLY if languages == "osd" else tesserocr.PSM.AUTO
    api = tesserocr.PyTessBaseAPI(path=str(tessdata_dir()), lang=languages, psm=psm)
    api.SetVariable("thresholding_method", SAUVOLA)
    return api


def _read(grey: Image.Image, dpi: int, languages: str) -> ReadPage:
    tesserocr = _engine()
    with _LOCK:
        api = _api(languages)
        api.SetImage(grey)
        api.SetSourceResolution(dpi)
        api.Recognize()
        iterator = api.GetIterator()  # None when the page has nothing Tesseract calls text
        found = _words(tesserocr, iterator, grey.size) if iterator is not None else None
        text, words, lines, models = found or ("", [], [], [])
        confidence = float(api.MeanTextConf()) if words else 0.0
        api.Clear()
    return ReadPage(text, tuple(words), tuple(lines), languages, 0, confidence, tuple(models))


def _words(
    tesserocr: Any, iterator: Any, size: tuple[int, int]
) -> tuple[str, list[Word], list[Line], list[str]]:
    """The page's text (words joined by spaces, lines by a line break, paragraphs by a blank
    line), each word's place in it and box, each line's, and the model that read each word."""
    level, width, height = tesserocr.RIL, float(size[0]), float(size[1])
    text = _Text()
    models: list[str] = []
    for word in tesserocr.iterate_level(iterator, level.WORD):
        try:
            content = (word.GetUTF8Text(level.WORD) or "").strip()
        except RuntimeError:  # "No text returned": a page without a word found
            continue
        box = word.BoundingBox(level.WORD)
        if not content or box is None:
            continue
        if word.IsAtBeginningOf(level.PARA) or word.IsAtBeginningOf(level.BLOCK):
            text.new_line(paragraph=True)
        elif word.IsAtBeginningOf(level.TEXTLINE):
            text.new_line(paragraph=False)
        left, top, right, bottom = box
        text.add(content, (left / width, top / height, right / width, bottom / height))
        models.append(word.WordRecognitionLanguage() or "")
    text.new_line(paragraph=False)
    return "".join(text.parts), text.words, text.lines, models


class _Text:
    """A page's text as it is put together word by word, with its words' and lines' places."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.words: list[Word] = []
        self.lines: list[Line] = []
        self.pos = 0
        self._line: list[Word] = []
        self._paragraph = True

    def new_line(self, paragraph: bool) -> None:
        if self._line:
            first, last = self._line[0], self._line[-1]
            box = (
                min(w[2] for w in self._line), min(w[3] for w in self._line),
                max(w[4] for w in self._line), max(w[5] for w in self._line),
            )  # fmt: skip
            self.lines.append((first[0], last[1], *box, self._paragraph))
            self._line = []
        self._paragraph = paragraph or not self.parts

    def add(self, content: str, box: tuple[float, float, float, float]) -> None:
        if self.parts:
            gap = " " if self._line else "\n\n" if self._paragraph else "\n"
            self.parts.append(gap)
            self.pos += len(gap)
        word = (self.pos, self.pos + len(content), *box)
        self.words.append(word)
        self._line.append(word)
        self.parts.append(content)
        self.pos += len(content)


def _orientation(grey: Image.Image, dpi: int) -> int:
    """Degrees (counterclockwise) to turn the picture so its text stands upright: 0 when
    Tesseract's orientation detection cannot tell."""
    with _LOCK:
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


def _own_language(page: ReadPage, languages: Sequence[str]) -> str:
    """The page's language when it has words enough to say, and some word with a letter
    beyond ASCII was read by another language's model; "" to keep the page as read."""
    usable = usable_languages(languages)
    if len(usable) < 2 or len(page.words) < 5:
        return ""
    by_iso = {ISO_639_1[code]: code for code in usable if code in ISO_639_1}
    own = by_iso.get(detect_language(page.text, candidates=list(by_iso)), "")
    misread = any(
        model and model != own and not page.text[start:end].isascii()
        for (start, end, *_), model in zip(page.words, page.read_by, strict=True)
    )
    return own if own and misread else ""


def _turned_back(page: ReadPage, turn: int) -> ReadPage:
    """`page` read from the picture turned by `turn`°, its word boxes on the picture as stored."""
    back = _UNTURN[turn]

    def box_back(box: Sequence[float]) -> tuple[float, float, float, float]:
        (x0, y0), (x1, y1) = back(box[0], box[1]), back(box[2], box[3])
        return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)

    words = tuple((a, b, *box_back(box)) for a, b, *box in page.words)
    lines = tuple((a, b, *box_back(rest[:4]), bool(rest[4])) for a, b, *rest in page.lines)
    return replace(page, words=words, lines=lines, turned=turn)


# A point (fractions) on the picture turned counterclockwise by the key, back on the picture.
_UNTURN: dict[int, Callable[[float, float], tuple[float, float]]] = {
    0: lambda u, v: (u, v),
    90: lambda u, v: (1.0 - v, u),
    180: lambda u, v: (1.0 - u, 1.0 - v),
    270: lambda u, v: (v, 1.0 - u),
}
