"""The text grammar the indexer, the answer path and the window share (one definition each:
code fences, inline code, commands and indented code, headings, list items, sentence ends,
images, years, file suffixes), user text made valid Unicode at the boundary, the fence that
keeps a piece of code one Markdown code block, a span of a text, and a search over long text
that never holds the interpreter for long."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

# A code fence line: up to three spaces, then ``` or ~~~ (the marker is group 1). MULTILINE, so
# `.match(line)` reads one line and `.search(text)` finds a fence line anywhere.
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
# An ATX heading line (`## Title`): its marks are group 1, its text group 2 (none for "#").
ATX_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
# A list item's marker (`- `, `* `, `+ `, `• `, `1. `, `1) `, a task box after it).
LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")
# Code: an inline code span, a shell command line (`$ ls`; "$ 20 for the taxi" is none) and an
# indented code line (four spaces or a tab).
INLINE_CODE = r"`[^`\n]+`"
COMMAND = re.compile(r"^[ \t]*\$ (?!\d)\S", re.MULTILINE)
INDENTED = re.compile(r"^(?: {4}|\t)", re.MULTILINE)
# Sentence ends. Where a passage may be cut: after . ! ? … and space (the chunker). Where a
# sentence of a note ends for a reader: also before a capital, digit, quote or bracket.
SENTENCE_BREAK = re.compile(r"(?<=[.!?…])\s+")
SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'”»)]*\s+(?=[\"'„“«(\[]?[A-ZÀ-ÝČĎĚŇŘŠŤŮŽ0-9])")
# An image: Markdown's `![alt](target)`; with the target (group 1) or an HTML <img>'s (group 2).
IMAGE_OPEN = r"!\[[^\]]*\]\("
IMAGE = re.compile(IMAGE_OPEN + r"[^)]*\)")
IMAGE_TARGET = re.compile(
    IMAGE_OPEN + r"\s*<?([^)\s>]+)>?|<img[^>]*\bsrc\s*=\s*[\"']([^\"']+)", re.IGNORECASE
)
# A year as notes and questions write one (1000–2099).
YEAR = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})\b")
# A day and month written in figures, as Czech and German notes write them: 15. 5., 15.5.
DAY_MONTH = re.compile(r"(?<![\d.])(0?[1-9]|[12]\d|3[01])\.\s?(0?[1-9]|1[0-2])\.(?!\d)")


# Markup a reader of a passage's preview does not see: heading and quote marks at a line's start,
# embedded files (`![[logo.svg#icon]]`), bold marks, HTML tags; links show their text.
_LINE_MARKS = re.compile(r"^[ \t]{0,3}(?:#{1,6}[ \t]+|>[ \t]?)", re.MULTILINE)
_EMBED = re.compile(r"!\[\[[^\]\n]*\]\]")
_WIKI_LINK = re.compile(r"\[\[(?:[^\]|\n]*\|)?([^\]\n]*)\]\]")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_BOLD = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_TAG = re.compile(r"</?[A-Za-z][^<>\n]*>")


def plain_text(markdown: str) -> str:
    """A passage as a reader sees it rendered, for a preview (offsets are not kept)."""
    text = _EMBED.sub("", markdown)
    text = _WIKI_LINK.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _BOLD.sub(r"\2", text)
    text = _TAG.sub("", text)
    return _LINE_MARKS.sub("", text)


def plain_line(markdown: str) -> str:
    """`plain_text` on one line, white space collapsed: a preview's or a quote's words."""
    return " ".join(plain_text(markdown).split())


def suffix_of(name: str) -> str:
    """A file name's suffix, lower case (`.md`), as formats and note names are told apart."""
    return os.path.splitext(name)[1].lower()


@dataclass(frozen=True)
class TextSpan:
    """A piece of a text at its place in it: `whole[start:end] == text`."""

    start: int
    end: int
    text: str


def clean_text(text: str) -> str:
    """`text` with lone surrogates replaced by U+FFFD (and NUL by a space).

    On Linux, argv bytes that are not valid UTF-8 arrive surrogate-escaped ('caf\\udce9' for a
    Latin-1 'café'); such a string cannot be encoded, stemmed, tokenized or stored. Each
    invalid byte becomes one U+FFFD, which is not a word character, so the rest of the query
    still searches.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = "".join(_clean_char(c) for c in text)
    return text.replace("\x00", " ")


def _clean_char(char: str) -> str:
    return "\ufffd" if "\ud800" <= char <= "\udfff" else char


def code_fence(code: str) -> str:
    """Backticks enough to fence `code`: longer than any run of backticks inside it."""
    return "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", code)), default=0))


SEARCH_WINDOW = 1 << 16
SEARCH_REACH = 256


def finditer_windowed(
    pattern: re.Pattern[str], text: str, window: int = SEARCH_WINDOW, reach: int = SEARCH_REACH
) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)`, searched a window at a time. One search holds Python's GIL until
    it returns, so a search across megabytes of a crafted note would freeze the window; between
    windows other threads run. Near a window's end a match, or what its look-ahead would see, may
    be cut off, so the search resumes at the first match that ends within `reach` characters of
    it (patterns whose matches and look-arounds are shorter than that give finditer's matches).
    A match longer than a window (a run of blanks) widens that one search until it ends."""
    pos, size, n = 0, window, len(text)
    while True:
        bound = min(n, pos + size)
        resume = n if bound == n else max(pos, bound - reach)
        for match in pattern.finditer(text, pos, bound):
            if bound < n and match.end() > bound - reach:
                resume = match.start()
                break
            yield match
        if bound == n:
            return
        if resume <= pos:
            size *= 2
        else:
            pos, size = resume, window
