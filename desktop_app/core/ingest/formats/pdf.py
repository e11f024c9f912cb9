"""PDF with pypdfium2 (Apache-2.0 / BSD): each page's text layer in reading order, pages joined
by a blank line; the outline, where there is one, gives the heading paths.

The text is pdfium's characters with its generated carriage returns and control characters
dropped (`visible`), so `char_indexes` maps any span back to pdfium's character indexes and from
there to boxes on the page (`char_boxes`) for the viewer's highlight.
"""

from __future__ import annotations

import bisect
import ctypes
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_app.core.ingest import ocr
from desktop_app.core.ingest.document import Document, MeasuredLine, PageRead, page_at
from desktop_app.core.ingest.note_file import NoteFailed, NoteSkipped

PAGE_BREAK = "\n\n"
# pdfium's generated control characters (all but line feed and tab) and its U+FFFF
_DROPPED_RE = re.compile(r"[\x00-\x08\x0b-\x1f\uffff]")
PARAGRAPH_GAP = 1.3  # a line this many usual line pitches below the last starts a paragraph
_LINE_BREAK = re.compile(r"\r\n")
MIN_TEXT_PER_PAGE = 4  # fewer visible characters than this on every page: no text layer
# Fonts' names that say bold, and fixed pitch.
_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi|[-+,]b$|cmbx|\bbx", re.IGNORECASE)
_MONO_NAME = re.compile(r"mono|courier|typewriter|consol|menlo|cmtt|\btt", re.IGNORECASE)


def load(
    path: Path, max_bytes: int, languages: Sequence[str] = (), on_page: PageRead | None = None
) -> Document:
    """`max_bytes` is checked by `formats.load`. A page without a text layer is read by OCR
    in `languages` (Tesseract's codes; none: it stays empty); `on_page` hears of each."""
    pdf = open_pdf(path)
    texts: list[str] = []
    lines: list[MeasuredLine] = []
    scans = _Scans(languages, on_page)
    try:
        for i in range(len(pdf)):
            raw, measured = _read_page(pdf, i, measure=True)
            shown, page_lines = measured or (visible(raw), [])
            if len(shown.strip()) < MIN_TEXT_PER_PAGE:
                shown, page_lines = scans.read(pdf, i, shown, page_lines)
            texts.append(shown)
            lines += page_lines
        outline = _sections(pdf)
        title = " ".join(str(pdf.get_metadata_value("Title") or "").split())
    finally:
        pdf.close()
    if not texts:
        raise NoteSkipped("empty PDF (no pages)")
    empty = sum(1 for t in texts if len(t.strip()) < MIN_TEXT_PER_PAGE)
    if empty == len(texts):
        if scans.can:
            raise NoteSkipped(ocr.nothing_found(languages))
        raise NoteSkipped("no text layer (scanned?)")
    pages, pos = [], 0
    for t in texts:
        pages.append(pos)
        pos += len(t) + len(PAGE_BREAK)
    return Document(
        PAGE_BREAK.join(texts),
        markdown=False,
        warning="; ".join(
            w for w in (_empty_pages(empty, len(texts), bool(scans.can)), scans.warning) if w
        ),
        pages=tuple(pages),
        sections=tuple((pages[n], p) for n, p in outline if n < len(pages)),
        title=title or path.stem.replace("_", " ").replace("-", " "),
        lines=tuple(lines),
        ocr_pages=tuple(scans.read_by_ocr),
        ocr_words=tuple(
            (n, pages[n] + a, pages[n] + b, left, top, right, bottom)
            for n, read in scans.read_by_ocr.items()
            for a, b, left, top, right, bottom in read.words
        ),
    )


