"""A PDF's text as a person reads it: each line's type size, weight, font and place on the page
give headings, paragraphs, lists, code, footnotes, running headers and footers, page numbers
and pages that list terms.

Nothing here changes the text: `pdf.read_lines` measures pdfium's lines (in the extractor's
worker), `read` names what each stretch of the document's text is (`PageBlock`s over exact
offsets; when the note is analysed), so every passage built from them still maps to its
characters' boxes.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from desktop_app.core.ingest.document import Document, PageBlock

HEADING_SIZE = 1.15  # type this much larger than the body's is a heading
BOLDER = 150  # a weight this much above the body text's is bold
APART = 1.6  # a header or footer stands this many body sizes from the text, or more
SMALL = 0.85  # type this much smaller than the body's, below it on a page: footnotes
MAX_HEADING_CHARS = 160
FURNITURE_SHARE = 0.2  # a page edge slot holding numbered lines on this share of pages
WIDER_PITCH = 1.2  # a line this much further below the last than usual, after a sentence
LIST_SHARE = 0.5  # of a page's lines ending in a page number or dot leaders: a list of terms
MIN_LIST_LINES = 6
# The mark a list item starts with: a bullet or dash, or a number or letter and its dot.
_ITEM = re.compile(r"^\s*(?:[•◦▪▫‣⁃∙●○■□–—*-]|\(?(?:\d{1,3}|[a-z]|[ivx]{1,4})[.)])\s+\S")
# A footnote starts with its mark: digits (superscript or not) or a symbol.
_NOTE_MARK = re.compile(r"\s*(?:\d{1,3}|[⁰¹²³⁴-⁹]+|[*†‡§])")
_MARK_AT_END = re.compile(r"(?<=[.,;:])(?:\s+\d{1,3}|\s*[⁰¹²³⁴-⁹]+|\s*[*†‡])$")
_NUMBER = re.compile(r"\b\d+\b|\b[ivxlc]+\b$", re.IGNORECASE)
_PAGE_NUMBER = re.compile(
    r"^\W*(?:page\s+|p\.\s*|seite\s+|strana\s+)?(?:\d+|[ivxlc]{1,6})(?:\s*(?:/|of|von|z)\s*\d+)?\W*$",
    re.IGNORECASE,
)
# A line of a listing ends in a page number, dot leaders or an ellipsis, or starts "[12]".
_LISTED = re.compile(r"(?:\.\s?){3,}\s*\d*\s*$|…\s*\d*\s*$|\s\d+(?:[,–-]\s*\d+)*\s*$")
_REFERENCE = re.compile(r"\s*\[\d+\]")
# A line that ends a sentence: its last mark, or one closing a bracket or quote after it
# ("(optional)" in a table's row ends none).
_SENTENCE_END = re.compile(r"(?:[.:!?;]|[.!?][)\"”“’»])\s*$")
LINE_END_CHARS = 64  # how much of a line's end `ends_sentence` reads
_MAY_END = frozenset('.:!?;)"”“’»*†‡0123456789⁰¹²³⁴⁵⁶⁷⁸⁹')  # the last characters of both
# A line that only numbers the heading under it: "Chapter 4", "TWO", "Anhang B".
_LABEL = re.compile(
    r"^\s*(?:(?:chapter|part|appendix|section|book|kapitel|teil|anhang|kapitola|část|příloha)"
    r"(?:\s+\S{1,6})?|\d+(?:\.\d+)*|[ivxlc]{1,6}|one|two|three|four|five|six|seven|eight|"
    r"nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
    r"twenty)\s*$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_SPACE = re.compile(r"\s+")


@dataclass(slots=True)
class Line:
    """One of pdfium's lines: [start, end) in its page's visible text, and how it looks."""

    page: int  # 0-based
    start: int
    end: int
    text: str
    size: float
    bold: bool  # its font's name says so; or its weight, once `structure` has weighed it
    weight: int
    left: float
    right: float
    baseline: float
    gap_before: bool = False  # pdfium's text has a blank line before it (a wider line pitch)
    mono: bool = False  # its first, middle and last characters are in a fixed-pitch font
    pitch: float = 0.0  # how far below the line before it on its page it stands (0: first)


_Edges = tuple[dict[int, float], dict[int, float]]  # per page: right edge, usual line pitch


@dataclass(frozen=True)
class Heading:
    line: int  # index of its first line
    count: int  # lines it spans
    text: str
    style: tuple[float, bool]


Sections = tuple[tuple[int, tuple[str, ...]], ...]  # (offset, heading path), in order


def read(document: Document) -> tuple[list[PageBlock], Sections]:
    """A PDF's blocks, and its sections: the headings found on its pages (matched to its
    outline where it has one) and the outline's entries no heading on their page matches (at
    the page's start)."""
    pages, text = document.pages, document.text
    lines = [
        Line(m[0], m[1], m[2], text[pages[m[0]] + m[1] : pages[m[0]] + m[2]], *m[3:])
        for m in document.lines
    ]
    at_page = {offset: n for n, offset in enumerate(pages)}
    outline = [(at_page[at], path) for at, path in document.sections if at in at_page]
    blocks, headed = structure(lines, pages, outline)
    found = {path for _, path in headed}
    sections = sorted(
        [*headed, *((pages[n], path) for n, path in outline if path not in found)],
        key=lambda s: s[0],
    )
    return blocks, tuple(sections)


