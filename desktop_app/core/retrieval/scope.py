"""Scopes: which notes a question is about — a folder, a tag, a path, a span of days.

Written in the query (`folder:work tag:"home office" after:2026-03 what did I decide`), given as
flags, or said as a time phrase in English, German or Czech ("last week", "im März", "minulý
týden", "2025"), resolved against an injectable today. The rest of the query is searched as
usual; the scope filters inside SQL and on the vector matrix (`search.Searcher`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

import sqlite_utils

from desktop_app.core.retrieval import dates
from desktop_app.core.retrieval.time_phrases import (
    OPEN_FUTURE,
    OPEN_PAST,
    Period,
    find_time_phrase,
    month_period,
    year_period,
)
from desktop_app.core.store.scopes import ChunkFilter, has_days

_KEYS = ("folder", "tag", "path", "after", "before", "on", "since", "until")
_TOKEN = re.compile(
    r"(?<!\S)(" + "|".join(_KEYS) + r'):(?:"([^"]*)"|“([^”]*)”|(\S+))', re.IGNORECASE
)


@dataclass(frozen=True)
class Scope:
    folders: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    period: Period | None = None

    @property
    def empty(self) -> bool:
        return not (self.folders or self.tags or self.paths or self.period)

    def chips(self) -> list[Chip]:
        """What the user sees and can remove, one per condition."""
        out = [Chip("folder", v, f"folder: {v}") for v in self.folders]
        out += [Chip("tag", v, f"#{v}") for v in self.tags]
        out += [Chip("path", v, f"path: {v}") for v in self.paths]
        if self.period is not None:
            out.append(Chip("time", self.period.label, self._period_label()))
        return out

    def _period_label(self) -> str:
        assert self.period is not None
        span = self.period.text()
        if self.period.open_ended or span == self.period.label:
            return self.period.label
        return f"{self.period.label} ({span})"

    def stored(self) -> ChunkFilter:
        days = None
        if self.period is not None:
            days = (self.period.first.isoformat(), self.period.last.isoformat())
        return ChunkFilter(self.folders, self.tags, self.paths, days)

    def without(self, chip: Chip) -> Scope:
        if chip.kind == "time":
            return replace(self, period=None)
        if chip.kind == "folder":
            return replace(self, folders=tuple(v for v in self.folders if v != chip.value))
        if chip.kind == "tag":
            return replace(self, tags=tuple(v for v in self.tags if v != chip.value))
        return replace(self, paths=tuple(v for v in self.paths if v != chip.value))

    def asked(self, question: Scope) -> Scope:
        """A conversation's scope after a question with its own: the question's folders and tags
        are added, its time replaces the conversation's ("and the week before?")."""
        merged = self.combined(replace(question, period=None))
        return replace(merged, period=question.period or self.period)

    def combined(self, other: Scope) -> Scope:
        """Both conditions (a conversation's scope and the new question's)."""
        period = self.period
        if other.period is not None:
            period = other.period if period is None else intersect(period, other.period)
        return Scope(
            tuple(dict.fromkeys(self.folders + other.folders)),
            tuple(dict.fromkeys(self.tags + other.tags)),
            tuple(dict.fromkeys(self.paths + other.paths)),
            period,
        )

    def to_json(self) -> dict[str, object]:
        period = self.period
        return {
            "folders": list(self.folders),
            "tags": list(self.tags),
            "paths": list(self.paths),
            "period": None
            if period is None
            else {"first": str(period.first), "last": str(period.last), "label": period.label},
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Scope:
        """A saved scope; what cannot be read is left out (a hand-edited file loses only that)."""
        try:
            return cls._from_json(data)
        except (KeyError, TypeError, ValueError):
            return cls()

    @classmethod
    def _from_json(cls, data: dict[str, object]) -> Scope:
        period = data.get("period")
        return cls(
            tuple(str(v) for v in _list(data.get("folders"))),
            tuple(str(v) for v in _list(data.get("tags"))),
            tuple(str(v) for v in _list(data.get("paths"))),
            _period_from_json(period) if isinstance(period, dict) else None,
        )


def _period_from_json(data: dict[str, object]) -> Period:
    first, last = date.fromisoformat(str(data["first"])), date.fromisoformat(str(data["last"]))
    return Period(first, last, str(data.get("label", "")))


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


@dataclass(frozen=True)
class Chip:
    kind: str  # "folder", "tag", "path", "time"
    value: str
    label: str


@dataclass(frozen=True)
class ScopedQuery:
    text: str  # the query without its scope words and time phrase
    scope: Scope
    problems: list[str] = field(default_factory=list)  # scope words that could not be read
    # A time phrase Quire read in the question is its guess: `widened` searches without it.
    inferred: str = ""  # the phrase ("in October"), "" when the scope is all the user's
    explicit: Scope | None = None  # the scope without that phrase's period
    phrase_text: str = ""  # the query without its scope words, the phrase left in
    notice: str = ""  # said when the guess was dropped

    def widened(self) -> ScopedQuery:
        """The query without the time phrase Quire inferred (its words searched as words),
        keeping the user's own scope, and a notice that says so; itself when nothing was
        inferred."""
        if not self.inferred or self.explicit is None:
            return self
        notice = f"nothing written {self.inferred}; searched all dates"
        return ScopedQuery(self.phrase_text, self.explicit, self.problems, notice=notice)


def intersect(a: Period, b: Period) -> Period:
    if (a.first, a.last) == (b.first, b.last):
        return a
    first, last = max(a.first, b.first), min(a.last, b.last)
    return Period(first, last, f"{a.label} & {b.label}")


# -- reading a query -------------------------------------------------------------------------


def parse_query(
    query: str, today: date, has_notes: Callable[[Period], bool] = lambda _: True
) -> ScopedQuery:
    """Scope words (`folder:`, `tag:`, `path:`, `after:`, `before:`, `on:`, `since:`, `until:`)
    and one time phrase taken out of `query`, resolved against `today`. The phrase is taken only
    when `has_notes` says notes are dated in its period (else its words stay in the query)."""
    folders: list[str] = []
    tags: list[str] = []
    paths: list[str] = []
    period: Period | None = None
    problems: list[str] = []
    for match in _TOKEN.finditer(query):
        key = match.group(1).lower()
        value = next(g for g in match.groups()[1:] if g is not None).strip()
        if not value.strip("/#"):
            problems.append(f'{key}: needs a value ({key}:work, {key}:"two words")')
            continue
        if key == "folder":
            folders.append(value.strip("/"))
        elif key == "tag":
            tags.append(value.lstrip("#").lower())
        elif key == "path":
            paths.append(value)
        else:
            bound = date_bound(key, value, today)
            if bound is None:
                problems.append(f"{key}:{value} is not a date Quire can read")
                continue
            period = bound if period is None else intersect(period, bound)
    rest = _TOKEN.sub(" ", query)
    explicit = Scope(
        tuple(dict.fromkeys(folders)),
        tuple(dict.fromkeys(tags)),
        tuple(dict.fromkeys(paths)),
        period,
    )
    found = find_time_phrase(rest, today)
    if found is None or not has_notes(found[0]):
        return ScopedQuery(" ".join(rest.split()), explicit, problems)
    phrase_period, (start, end) = found
    period = phrase_period if period is None else intersect(period, phrase_period)
    text = " ".join((rest[:start] + " " + rest[end:]).split())
    return ScopedQuery(
        text,
        replace(explicit, period=period),
        problems,
        inferred=phrase_period.label,
        explicit=explicit,
        phrase_text=" ".join(rest.split()),
    )


def read_scope(
    db: sqlite_utils.Database, query: str, today: date, scope: Scope | None = None
) -> ScopedQuery:
    """`query`'s scope words and time phrase, combined with `scope`. A time phrase counts only
    where notes are dated in it: "the 1973 oil crisis" asks about 1973, not about notes written
    then."""
    parsed = parse_query(query, today, has_notes=lambda p: has_days(db, str(p.first), str(p.last)))
    if scope is None or scope.empty:
        return parsed
    explicit = None
    if parsed.explicit is not None:  # the window passes the question's own phrase as a chip
        guessed = scope.period is not None and _same_days(scope.period, parsed.scope.period)
        given = replace(scope, period=None) if guessed else scope
        explicit = given.combined(parsed.explicit)
    return replace(parsed, scope=scope.combined(parsed.scope), explicit=explicit)


def _same_days(a: Period, b: Period | None) -> bool:
    return b is not None and (a.first, a.last) == (b.first, b.last)


def date_bound(key: str, value: str, today: date) -> Period | None:
    """`after:2026-03` → from 1 Apr 2026; `before:` → until the day before; `on:` → that day,
    month or year; `since:` / `until:` include the period named."""
    named = period_of(value, today)
    if named is None:
        return None
    if key == "after":
        return Period(named.last + timedelta(days=1), OPEN_FUTURE, f"after {value}")
    if key == "before":
        return Period(OPEN_PAST, named.first - timedelta(days=1), f"before {value}")
    if key == "since":
        return Period(named.first, OPEN_FUTURE, f"since {value}")
    if key == "until":
        return Period(OPEN_PAST, named.last, f"until {value}")
    return replace(named, label=value)


_YEAR_MONTH = re.compile(r"(\d{4})-(\d{1,2})")
_MONTH_YEAR = re.compile(r"(\d{1,2})[./](\d{4})")


def period_of(value: str, today: date) -> Period | None:
    """A day, month or year written as a value: ISO or local, or any time phrase."""
    text = value.strip()
    day = dates.day_or_none(text)
    if day is not None:
        return Period(day, day, text)
    if re.fullmatch(r"\d{4}", text):
        return year_period(int(text), text)
    for pattern, order in ((_YEAR_MONTH, "ym"), (_MONTH_YEAR, "my")):
        match = pattern.fullmatch(text)
        if match:
            a, b = int(match.group(1)), int(match.group(2))
            year, month = (a, b) if order == "ym" else (b, a)
            return month_period(year, month, text) if 1 <= month <= 12 else None
    found = find_time_phrase(text, today)
    return replace(found[0], label=text) if found else None