class _Scans:
    """The pages of one PDF without a text layer, read by OCR where it can run."""

    def __init__(self, languages: Sequence[str], on_page: PageRead | None) -> None:
        self.languages, self.on_page = languages, on_page
        self.can: bool | None = None if languages else False  # asked at the first such page
        self.read_by_ocr: dict[int, ocr.ReadPage] = {}
        self.left = 0  # pages past MAX_OCR_PAGES
        self.failed: list[str] = []  # why pages could not be read

    @property
    def warning(self) -> str:
        said = []
        if self.left:
            said.append(f"{self.left} pages left unread (OCR reads {MAX_OCR_PAGES} of a file)")
        if self.failed:
            said.append(f"{len(self.failed)} pages OCR could not read ({self.failed[0]})")
        return "; ".join(said)

    def read(
        self, pdf: Any, index: int, shown: str, lines: list[MeasuredLine]
    ) -> tuple[str, list[MeasuredLine]]:
        """Page `index`'s text and lines, by OCR when it can run (else as they were)."""
        if self.can is None:
            self.can = not ocr.unavailable()
        if not self.can:
            return shown, lines
        if len(self.read_by_ocr) >= MAX_OCR_PAGES:
            self.left += 1
            return shown, lines
        try:
            read = _ocr_page(pdf, index, self.languages)
        except Exception as exc:  # one page that cannot be rendered or read: the rest can
            self.failed.append(f"page {index + 1}: {type(exc).__name__}: {exc}")
            return shown, lines
        self.read_by_ocr[index] = read
        if self.on_page is not None:
            self.on_page(index + 1, len(pdf))
        return read.text, _ocr_lines(read, index, pdf.get_page_size(index))


def _empty_pages(empty: int, pages: int, can_ocr: bool) -> str:
    if not empty:
        return ""
    return f"{empty} of {pages} pages have no text" + ("" if can_ocr else " layer (scanned?)")


OCR_DPI = 300
MAX_OCR_PAGES = 500  # a long scanned book; past it a crafted PDF of blank pages costs no more
OCR_MAX_PIXELS = 40_000_000  # a page larger than A2 at 300 dpi is read at a lower resolution


def _ocr_page(pdf: Any, index: int, languages: Sequence[str]) -> ocr.ReadPage:
    """A page without a text layer, rendered (in grey) and read by OCR."""
    width, height = pdf.get_page_size(index)
    scale = min(OCR_DPI / 72, math.sqrt(OCR_MAX_PIXELS / max(1.0, width * height)))
    bitmap = pdf[index].render(scale=scale, grayscale=True, may_draw_forms=False)
    return ocr.read_page(bitmap.to_pil(), round(72 * scale), languages)


def _ocr_lines(read: ocr.ReadPage, page: int, size: tuple[float, float]) -> list[MeasuredLine]:
    """OCR's lines as `read_lines` measures a text layer's (in points, from the page's
    bottom), so a scanned page's headings and paragraphs are read as a text page's are. A
    line's type size is its box's height over 1.2 (ascenders to descenders), to half points."""
    width, height = size[::-1] if read.turned in (90, 270) else size  # its lines stand upright
    lines: list[MeasuredLine] = []
    above: float | None = None
    for n, (start, end, left, top, right, bottom, paragraph) in enumerate(read.lines):
        baseline = height * (1.0 - bottom)
        pitch, above = (above - baseline if above is not None else 0.0), baseline
        type_size = round(2 * height * (bottom - top) / 1.2) / 2
        lines.append(
            (
                page,
                start,
                end,
                type_size,
                False,
                400,
                left * width,
                right * width,
                baseline,
                paragraph and n > 0,
                False,
                pitch,
            )
        )
    return lines


def open_pdf(path: Path) -> Any:
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(path)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise NoteFailed("encrypted (password-protected): Quire cannot read it") from exc
        raise NoteFailed(f"not a readable PDF ({exc})") from exc


def page_text(pdf: Any, index: int) -> str:
    """pdfium's characters of one page, one per character index; the line break that ends a
    paragraph (a wider gap to the next line) is a blank line."""
    return _read_page(pdf, index, measure=False)[0]