def structure(
    lines: list[Line],
    pages: tuple[int, ...],
    outline: list[tuple[int, tuple[str, ...]]],
) -> tuple[list[PageBlock], list[tuple[int, tuple[str, ...]]]]:
    """The blocks of a document's text (headings, paragraphs, code, footnotes, furniture,
    listed terms) and the heading path from each heading on. `pages`: where each page starts
    in the text; `outline`: (page, path) of the PDF's own outline."""
    if not lines:
        return [], []
    body = _body_size(lines)
    _weigh(lines)
    _code_runs(lines)
    furniture = _furniture(lines, len(pages), body)
    listed = _listing_pages(lines, furniture)
    headings = _headings(lines, furniture, body, listed)
    paths = _heading_paths(lines, headings, outline)
    edges = _page_edges(lines, body)

    def starts(para: list[int], i: int) -> bool:
        return _starts_block(lines, para, i, body, edges)

    reader = _Reader(lines, pages, listed, starts)
    sections: list[tuple[int, tuple[str, ...]]] = []
    heads = {h.line: h for h in headings}
    inside = {h.line + k for h in headings for k in range(1, h.count)}
    notes = _footnotes(lines, furniture, body)
    for i in range(len(lines)):
        if i in inside:
            continue
        if i in furniture:  # read past: a paragraph runs on over it
            reader.add(i, i, "furniture")
        elif i in notes:
            reader.held.append(i)
        elif i in heads:
            reader.flush()
            sections.append((reader.add(i, i + heads[i].count - 1, "heading"), paths[i]))
        else:
            reader.line(i, bool(reader.para) and starts(reader.para, i))
    reader.flush()
    if not listed:
        return sorted(reader.blocks), sections
    skipped = listed, furniture
    prose = [pages[ln.page] + ln.start for k, ln in enumerate(lines) if _prose(ln, k, skipped)]
    return sorted(reader.blocks), _after_listings(sections, pages, listed, prose)


def _prose(line: Line, k: int, skipped: tuple[set[int], set[int]]) -> bool:
    """Whether line `k` is neither on a listing page nor furniture."""
    listed, furniture = skipped
    return line.page not in listed and k not in furniture


def _after_listings(
    sections: list[tuple[int, tuple[str, ...]]],
    pages: tuple[int, ...],
    listed: set[int],
    prose: list[int],
) -> list[tuple[int, tuple[str, ...]]]:
    """A heading on a contents or index page heads that listing only: the text after it (where
    `prose`, the offsets of lines on other pages, goes on) is under the path before it again."""
    out = list(sections)
    before: tuple[str, ...] = ()
    for n, (start, path) in enumerate(sections):
        if bisect.bisect_right(pages, start) - 1 not in listed:
            before = path
            continue
        at = bisect.bisect_right(prose, start)
        end = sections[n + 1][0] if n + 1 < len(sections) else None
        if at < len(prose) and (end is None or prose[at] < end):
            out.append((prose[at], before))
    return sorted(out, key=lambda s: s[0])


