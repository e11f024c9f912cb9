"""User text at the core's boundary: always valid Unicode, whatever the terminal sent."""

from __future__ import annotations


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