def _read_page(
    pdf: Any, index: int, measure: bool
) -> tuple[str, tuple[str, list[MeasuredLine]] | None]:
    """A page's text (as `page_text`) and, if `measure`, its visible text and its lines as
    they look."""
    import pypdfium2.raw as pdfium_c

    textpage = pdf[index].get_textpage()
    try:
        count = textpage.count_chars()
        text = textpage.get_text_range(0, count) if count > 0 else ""
        if len(text) != count:  # astral characters or pdfium quirks: read them one by one
            text = "".join(
                chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, i) or 0xFFFF) for i in range(count)
            )
        glyphs = _Glyphs(pdfium_c, textpage.raw, len(text))
        ends = _line_ends(text)
        text = _with_paragraph_breaks(text, _line_pitches(glyphs, text, ends))
        if not measure:
            return text, None
        shown = visible(text)
        return text, (shown, read_lines(glyphs, text, shown, ends, index))
    finally:
        textpage.close()


class _Glyphs:
    """pdfium's facts about one page's characters, each asked once: where a character's
    baseline starts (its origin), its type size, its font (pdfium's functions bound once:
    they are called for every line)."""

    def __init__(self, pdfium_c: Any, handle: Any, count: int) -> None:
        self.handle, self.count = handle, count
        self.size_of = pdfium_c.FPDFText_GetFontSize
        self.weight_of = pdfium_c.FPDFText_GetFontWeight
        self.origin_of = pdfium_c.FPDFText_GetCharOrigin
        self.box_of = pdfium_c.FPDFText_GetLooseCharBox
        self.font_of = pdfium_c.FPDFText_GetFontInfo
        self.x, self.y = ctypes.c_double(), ctypes.c_double()
        self.at = (ctypes.byref(self.x), ctypes.byref(self.y))
        self.origins: dict[int, tuple[float, float] | None] = {}
        self.name = ctypes.create_string_buffer(96)
        self.flags = ctypes.c_int()
        self.flags_ref = ctypes.byref(self.flags)
        self.fonts: dict[tuple[bytes, int], tuple[bool, bool, int]] = {}
        self.box = pdfium_c.FS_RECTF()
        self.box_ref = ctypes.byref(self.box)

    def origin(self, i: int) -> tuple[float, float] | None:
        if i in self.origins:
            return self.origins[i]
        ok = 0 <= i < self.count and self.origin_of(self.handle, i, *self.at)
        got = (self.x.value, self.y.value) if ok else None
        self.origins[i] = got
        return got

    def right(self, i: int) -> float:
        self.box_of(self.handle, i, self.box_ref)
        return float(self.box.right)

    def size(self, i: int) -> float:
        return float(self.size_of(self.handle, i))

    def font(self, i: int) -> tuple[bool, bool, int]:
        """Whether the character's font is named as a bold one (fonts that give no weight),
        whether it is a fixed-pitch one (code), and its weight (a font's, asked once)."""
        self.font_of(self.handle, i, self.name, 96, self.flags_ref)
        key = (self.name.value, self.flags.value)
        known = self.fonts.get(key)
        if known is None:
            if key not in _FONTS:
                label = key[0].decode("latin-1")
                fixed = bool(key[1] & _FIXED_PITCH) or bool(_MONO_NAME.search(label))
                _FONTS[key] = (bool(_BOLD_NAME.search(label)), fixed)
            weight = int(self.weight_of(self.handle, i))
            known = self.fonts[key] = (*_FONTS[key], weight)
        return known


_FONTS: dict[tuple[bytes, int], tuple[bool, bool]] = {}
_FIXED_PITCH = 1  # pdfium's font flag (PDF 32000-1, 9.8.2)


def _line_ends(text: str) -> list[int]:
    """Where each of pdfium's lines ends: the index of its "\r\n", or the text's end."""
    return [*(m.start() for m in _LINE_BREAK.finditer(text)), len(text)]