class _Reader:
    """Blocks gathered line by line: the paragraph being read, and the footnotes held under it
    while it may run on to the next page."""

    def __init__(
        self,
        lines: list[Line],
        pages: tuple[int, ...],
        listed: set[int],
        starts: Callable[[list[int], int], bool],
    ) -> None:
        self.lines, self.pages, self.listed, self.starts = lines, pages, listed, starts
        self.blocks: list[PageBlock] = []
        self.para: list[int] = []
        self.held: list[int] = []

    def add(self, first: int, last: int, kind: str) -> int:
        """A block from line `first` to line `last`; where it starts."""
        a, b = self.lines[first], self.lines[last]
        start = self.pages[a.page] + a.start
        self.blocks.append(PageBlock(start, self.pages[b.page] + b.end, kind))
        return start

    def line(self, i: int, breaks: bool) -> None:
        if breaks:
            self.flush()
        elif self.held:  # the paragraph runs on past its page's footnotes: they are in it
            self.para += self.held
            self.held.clear()
        self.para.append(i)

    def flush(self) -> None:
        notes: list[list[int]] = []
        for i in self.held:  # each footnote a paragraph of its own
            if not notes or self._note_starts(notes[-1], i):
                notes.append([])
            notes[-1].append(i)
        for n, run in enumerate([self.para, *notes] if self.para else notes):
            first = self.lines[run[0]]
            note = n > 0 or not self.para
            kind = "code" if first.mono else "note" if note else "text"
            self.add(run[0], run[-1], "list" if first.page in self.listed else kind)
        self.para, self.held = [], []

    def _note_starts(self, run: list[int], i: int) -> bool:
        """Whether line `i` starts a footnote after the footnote `run`: where a paragraph would
        start, or at a mark after a line that ends a sentence; not after a mark alone."""
        last = self.lines[run[-1]].text
        if _NOTE_MARK.fullmatch(last):
            return False
        marked = bool(_NOTE_MARK.match(self.lines[i].text)) and ends_sentence(last)
        return marked or self.starts(run, i)


def _starts_block(lines: list[Line], para: list[int], i: int, body: float, edges: _Edges) -> bool:
    """Whether line `i` starts a block after the paragraph `para`: code (fixed-pitch lines)
    and prose apart, a code block whole and a list's items one block, as Markdown reads them;
    else where a paragraph breaks."""
    a, b, first = lines[para[-1]], lines[i], lines[para[0]]
    if a.mono != b.mono:
        return True
    if b.mono:
        return abs(a.size - b.size) > 0.5
    if _ITEM.match(first.text):
        if _ITEM.match(b.text) and abs(b.left - first.left) < body:  # the list's next item
            return abs(a.size - b.size) > 0.5
        if b.left - first.left > body / 2 and not b.gap_before:  # the item's wrapped line
            return abs(a.size - b.size) > 0.5
    return _breaks(lines, para[-1], i, body, edges)


def _footnotes(lines: list[Line], furniture: set[int], body: float) -> set[int]:
    """Lines in smaller type below a page's last line of body type."""
    last: dict[int, int] = {}
    for i, line in enumerate(lines):
        if i not in furniture and line.size >= SMALL * body:
            last[line.page] = i
    return {
        i
        for i, line in enumerate(lines)
        if i not in furniture and line.size < SMALL * body and i > last.get(line.page, len(lines))
    }


def _weigh(lines: list[Line]) -> None:
    """Bold: a font named bold, or a weight well above the body text's (pdfium estimates
    weights from the glyphs, so only a clear difference says bold)."""
    weights: Counter[int] = Counter()
    for line in lines:
        if line.weight > 0:
            weights[line.weight] += len(line.text)
    if weights:
        usual = weights.most_common(1)[0][0]
        for line in lines:
            if line.weight >= usual + BOLDER:
                line.bold = True


def _code_runs(lines: list[Line]) -> None:
    """Code is two or more fixed-pitch lines: a lone one is a code word that a line of prose
    starts or ends with."""

    def mono_beside(i: int) -> bool:
        near = [lines[k] for k in (i - 1, i + 1) if 0 <= k < len(lines)]
        return any(n.mono and n.page == lines[i].page for n in near)

    lone = [i for i, line in enumerate(lines) if line.mono and not mono_beside(i)]
    for i in lone:
        lines[i].mono = False


