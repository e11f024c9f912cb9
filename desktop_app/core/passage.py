"""A passage of a note, the one shape it keeps from search to a saved conversation.

Search ranks chunks (`SearchResult`, with its ranking signals); `build_sources` merges
neighbouring chunks into numbered `Passage`s; those travel in the `SourcesFound` event, the
window's turns and the saved conversation file (`to_json` / `from_json`, the file's format
unchanged).
"""

from __future__ import annotations

import calendar
import math
import re
from dataclasses import dataclass, field
from typing import Any

from desktop_app.core.text import plain_line


@dataclass
class Passage:
    number: int  # the `[n]` an answer cites it by
    path: str
    folder: str
    title: str
    heading_path: list[str]
    start: int
    end: int
    line_start: int
    line_end: int
    text: str
    score: float
    chunk_ids: list[int] = field(default_factory=list)
    note_id: int = 0
    seqs: set[int] = field(default_factory=set)
    matched: list[str] = field(default_factory=list)  # query words found in the passage
    page: int | None = None  # 1-based first and last page of a PDF passage
    page_end: int | None = None
    day: str | None = None  # ISO day the note says it was written (None: only its file time)
    tags: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return context_line(self.title, tuple(self.heading_path)) or self.path

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.number, "path": self.path, "folder": self.folder, "title": self.title,
            "heading_path": self.heading_path, "start": self.start, "end": self.end,
            "lines": [self.line_start, self.line_end], "score": self.score, "text": self.text,
            "matched": self.matched, **pages_json(self.page, self.page_end),
            **({"day": self.day} if self.day else {}), **({"tags": self.tags} if self.tags else {}),
        }  # fmt: skip

    @classmethod
    def from_json(cls, raw: Any) -> Passage | None:
        """A saved passage read field by field (a bad field gets its default), or None
        without a number and a path."""
        if not isinstance(raw, dict) or not _is_int(raw.get("n"), 1):
            return None
        if not isinstance(raw.get("path"), str) or not raw["path"]:
            return None
        text = {k: _str(raw.get(k)) for k in ("folder", "title", "text")}
        lists = {k: raw[k] if _is_str_list(raw.get(k)) else [] for k in ("heading_path", "matched")}
        start = raw["start"] if _is_int(raw.get("start")) else 0
        end = raw["end"] if _is_int(raw.get("end"), start) else start
        lines = raw.get("lines")
        if not (isinstance(lines, list) and len(lines) == 2 and all(_is_int(x, 1) for x in lines)
                and lines[0] <= lines[1]):  # fmt: skip
            lines = [1, 1]
        score = raw["score"] if is_number(raw.get("score")) else 0.0
        page = raw["page"] if _is_int(raw.get("page"), 1) else None
        page_end = raw["page_end"] if page and _is_int(raw.get("page_end"), page) else page
        return cls(
            raw["n"], raw["path"], text["folder"], text["title"], lists["heading_path"], start, end,
            lines[0], lines[1], text["text"], score, matched=lists["matched"], page=page,
            page_end=page_end, day=_day(raw.get("day")),
            tags=raw["tags"] if _is_str_list(raw.get("tags")) else [],
        )  # fmt: skip


def _day(value: Any) -> str | None:
    """A saved ISO day, or None for anything else."""
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return value
    return None


def day_label(day: str | None) -> str:
    """`2026-03-12` as people read it: `12 Mar 2026` ("" without a day)."""
    if not day:
        return ""
    year, month, number = day.split("-")
    return f"{int(number)} {calendar.month_abbr[int(month)]} {year}"


def pages_json(page: int | None, page_end: int | None = None) -> dict[str, int]:
    """`page` (and `page_end` when it differs) for a passage of a PDF; nothing otherwise."""
    if page is None:
        return {}
    return {"page": page} if page_end in (None, page) else {"page": page, "page_end": page_end}


def pages_label(page: int | None, page_end: int | None = None) -> str:
    """ "p. 12", "pp. 12–13", or "" for a note without pages."""
    if page is None:
        return ""
    return f"p. {page}" if page_end in (None, page) else f"pp. {page}–{page_end}"


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_int(value: Any, low: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


HEADING_SEPARATOR = " › "


def context_line(title: str, heading_path: tuple[str, ...]) -> str:
    """Where a chunk sits, e.g. 'Sync › Settings › Selective sync' (title first, no repeats)."""
    parts: list[str] = []
    for part in (title, *heading_path):
        if part and (not parts or parts[-1] != part):
            parts.append(part)
    return HEADING_SEPARATOR.join(parts)


@dataclass
class Evidence:
    number: int  # the `[n]` of the source that holds it
    path: str
    folder: str
    title: str
    start: int
    end: int
    line_start: int
    line_end: int
    text: str
    kind: str
    score: float
    overlap: float  # share of the question's content-word IDF mass found in the unit
    cue: bool  # holds the kind of thing the question asks for (a number, a date, a name)
    page: int | None = None  # the PDF page the unit stands on
    day: str | None = None  # ISO day its note says it was written
    code: tuple[tuple[int, int], ...] = ()  # each code block's lines, in the note (the window's)

    @property
    def shown(self) -> str:
        """The text as a reader sees it rendered: prose on one line without its markup
        (`text.plain_text`), code as it stands."""
        if self.kind == "code" or self.code:  # units.CODE
            return self.text
        return plain_line(self.text)

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.number, "path": self.path, "folder": self.folder, "title": self.title,
            "start": self.start, "end": self.end, "lines": [self.line_start, self.line_end],
            "text": self.text, "kind": self.kind, "score": round(self.score, 3),
            "overlap": round(self.overlap, 3), "cue": self.cue, **pages_json(self.page),
            **({"day": self.day} if self.day else {}),
        }  # fmt: skip