def _line_pitches(glyphs: _Glyphs, text: str, ends: list[int]) -> list[tuple[int, float]]:
    """Each line break ("\r" index) with the drop from the line before it to the next line's
    first character. The line before counts from the lower of its first and last
    characters: pdfium's line may hold two printed lines (a URL broken without a hyphen), and
    a raised footnote mark may end it."""
    out: list[tuple[int, float]] = []
    first = glyphs.origin(0)
    for end in ends[:-1]:
        last = glyphs.origin(_last_shown(text, end))
        line = [o[1] for o in (first, last) if o is not None]
        first = glyphs.origin(end + 2)
        if line and first is not None:
            out.append((end, min(line) - first[1]))
    return out


def _last_shown(text: str, end: int) -> int:
    """The last character before `end` that is not blank (blank lines: back into the one
    before)."""
    last = end - 1
    while last > 0 and text[last].isspace():
        last -= 1
    return last


def read_lines(
    glyphs: _Glyphs, raw: str, shown: str, ends: list[int], page: int
) -> list[MeasuredLine]:
    """The lines of one page's text (`raw`: pdfium's characters, paragraph breaks marked;
    `shown`: its visible text; `ends`: where each line ends in `raw`), with offsets into
    `shown`."""
    drops = [m.start() for m in _DROPPED_RE.finditer(raw)]
    lines: list[MeasuredLine] = []
    above: float | None = None
    pos, gap = 0, False
    for end in ends:
        start, stop = pos - bisect.bisect_left(drops, pos), end - bisect.bisect_left(drops, end)
        text = shown[start:stop]
        first = len(text) - len(text.lstrip())
        last = len(text.rstrip()) - 1
        if last >= first:
            size, bold, weight, left, right, baseline, mono = _looks(
                glyphs, pos + first, pos + last
            )
            pitch, above = (above - baseline if above is not None else 0.0), baseline
            lines.append(
                (page, start, stop, size, bold, weight, left, right, baseline, gap, mono, pitch)
            )
        gap = raw[end : end + 1] == "\n"
        pos = end + 2
    return lines


def _looks(
    glyphs: _Glyphs, first: int, last: int
) -> tuple[float, bool, int, float, float, float, bool]:
    """How the line from character `first` to `last` (pdfium's indexes) looks: type size (the
    middle one of three where its ends differ), bold by name and weight (its middle
    character's font's), left end, right end, baseline, and whether it is all fixed-pitch."""
    mid = first + (last - first) // 2
    bold, mono, weight = glyphs.font(mid)
    if mono:
        mono = glyphs.font(first)[1] and glyphs.font(last)[1]
    left, baseline = glyphs.origin(first) or (0.0, 0.0)
    size, end_size = glyphs.size(first), glyphs.size(last)
    if end_size != size:  # the middle one of three decides
        size = sorted((size, glyphs.size(mid), end_size))[1]
    return size, bold, weight, left, glyphs.right(last), baseline, mono