def _body_size(lines: list[Line]) -> float:
    sizes: dict[float, int] = {}
    for line in lines:
        size = round(line.size, 1)
        sizes[size] = sizes.get(size, 0) + len(line.text)
    return Counter(sizes).most_common(1)[0][0]


def _by_page(lines: list[Line]) -> dict[int, list[int]]:
    """The indexes of each page's lines."""
    out: dict[int, list[int]] = {}
    for i, line in enumerate(lines):
        out.setdefault(line.page, []).append(i)
    return out


def _norm(text: str) -> str:
    return _SPACE.sub(" ", _DIGITS.sub("#", text.strip().lower()))


def _furniture(lines: list[Line], page_count: int, body: float) -> set[int]:
    """Running headers and footers: a page's outermost lines, set apart from the text by a
    wider gap and in type no larger than the body's, that are a page number or stand where
    other pages have the same words; the outermost also where many pages have their outermost
    line numbered. A lone page number is furniture wherever it stands outermost; on a page of
    nothing else, a line is furniture only where it frames text on other pages (a blank page's
    running header), not where every page is one such line (its text)."""
    edges = []
    for idx in _by_page(lines).values():
        top = [i for _, i in sorted([(-lines[i].baseline, i) for i in idx])[:3]]
        bottom = [i for _, i in sorted([(lines[i].baseline, i) for i in idx])[:3]]
        edges.append((top, bottom))
    frame = _Frame(lines, body, edges, max(2.0, FURNITURE_SHARE * page_count))
    bare = [top[:2] == bottom[:2][::-1] for top, bottom in edges]
    out: set[int] = set()
    for (top, bottom), alone in zip(edges, bare, strict=True):
        if not alone:
            out |= frame.outermost(top, bottom, lambda i: True)
    framed = {frame.norms[i] for i in out}
    for (top, bottom), alone in zip(edges, bare, strict=True):
        if alone:
            out |= frame.outermost(top, bottom, lambda i: frame.norms[i] in framed)
    return out


class _Frame:
    """The outermost lines of pages and how often their words recur at the same place."""

    def __init__(
        self, lines: list[Line], body: float, edges: list[tuple[list[int], list[int]]], least: float
    ) -> None:
        self.lines, self.body, self.least = lines, body, least
        self.norms, self.same, self.numbered = _edge_counts(lines, edges)

    def outermost(
        self, top: list[int], bottom: list[int], allowed: Callable[[int], bool]
    ) -> set[int]:
        """A page's furniture: from each edge inwards, while its lines are."""
        lines, body, out = self.lines, self.body, set()
        for edge, idx in enumerate((top, bottom)):
            for k, i in enumerate(idx[:2]):
                line = lines[i]
                slot = (edge, round(line.baseline / 3))
                apart = k + 1 >= len(idx) or (
                    abs(line.baseline - lines[idx[k + 1]].baseline) > APART * body
                )
                seen = self.same[(*slot, self.norms[i])]
                numbered = k == 0 and bool(_NUMBER.search(line.text))
                repeated = seen >= 2 or (numbered and self.numbered[slot] >= self.least)
                if _PAGE_NUMBER.match(line.text) or (
                    apart
                    and repeated
                    and allowed(i)
                    and line.size < HEADING_SIZE * body
                    and len(line.text) <= MAX_HEADING_CHARS
                ):
                    out.add(i)
                else:
                    break
        return out


def _edge_counts(
    lines: list[Line], edges: list[tuple[list[int], list[int]]]
) -> tuple[dict[int, str], Counter[tuple[int, int, str]], Counter[tuple[int, int]]]:
    """The words (digits as #) of the two outermost lines at each page edge; how many pages
    have those words at that place (give or take 3 points); how many have a numbered line
    outermost there."""
    norms: dict[int, str] = {}
    same: dict[tuple[int, int, str], int] = {}
    numbered: dict[tuple[int, int], int] = {}
    for top, bottom in edges:
        for edge, idx in enumerate((top, bottom)):
            for k, i in enumerate(idx[:2]):
                norm = norms[i] = _norm(lines[i].text)
                at = round(lines[i].baseline / 3)
                counts_number = k == 0 and bool(_NUMBER.search(lines[i].text))
                for near in (at - 1, at, at + 1):
                    same[(edge, near, norm)] = same.get((edge, near, norm), 0) + 1
                    numbered[(edge, near)] = numbered.get((edge, near), 0) + counts_number
    return norms, Counter(same), Counter(numbered)


