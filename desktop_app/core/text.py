"""Text helpers the core and the window share: user text made valid Unicode at the boundary,
the fence that keeps a piece of code one Markdown code block, and a span of a text."""

from __future__ import annotations

import re
from dataclasses import dataclass


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
