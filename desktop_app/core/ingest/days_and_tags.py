"""When a note was written and what it is tagged: the facts time and tag scopes filter on."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from desktop_app.core.retrieval import dates
from desktop_app.core.text import INLINE_CODE, finditer_windowed

# Front matter keys that date a note, the day it is about before the day it was edited.
DATE_KEYS = ("date", "day", "created", "created_at", "published", "updated", "modified")
_INLINE_TAG = re.compile(r"(?<![\w#&/])#([^\W\d][\w/-]*)", re.UNICODE)
_CODE = re.compile(r"```.*?```|" + INLINE_CODE, re.DOTALL)


@dataclass(frozen=True)
class NoteDate:
    day: date
    source: str  # "front matter", "file name", "modified"
    warning: str | None = None


def note_date(metadata: dict[str, Any], rel_path: str, mtime_ns: int) -> NoteDate:
    """Front matter, else a day in the file name or folders, else the modification time. A
    front matter date that is no day is told (the warning) and the next source used."""
    warning = None
    for key in DATE_KEYS:
        value = metadata.get(key)
        if value is None or value == "":
            continue
        day = _front_matter_day(value)
        if day is not None:
            return NoteDate(day, "front matter")
        warning = f"front matter {key}: {str(value)!r} is not a date; dated by "
        break
    from_path = dates.day_in_path(rel_path)
    if from_path is not None:
        return NoteDate(from_path, "file name", warning and warning + "its file name")
    modified = datetime.fromtimestamp(mtime_ns / 1e9, tz=UTC).astimezone().date()
    return NoteDate(modified, "modified", warning and warning + "its modification time")


def _front_matter_day(value: object) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        return dates.day_or_none(value)
    return None


_HEADING_LINE = re.compile(r"^(?:#{1,6}|\*{1,6}|=+)[ \t]+(.+?)[ \t#*=]*$", re.MULTILINE)


def day_marks(text: str) -> list[tuple[int, date]]:
    """Where each heading that is a date starts (Markdown `##`, org `*`, AsciiDoc `==`)."""
    marks = []
    for match in finditer_windowed(_HEADING_LINE, text):
        day = dates.day_or_none(match.group(1))
        if day is not None:
            marks.append((match.start(), day))
    return marks


def chunk_days(marks: list[tuple[int, date]], ends: list[int], default: date) -> list[str]:
    """Each chunk's day: the last date heading before its end (a journal kept in one file),
    else the note's."""
    offsets = [offset for offset, _ in marks]
    out = []
    for end in ends:
        i = bisect.bisect_left(offsets, end) - 1
        out.append((marks[i][1] if i >= 0 else default).isoformat())
    return out


def is_day_heading(heading: str) -> bool:
    """A heading that is a date opens a journal entry (its own passage, its own day)."""
    return dates.day_or_none(heading) is not None


def note_tags(metadata: dict[str, Any], text: str) -> list[str]:
    """Front matter `tags` (a list or a comma / space separated string) and inline `#tags`
    outside code, lower case, without `#`, each once, in order of appearance."""
    found: list[str] = []
    value = metadata.get("tags", metadata.get("tag"))
    if isinstance(value, str):
        found += re.split(r"[,\s]+", value)
    elif isinstance(value, list):
        found += [str(v) for v in value]
    found += _inline_tags(text)
    tags = (t.strip().lstrip("#").strip().lower() for t in found)
    return list(dict.fromkeys(t for t in tags if t))


_TAG_WINDOW = 1 << 16
_NOT_IN_TAG = re.compile(r"[^\w/-]")


def _inline_tags(text: str) -> list[str]:
    """The `#tags` of `text` outside code, read a stretch at a time: one regex call over a long
    note holds the GIL as long as it reads, and the window's thread would stall meanwhile."""
    if "#" not in text:
        return []
    found: list[str] = []
    pos = 0
    for code in _CODE.finditer(text):
        found += _tags_between(text, pos, code.start())
        pos = code.end()
    return found + _tags_between(text, pos, len(text))


def _tags_between(text: str, start: int, end: int) -> list[str]:
    """Stretches end before a character no tag holds (a tag's `#` and the character before it
    are still seen: a search from `start` looks behind it)."""
    found: list[str] = []
    while start < end:
        stop = end
        if start + _TAG_WINDOW < end:
            cut = _NOT_IN_TAG.search(text, start + _TAG_WINDOW, end)
            stop = cut.start() if cut else end
        found += _INLINE_TAG.findall(text, start, stop)
        start = stop
    return found