def _listing_pages(lines: list[Line], furniture: set[int]) -> set[int]:
    """Pages most of whose lines end in page numbers or dot leaders: contents, indexes (a page
    of a few such lines only where it ends the listing before it)."""
    count: dict[int, int] = {}
    listed: dict[int, int] = {}
    for i, line in enumerate(lines):
        if i in furniture:
            continue
        count[line.page] = count.get(line.page, 0) + 1
        if _listed(line.text):
            listed[line.page] = listed.get(line.page, 0) + 1
    out: set[int] = set()
    for page, n in sorted(count.items()):
        if listed.get(page, 0) >= LIST_SHARE * n and (n >= MIN_LIST_LINES or page - 1 in out):
            out.add(page)
    return out


def _listed(text: str) -> bool:
    """Whether a line is one of a listing's (only its end is searched: long lines are many)."""
    end = text.rstrip()[-1:]
    if end.isdigit() or end in (".", "…"):
        return bool(_LISTED.search(text, max(0, len(text) - 48)))
    return bool(_REFERENCE.match(text))


def _is_heading_line(line: Line, body: float) -> bool:
    larger = line.size >= HEADING_SIZE * body
    if not larger and (not line.bold or line.size < body * 0.95):
        return False
    text = line.text.strip()
    if len(text) > MAX_HEADING_CHARS or not any(c.isalpha() for c in text):
        return False
    if larger:
        return True
    ends = _MARK_AT_END.sub("", text)  # a footnote's mark after the sentence's end
    return not ends.endswith((".", ",", ";", ":"))


def _headings(
    lines: list[Line], furniture: set[int], body: float, listed: set[int]
) -> list[Heading]:
    """Lines in larger or bold type standing apart from the body; consecutive lines of one
    style (a wrapped title) or a short label above a title ("Chapter 4") are one heading."""
    out: list[Heading] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if (
            i in furniture
            or (line.page in listed and line.size < HEADING_SIZE * body)  # a contents entry
            or not (_is_heading_line(line, body) or _wrapped_title(lines, i, body))
        ):
            i += 1
            continue
        style = (round(line.size * 2) / 2, line.bold)
        count, best = 1, style
        while i + count < len(lines) and count < 4:
            nxt = lines[i + count]
            nxt_style = (round(nxt.size * 2) / 2, nxt.bold)
            if i + count in furniture or nxt.page != line.page or not _is_heading_line(nxt, body):
                break
            if nxt_style != style and not (count == 1 and _LABEL.match(line.text)):
                break
            best, style = max(best, nxt_style), nxt_style
            count += 1
        if not _apart(lines, i + count - 1, body):
            i += 1
            continue
        text = " ".join(lines[k].text.strip() for k in range(i, i + count))
        out.append(Heading(i, count, " ".join(text.split()), best))
        i += count
    return out


def _wrapped_title(lines: list[Line], i: int, body: float) -> bool:
    """A bold line that ends a sentence, right above a heading line of its style: a title's
    first line ("1. Duplicate times are not allowed." "What do I do?")."""
    line = lines[i]
    nxt = lines[i + 1] if i + 1 < len(lines) else None
    return (
        nxt is not None
        and line.bold
        and nxt.bold
        and nxt.page == line.page
        and not nxt.gap_before
        and abs(nxt.size - line.size) < 0.5
        and line.size >= body * 0.95
        and len(line.text.strip()) <= MAX_HEADING_CHARS
        and _is_heading_line(nxt, body)
    )


def _apart(lines: list[Line], i: int, body: float) -> bool:
    """A heading ending at a body-size bold line `i` is one only where a paragraph breaks after
    it: not a bold phrase that starts a paragraph and runs on."""
    line = lines[i]
    if line.size >= HEADING_SIZE * body:
        return True
    nxt = lines[i + 1] if i + 1 < len(lines) else None
    return nxt is None or nxt.page != line.page or nxt.gap_before or nxt.size != line.size


