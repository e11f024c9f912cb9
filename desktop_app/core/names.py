"""File names as Quire stores and prints them.

A name that is not valid UTF-8 reaches Python with surrogate escapes ('caf\\udce9.md'), which
SQLite and a UTF-8 terminal both refuse; it is stored with byte escapes instead ('caf\\xe9.md').
A name with a newline or another control character is valid, but printed with escapes, so one
line of output stays one line.
"""

from __future__ import annotations

import os
import re

# C0/C1 controls, DEL, surrogates, line/paragraph separators and bidirectional overrides.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def has_undecodable(name: str) -> bool:
    """Whether the name came from bytes that are not valid UTF-8 (surrogate escapes)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def storable(name: str) -> str:
    """The name as valid UTF-8 text: undecodable bytes become '\\xNN' escapes."""
    if not has_undecodable(name):
        return name
    try:
        raw = os.fsencode(name)
    except UnicodeError:  # a lone surrogate that was never a byte
        return name.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def printable(text: str) -> str:
    """`text` on one line: control characters and undecodable bytes shown as escapes."""
    text = storable(text)
    return _UNPRINTABLE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
