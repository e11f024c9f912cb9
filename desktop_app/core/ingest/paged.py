"""A PDF's passages from its blocks (`formats/pdf_layout`): headings open passages as
Markdown headings do, paragraphs, lists and code are packed whole across page breaks, each
footnote is a passage of its own, running headers, footers and page numbers are read past, and
pages that list terms (contents, index) are passages of their own, indexed by prefix only so
they never outrank the prose they point to.

Every passage is still an exact span of the document's text; what is read past stays in the
span (so its characters keep their boxes) but not in its search terms.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import replace

from desktop_app.core.ingest.chunker import Chunk, Span, block_pieces, pack_spans
from desktop_app.core.ingest.document import Document, PageBlock
from desktop_app.core.ingest.formats import pdf_layout
from desktop_app.core.tokens import count_tokens

CHARS_PER_TOKEN = 4  # pages shorter than a passage's worth of characters stand alone
# A word broken at a line end: "hyphen-\nation" (or pdfium's "hyphen-ation", its line-end
# hyphen) also reads as "hyphenation". Found from the hyphen (a search for letters everywhere
# would try every letter of every word), its head looked for behind it.
_BROKEN_TAIL = re.compile(r"-\s*([^\W\d_]{2,})")
_BROKEN_HEAD = re.compile(r"[^\W\d_]{2,}\Z")
LONGEST_HEAD = 100
# A footnote's mark: the digits (plain or superscript) it starts with. In the text above, a
# superscript mark stands apart from other superscripts; a plain one follows a word or a mark
# ("option.11", "name3") or a sentence's end ("(5). 12"), never a number ("1.11", "as 11").
_SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_NOTE_MARK = re.compile(rf"\s*([0-9{_SUPERSCRIPTS}]{{1,3}})(?![0-9{_SUPERSCRIPTS}])")
SENTENCE_CHARS = 400  # how far back the start of a sentence a passage opens inside is looked for
_SENTENCE_BREAK = re.compile(r"[.!?;:][)\"”’»]?\s")


def chunk_blocks(reading: Reading, chunk_tokens: int) -> list[Chunk]:
    """Passages of a paged document from its blocks."""
    document = reading.document
    text = document.text
    spans: list[Span] = []
    apart = ""  # a listing page's blocks are passages of their own, as each footnote is
    paged = _pages_apart(document, chunk_tokens)
    page = 0
    for block in reading.blocks:
        if block.kind == "furniture":
            continue
        path = document.section_at(block.start)
        new_page = page < len(document.pages) and block.start >= document.pages[page]
        while page < len(document.pages) and block.start >= document.pages[page]:
            page += 1
        turn = new_page and bool(spans) and (paged or spans[-1].heading_path != path)
        if block.kind == "heading" or (
            block.kind == "text" and new_page and _title_line(text, block, chunk_tokens)
        ):
            tokens = _count(text[block.start : block.end])
            spans.append(Span(block.start, block.end, path, tokens, is_heading=True, opens=turn))
            continue
        region = block.kind if block.kind in ("list", "note") else ""
        turn = (turn or region != apart or region == "note") and _open_headings(spans)
        apart = region
        for n, (start, end, tokens) in enumerate(_pieces(text, block, chunk_tokens)):
            spans.append(Span(start, end, path, tokens, opens=turn and n == 0))
    return [c for c in pack_spans(text, _headed(spans), chunk_tokens) if c.text.strip()]


def _count(text: str) -> int:
    """Tokens of a stretch as it reads: a line wrapped on the page is one line of text."""
    return count_tokens(text.replace("\n", " "))


def _pages_apart(document: Document, chunk_tokens: int) -> bool:
    """Whether the document's pages are short (slides, one-line pages): one page a passage."""
    ends = [*document.pages[1:], len(document.text)]
    lengths = sorted(b - a for a, b in zip(document.pages, ends, strict=True))
    return lengths[len(lengths) // 2] < CHARS_PER_TOKEN * chunk_tokens


def _headed(spans: list[Span]) -> list[Span]:
    """Headings take the path of the text under them ("2 Herons" then "2.1 Feeding" head a
    passage about 2.1), so a passage that starts with both is under both."""
    under: tuple[str, ...] = ()
    out = list(spans)
    for k in range(len(out) - 1, -1, -1):
        span = out[k]
        if not span.is_heading:
            under = span.heading_path
        elif under[: len(span.heading_path)] == span.heading_path:
            out[k] = replace(span, heading_path=under)
    return out


def _title_line(text: str, block: PageBlock, target: int) -> bool:
    """A short line standing alone atop a page, not a sentence (a title in body type): it heads
    the text under it as a heading does."""
    line = text[block.start : block.end].strip()
    return (
        "\n" not in line
        and len(line) < target // 2
        and not pdf_layout.ends_sentence(line)
        and not line.endswith(",")
        and any(c.isalpha() for c in line)
    )


def _open_headings(spans: list[Span]) -> bool:
    """Where listing turns to prose or back, the headings just before open the passage (they
    head what follows); False if they do, True if the paragraph itself must."""
    k = len(spans)
    while k > 0 and spans[k - 1].is_heading:
        k -= 1
    if k == len(spans):
        return True
    spans[k] = replace(spans[k], opens=True)
    return False


def _pieces(text: str, block: PageBlock, target: int) -> list[tuple[int, int, int]]:
    """A paragraph, list or code block as one piece, or cut as a note's is (one over twice the
    target; code at line ends)."""
    body = text[block.start : block.end]
    pieces = block_pieces(body, _count, 2 * target, block.kind == "code")
    return [(block.start + a, block.start + b, tokens) for a, b, tokens in pieces]


def broken_words(text: str) -> list[str]:
    """The words of `text` that a hyphen and a line break split, whole ("hyphenation"); a
    word joined to the one before is not joined to the one after ("well-known-thing" gives
    "wellknown")."""
    out: list[str] = []
    done = 0
    for m in _BROKEN_TAIL.finditer(text):
        at = m.start()
        head = _BROKEN_HEAD.search(text, max(done, at - LONGEST_HEAD), at) if at > done else None
        if head:
            out.append(head.group() + m.group(1))
            done = m.end()
    return out


def _note_marks(document: Document, blocks: list[PageBlock]) -> list[tuple[int, int, int]]:
    """Where each footnote's mark stands in the text of its page (outside footnotes, headers
    and footers), with the footnote's span: (offset of the mark, start, end), in order; a
    footnote whose mark could stand in several places is left out."""
    text, pages = document.text, document.pages
    aside = [(b.start, b.end) for b in blocks if b.kind in ("note", "furniture")]
    aside_ends = [e for _, e in aside]
    out: list[tuple[int, int, int]] = []
    for block in blocks:
        mark = _NOTE_MARK.match(text, block.start, block.end) if block.kind == "note" else None
        if mark is None:
            continue
        page = bisect.bisect_right(pages, block.start) - 1
        end = pages[page + 1] if page + 1 < len(pages) else len(text)
        places = [
            found.start()
            for found in _mark_in_text(mark.group(1)).finditer(text, pages[page], end)
            if _outside(aside, aside_ends, found.start())
        ]
        if len(places) == 1:  # one place the mark can stand: never a guess among several
            out.append((places[0], block.start, block.end))
    return sorted(out)


def _outside(spans: list[tuple[int, int]], ends: list[int], offset: int) -> bool:
    at = bisect.bisect_right(ends, offset)
    return at == len(spans) or spans[at][0] > offset


def _mark_in_text(mark: str) -> re.Pattern[str]:
    sup, escaped = _SUPERSCRIPTS, re.escape(mark)
    if all(c in sup for c in mark):
        return re.compile(rf"(?<![{sup}]){escaped}(?![{sup}])")
    return re.compile(
        rf"(?:(?<=[^\s0-9{sup}])|(?<=[.,;:)\]”\"’»] ))(?<![0-9][.,]){escaped}"
        rf"(?![0-9{sup}])(?![.,][0-9])"
    )


class Reading:
    """A paged document read from its lines (`formats.pdf_layout`): its blocks, the document
    with the sections found on its pages, and how its passages are read for search: furniture
    left out, words broken at line ends whole again, a footnote also where its mark stands, a
    sentence a passage opens inside from its start, listing pages told apart."""

    def __init__(self, document: Document) -> None:
        blocks, sections = pdf_layout.read(document)
        self.blocks = blocks
        self.document = replace(document, sections=sections)
        self.furniture = [(b.start, b.end) for b in blocks if b.kind == "furniture"]
        self.starts = [s for s, _ in self.furniture]
        self.listing = [(b.start, b.end) for b in blocks if b.kind == "list"]
        self.listing_ends = [e for _, e in self.listing]
        self.marks = _note_marks(self.document, blocks)
        self.mark_at = [at for at, _, _ in self.marks]
        self.prose = [b for b in blocks if b.kind in ("heading", "text", "list", "code")]
        self.prose_starts = [b.start for b in self.prose]

    def terms_text(self, chunk: Chunk) -> str:
        text = self.document.text
        parts, pos = [], chunk.start
        at = bisect.bisect_left(self.starts, chunk.start)
        while at < len(self.furniture) and self.furniture[at][0] < chunk.end:
            start, end = self.furniture[at]
            parts.append(text[pos:start])
            pos = max(pos, end)
            at += 1
        parts.append(text[pos : chunk.end])
        at = bisect.bisect_left(self.mark_at, chunk.start)
        while at < len(self.marks) and self.marks[at][0] < chunk.end:
            _, start, end = self.marks[at]
            if not chunk.start <= start < chunk.end:  # a footnote is read where its mark is
                parts.append(text[start:end])
            at += 1
        parts.append(self.sentence_before(chunk))
        read = " ".join(parts)
        joined = broken_words(read)
        return f"{read} {' '.join(joined)}" if joined else read

    def sentence_before(self, chunk: Chunk) -> str:
        """Where a passage starts in the middle of a sentence (the prose before it, since the
        last heading or code and past furniture and footnotes, ends no sentence, or leads in
        with a colon: to a displayed formula, a list), the sentence's start: the passage is
        read with it."""
        text, pieces, size = self.document.text, [], 0
        at = bisect.bisect_left(self.prose_starts, chunk.start) - 1
        while at >= 0 and self.prose[at].kind in ("text", "list") and size < SENTENCE_CHARS:
            block = self.prose[at]
            pieces.append(text[block.start : min(block.end, chunk.start)].strip())
            size += len(pieces[-1])
            at -= 1
        before = " ".join(reversed(pieces))[-SENTENCE_CHARS:]
        if not before or pdf_layout.ends_sentence(before):
            return ""
        ends = [m.end() for m in _SENTENCE_BREAK.finditer(before)]
        return before[ends[-1] :] if ends else before

    def is_listing(self, chunk: Chunk) -> bool:
        """Whether most of the passage is on a page that lists terms."""
        inside = 0
        at = bisect.bisect_right(self.listing_ends, chunk.start)
        while at < len(self.listing) and self.listing[at][0] < chunk.end:
            start, end = self.listing[at]
            inside += min(end, chunk.end) - max(start, chunk.start)
            at += 1
        return inside * 2 > chunk.end - chunk.start