def _breaks(lines: list[Line], prev: int, i: int, body: float, edges: _Edges) -> bool:
    """Whether line `i` starts a paragraph after line `prev`: a blank line in pdfium's text,
    a change of type size, a first-line indent, or a sentence's end on a short line or with a
    wider line pitch than the page's lines have within a paragraph."""
    right, leading = edges
    a, b = lines[prev], lines[i]
    ended = ends_sentence(a.text)
    if not ended and b.text.lstrip()[:1].islower():
        return False  # mid-sentence (after a displayed formula, over a page break)
    if b.gap_before or abs(a.size - b.size) > 0.5:
        return True
    if a.page != b.page:  # a paragraph runs on over a page break only mid-sentence
        return ended
    indent = 0.8 * body
    following = lines[i + 1] if i + 1 < len(lines) else None
    first_line_indent = (
        b.left - a.left > indent
        and following is not None
        and following.page == b.page
        and b.left - following.left > indent
    )
    short_end = a.right < right[a.page] - 3 * body
    wider = b.pitch > WIDER_PITCH * leading.get(b.page, b.pitch)
    return first_line_indent or ((short_end or wider) and ended)


def ends_sentence(text: str) -> bool:
    """Whether a line ends a sentence (before its footnote's mark, if it has one). Only its
    end is searched (both patterns end at the line's end; a search from its start would try
    every character)."""
    if text.rstrip()[-1:] not in _MAY_END:
        return False
    mark = _MARK_AT_END.search(text, max(0, len(text) - LINE_END_CHARS))
    end = mark.start() if mark else len(text)
    return bool(_SENTENCE_END.search(text, max(0, end - LINE_END_CHARS), end))


def _page_edges(lines: list[Line], body: float) -> _Edges:
    """The right end most of each page's full lines reach (its text column's right edge), and
    the line pitch most of its body-type lines have (within a paragraph)."""
    right: dict[int, float] = {}
    leading: dict[int, float] = {}
    for page, idx in _by_page(lines).items():
        rights = sorted([lines[i].right for i in idx])
        right[page] = rights[int(0.8 * (len(rights) - 1))]
        pitches: dict[float, int] = {}
        for i in idx:
            line = lines[i]
            if line.pitch > 0 and abs(line.size - body) < 0.5:
                pitch = round(line.pitch * 2) / 2
                pitches[pitch] = pitches.get(pitch, 0) + 1
        if pitches:
            leading[page] = max(pitches, key=pitches.__getitem__)
    return right, leading


def _heading_paths(
    lines: list[Line], headings: list[Heading], outline: list[tuple[int, tuple[str, ...]]]
) -> dict[int, tuple[str, ...]]:
    """Each heading's path: the outline's entry it matches, else nested by type size (the
    larger, the higher); under the outline's last entry where the document has one."""
    styles = sorted({h.style for h in headings}, reverse=True)
    level = {style: n for n, style in enumerate(styles)}
    if headings and sum(1 for h in headings if h.style == styles[0]) == 1 == len(outline) + 1:
        level[styles[0]] = -1  # the document's title, once atop it: not a section
    by_page: dict[int, list[tuple[str, tuple[str, ...]]]] = {}
    for page, path in outline:
        by_page.setdefault(page, []).append((_letters(path[-1]), path))
    paths: dict[int, tuple[str, ...]] = {}
    stack: list[tuple[int, str]] = []
    base: tuple[str, ...] = ()
    for h in headings:
        key = _letters(h.text)
        page = lines[h.line].page
        match = next(
            (p for t, p in by_page.get(page, []) if key and t and (t in key or key in t)), None
        )
        if match is not None:
            base, stack = match, []
            paths[h.line] = match
            continue
        n = level[h.style]
        if n < 0:
            paths[h.line] = (h.text,)
            continue
        while stack and stack[-1][0] >= n:
            stack.pop()
        stack.append((n, h.text))
        paths[h.line] = base + tuple(t for _, t in stack)
    return paths


def _letters(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())
