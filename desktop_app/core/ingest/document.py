"""What a loader makes of a file: the text Quire indexes and shows, and where its pages are."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import cached_property
from typing import NamedTuple


class PageBlock(NamedTuple):
    """A stretch of a paged document's text and what it is: "heading", "text" (a paragraph,
    or a list's items), "code" (fixed-pitch lines), "note" (a footnote), "list" (a paragraph
    of a page listing terms: contents, index), "furniture" (a running header or footer, a
    page number)."""

    start: int
    end: int
    kind: str


# A PDF line as it looks on its page (`formats.pdf`), read for structure by `formats.pdf_layout`:
# 0-based page; start and end in that page's text; type size; bold by its font's name; weight;
# left end, right end and baseline in points; a blank line before it in the text; fixed-pitch;
# how far below the line before it on its page it stands (0: the page's first).
MeasuredLine = tuple[int, int, int, float, bool, int, float, float, float, bool, bool, float]
# A word read by OCR: 0-based page (0 for a picture), start and end in the document's text, and
# its box (left, top, right, bottom) as fractions of the page's (picture's) width and height.
OcrWord = tuple[int, int, int, float, float, float, float]
PageRead = Callable[[int, int], None]  # told after each page OCR read: (page, of pages)


@dataclass(frozen=True)
class Document:
    """A file's text, exactly as indexed: every span Quire shows is `text[start:end]`.

    `markdown`: the chunker reads Markdown structure (headings, lists, tables, code) in `text`
    (extracted formats are written as Markdown). `pages`: the offset where each page starts
    (PDF). `sections`: (offset, heading path) where the outline starts a section (PDF): at the
    start of its page, until `formats.pdf_layout.read` finds its heading on the page."""

    text: str
    markdown: bool
    headings: str = ""  # plain text's heading syntax: "org", "asciidoc", "rst" (or none)
    encoding: str = ""
    warning: str = ""
    pages: tuple[int, ...] = ()
    sections: tuple[tuple[int, tuple[str, ...]], ...] = ()
    title: str = ""  # the file's own (a PDF's document information), else its name's
    lines: tuple[MeasuredLine, ...] = ()  # a PDF's lines as they look, in reading order
    ocr_pages: tuple[int, ...] = ()  # 0-based pages whose text OCR read (a picture: (0,))
    ocr_words: tuple[OcrWord, ...] = ()

    def page_at(self, offset: int) -> int | None:
        """The 1-based page holding `offset`, None for a file without pages."""
        return page_at(self.pages, offset)

    def section_at(self, offset: int) -> tuple[str, ...]:
        """The outline's heading path at `offset` (empty before the first, or without one)."""
        at = bisect.bisect_right(self._section_starts, offset) - 1
        return self.sections[at][1] if at >= 0 else ()

    @cached_property
    def _section_starts(self) -> list[int]:  # asked for every passage of a long PDF
        return [start for start, _ in self.sections]

    def as_fields(self) -> dict[str, object]:
        """Its fields by name (`Document(**fields)` makes it again), nothing it computed."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def page_at(pages: tuple[int, ...] | list[int], offset: int) -> int | None:
    if not pages:
        return None
    return max(1, bisect.bisect_right(pages, offset))
