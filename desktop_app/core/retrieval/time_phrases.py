"""Time phrases in questions, in every registered language ("last week", "im März", "minulý
týden", "před 3 dny", "2025"), resolved against a given today into a span of days. The words are
the language files' (`period_words`, `this_period`, `last_period`, … `days_back`)."""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from desktop_app.core.retrieval import dates, languages
from desktop_app.core.retrieval.languages import Language

OPEN_PAST, OPEN_FUTURE = date(1900, 1, 1), date(9999, 12, 31)  # the ends of "after:" / "until:"


@dataclass(frozen=True)
class Period:
    first: date
    last: date  # inclusive
    label: str

    @property
    def open_ended(self) -> bool:
        return self.first == OPEN_PAST or self.last == OPEN_FUTURE

    def text(self) -> str:
        if self.first == self.last:
            return day_text(self.first)
        return f"{day_text(self.first)} – {day_text(self.last)}"


def day_text(day: date) -> str:
    return f"{day.day} {calendar.month_abbr[day.month]} {day.year}"


def year_period(year: int, label: str) -> Period:
    return Period(date(year, 1, 1), date(year, 12, 31), label)


def month_period(year: int, month: int, label: str) -> Period:
    last = calendar.monthrange(year, month)[1]
    return Period(date(year, month, 1), date(year, month, last), label)


_LANGUAGES = languages.REGISTERED


def _joined(field: Callable[[Language], Iterable[str]]) -> str:
    """One regex of a field's alternatives over the registered languages, in their order."""
    return "(?:" + "|".join(p for language in _LANGUAGES for p in field(language)) + ")"


_UNIT = {
    form: unit
    for language in _LANGUAGES
    for unit, forms in language.period_words.items()
    for form in forms
}
_UNIT_WORDS = "|".join(sorted(_UNIT, key=len, reverse=True))
_THIS = _joined(lambda language: language.this_period)
_LAST = _joined(lambda language: language.last_period)
_PREP = rf"(?:{_joined(lambda language: language.period_prepositions)}\s+)?"
_ARTICLE = rf"(?:{_joined(lambda language: language.period_articles)}\s+)?"
_AGO_AFTER = _joined(lambda language: language.ago_after)
_AGO_BEFORE = _joined(lambda language: language.ago_before)
_MONTH_PREP = _joined(lambda language: language.month_prepositions)
_YEAR_PREP = _joined(lambda language: language.year_prepositions)
# A month by its name or by a form of four letters or more ("Sept", not "Sep").
_MONTH_NAMES = "|".join(
    sorted(
        (f for f in dates.MONTHS if len(f) >= 4 or f in dates.MONTH_NAMES), key=len, reverse=True
    )
)
# Counts said as words ("the last two weeks", "vor drei Tagen", "poslední dva týdny", "před
# dvěma týdny"): whole numbers up to a hundred, of three letters or more ("a week ago" is not
# read as a count).
_COUNT_WORDS = {
    w: int(n)
    for language in _LANGUAGES
    for w, n in [*language.number_words.items(), *language.count_forms.items()]
    if len(w) >= 3 and n == int(n) and 1 <= n <= 100
}
_COUNT = rf"(\d{{1,3}}|{'|'.join(sorted(_COUNT_WORDS, key=len, reverse=True))})"
_DAYS_WORDS = {w: int(n) for language in _LANGUAGES for w, n in language.days_back.items()}
_YEAR_WORDS = {w: int(n) for language in _LANGUAGES for w, n in language.years_back.items()}
_PHRASES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(r"(?<![\w.-])" + pattern + r"(?![\w-])"))
    for name, pattern in (
        ("count", rf"{_PREP}{_ARTICLE}{_LAST}\s+{_COUNT}\s+({_UNIT_WORDS})"),
        (
            "ago",
            rf"{_COUNT}\s+({_UNIT_WORDS})\s+{_AGO_AFTER}"
            rf"|{_AGO_BEFORE}\s+{_COUNT}\s+({_UNIT_WORDS})",
        ),
        ("relative", rf"{_PREP}{_ARTICLE}({_THIS}|{_LAST})\s+({_UNIT_WORDS})"),
        ("day-month", rf"{_PREP}(\d{{1,2}})\.?\s+({_MONTH_NAMES})(?:\s+(\d{{4}}))?"),
        ("month-day", rf"{_PREP}({_MONTH_NAMES})\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?"),
        ("month", rf"{_MONTH_PREP}\s+({_MONTH_NAMES})(?:\s+(\d{{4}}))?"),
        ("month-year", rf"{_PREP}({_MONTH_NAMES})\s+(\d{{4}})"),
        ("iso", rf"{_PREP}(\d{{4}}-\d{{1,2}}-\d{{1,2}}|\d{{1,2}}\.\s?\d{{1,2}}\.\s?\d{{4}})"),
        ("words", rf"{_PREP}({'|'.join(list(_DAYS_WORDS) + list(_YEAR_WORDS))})"),
        ("year", rf"(?:{_YEAR_PREP}\s+)?((?:19|20)\d{{2}})(?![.,]?\d)"),
    )
)