def _with_paragraph_breaks(text: str, pitches: list[tuple[int, float]]) -> str:
    """pdfium ends every line with "\\r\\n"; where the gap to the next line is wider than the
    page's usual line pitch, the "\\r" becomes
    "\\n": a blank line, the chunker's paragraph break, still one character per pdfium index."""
    usual = sorted(p for _, p in pitches if p > 0)
    if len(usual) < 2:
        return text
    median = usual[(len(usual) - 1) // 2]
    parts: list[str] = []
    pos = 0
    for at, pitch in pitches:
        if pitch > PARAGRAPH_GAP * median:
            parts += (text[pos:at], "\n")
            pos = at + 1
    return "".join(parts) + text[pos:] if parts else text


def visible_raw(raw: str) -> str:
    """pdfium's characters as Quire reads them, one for one, for comparing pdfium's own text
    with Quire's. pdfium writes a hyphen that ends a line after a letter as U+FFFE: it is
    printed, so it stays ("Mittelstrecken- und", "update-alternatives"; a word split at the
    line end is split)."""
    return raw.replace("\ufffe", "-")


def visible(raw: str) -> str:
    """`raw` without the characters Quire drops (a few in a page: a search for them, not a
    table lookup per character)."""
    return visible_raw(_DROPPED_RE.sub("", raw))


def char_indexes(raw: str) -> list[int]:
    """pdfium's index of each character `visible(raw)` keeps."""
    dropped = {m.start() for m in _DROPPED_RE.finditer(raw)}
    return [i for i in range(len(raw)) if i not in dropped]


def char_boxes(path: Path, page: int, start: int, end: int) -> list[tuple[float, ...]]:
    """The boxes (left, bottom, right, top, in PDF points) of the characters `start:end` of
    1-based `page`'s visible text, blanks left out."""
    pdf = open_pdf(path)
    try:
        return _boxes(pdf, page, start, end)
    finally:
        pdf.close()


def _boxes(pdf: Any, page: int, start: int, end: int) -> list[tuple[float, ...]]:
    if end <= start:
        return []
    raw = page_text(pdf, page - 1)
    indexes = char_indexes(raw)[start:end]
    textpage = pdf[page - 1].get_textpage()
    try:
        return [textpage.get_charbox(i) for i in indexes if not raw[i].isspace()]
    finally:
        textpage.close()


def _sections(pdf: Any) -> list[tuple[int, tuple[str, ...]]]:
    """(0-based page, heading path) for each outline entry that points at a page."""
    out: list[tuple[int, tuple[str, ...]]] = []
    path: list[str] = []
    try:
        for item in pdf.get_toc(max_depth=6):
            title = " ".join((item.get_title() or "").split())
            del path[item.level :]
            path.append(title)
            dest = item.get_dest()
            page = dest.get_index() if dest is not None else None
            if page is not None and page >= 0 and title:
                out.append((page, tuple(path)))
    except Exception:  # a broken outline costs the headings, never the text
        return []
    return sorted(out, key=lambda s: s[0])


@dataclass(frozen=True)
class RenderedPage:
    """A page as pixels (RGB, or RGBA with 4 `channels`) at `scale` pixels per PDF point."""

    pixels: bytes
    width: int
    height: int
    stride: int
    channels: int
    scale: float
    points: tuple[float, float]  # the page's width and height in PDF points

    def rect(self, box: tuple[float, ...]) -> tuple[float, float, float, float]:
        """A PDF box (left, bottom, right, top; origin bottom left) as pixel (x, y, w, h)."""
        left, bottom, right, top = box[:4]
        return (
            left * self.scale,
            (self.points[1] - top) * self.scale,
            (right - left) * self.scale,
            (top - bottom) * self.scale,
        )


def render_page(path: Path, page: int, scale: float) -> RenderedPage:
    """1-based `page` rendered; nothing in the file is run (no forms, no scripts)."""
    pdf = open_pdf(path)
    try:
        return _render(pdf, page, scale)
    finally:
        pdf.close()


def view_span(
    path: Path, page: int, start: int, end: int, scale_for: Callable[[float], float]
) -> tuple[RenderedPage, list[tuple[float, ...]]]:
    """1-based `page` rendered at `scale_for(its width in points)` and the boxes of the
    characters `start:end` of its text, the file opened once."""
    pdf = open_pdf(path)
    try:
        width, _ = pdf.get_page_size(page - 1)
        return _render(pdf, page, scale_for(float(width))), _boxes(pdf, page, start, end)
    finally:
        pdf.close()


def _render(pdf: Any, page: int, scale: float) -> RenderedPage:
    handle = pdf[page - 1]
    bitmap = handle.render(scale=scale, rev_byteorder=True, may_draw_forms=False)
    channels = bitmap.stride // bitmap.width if bitmap.width else 3
    return RenderedPage(
        bytes(bitmap.buffer),
        bitmap.width,
        bitmap.height,
        bitmap.stride,
        channels,
        scale,
        tuple(handle.get_size()),
    )


def span_on_page(pages: tuple[int, ...] | list[int], start: int, end: int) -> tuple[int, int, int]:
    """The 1-based page a document span starts on and the span in that page's text."""
    page = page_at(pages, start) or 1
    offset = pages[page - 1] if pages else 0
    following = pages[page] if page < len(pages) else None
    local_end = end - offset if following is None else min(end, following) - offset
    return page, start - offset, local_end