def find_time_phrase(text: str, today: date) -> tuple[Period, tuple[int, int]] | None:
    """The first time phrase in `text`, resolved, with its span in `text`."""
    folded = dates.fold(text)
    best: tuple[Period, tuple[int, int]] | None = None
    for name, pattern in _PHRASES:
        for match in pattern.finditer(folded):
            period = _resolve(name, match, today, text[match.start() : match.end()].strip())
            if period is not None and (best is None or match.start() < best[1][0]):
                best = (period, match.span())
                break
    return best


def _resolve(name: str, match: re.Match[str], today: date, label: str) -> Period | None:
    groups = match.groups()
    try:
        if name == "count":
            return _last_n(_count(groups[0]), _UNIT[groups[1]], today, label)
        if name == "ago":
            n, unit = (groups[0], groups[1]) if groups[0] else (groups[2], groups[3])
            return _ago(_count(n), _UNIT[unit], today, label)
        if name == "relative":
            if _UNIT[groups[1]] == "day":  # "the last day of the trip" is not yesterday
                return None
            back = 0 if re.fullmatch(_THIS, groups[0]) else 1
            return _relative(_UNIT[groups[1]], back, today, label)
        if name in ("day-month", "month-day"):
            day, month = (groups[0], groups[1]) if name == "day-month" else (groups[1], groups[0])
            return _day_of_month(int(day), dates.MONTHS[month], groups[2], today, label)
        if name in ("month", "month-year"):
            return _named_month(dates.MONTHS[groups[0]], groups[1], today, label)
        if name == "iso":
            day = dates.parse_day(groups[0])
            return Period(day, day, label) if day else None
        if name == "words":
            return _word(groups[0], today, label)
        return year_period(int(groups[0]), label)
    except (dates.InvalidDate, ValueError, KeyError):
        return None


def _count(said: str) -> int:
    return int(said) if said.isdigit() else _COUNT_WORDS[said]


def _word(word: str, today: date, label: str) -> Period:
    if word in _DAYS_WORDS:
        day = today - timedelta(days=_DAYS_WORDS[word])
        return Period(day, day, label)
    return year_period(today.year - _YEAR_WORDS[word], label)


def _relative(unit: str, back: int, today: date, label: str) -> Period:
    if unit == "day":
        day = today - timedelta(days=back)
        return Period(day, day, label)
    if unit in ("week", "weekend"):
        monday = today - timedelta(days=today.weekday() + 7 * back)
        if unit == "weekend":
            if back == 0 and today.weekday() < 5:  # "this weekend" on a weekday: the coming one
                monday = today - timedelta(days=today.weekday())
            return Period(monday + timedelta(days=5), monday + timedelta(days=6), label)
        return Period(monday, monday + timedelta(days=6), label)
    if unit == "month":
        year, month = today.year, today.month - back
        if month < 1:
            year, month = year - 1, month + 12
        return month_period(year, month, label)
    return year_period(today.year - back, label)


def _last_n(n: int, unit: str, today: date, label: str) -> Period:
    days = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}[unit] * max(n, 1)
    return Period(today - timedelta(days=days - 1), today, label)


def _ago(n: int, unit: str, today: date, label: str) -> Period:
    if unit == "day":
        day = today - timedelta(days=n)
        return Period(day, day, label)
    if unit in ("week", "weekend"):
        return _relative("week", n, today, label)
    if unit == "month":
        return _relative("month", n, today, label)
    return year_period(today.year - n, label)


def _day_of_month(day: int, month: int, year: str | None, today: date, label: str) -> Period:
    found = date(int(year), month, day) if year else _latest(today, month, day)
    return Period(found, found, label)


def _latest(today: date, month: int, day: int) -> date:
    """The most recent such day up to today (a question about the past)."""
    this_year = date(today.year, month, day)
    return this_year if this_year <= today else date(today.year - 1, month, day)


def _named_month(month: int, year: str | None, today: date, label: str) -> Period:
    if year:
        return month_period(int(year), month, label)
    chosen = today.year if month <= today.month else today.year - 1
    return month_period(chosen, month, label)
