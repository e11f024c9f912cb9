"""Calendar days written the ways people write them, in English, German and Czech: ISO
(`2026-11-30`), local (`30.11.2026`, `30. 11. 2026`), with month names (`30 November 2026`,
`30. listopadu 2026`, `November 30, 2026`), in file names and folder paths. One lexicon of month
names (the language files' `month_forms`) serves note dates, journal headings and the time
phrases of questions."""

from __future__ import annotations

import os
import re
import unicodedata
from datetime import date

from desktop_app.core.retrieval import languages

# Month names and the inflected forms questions and headings use (folded: lower case, no
# accents), from each registered language's file: form → month number.
MONTHS: dict[str, int] = {
    form: month
    for language in languages.REGISTERED
    for month, forms in enumerate(language.month_forms, start=1)
    for form in forms.split()
}
MONTH_NAMES = frozenset(
    forms.split()[0] for language in languages.REGISTERED for forms in language.month_forms
)
_WEEKDAYS = frozenset(
    word
    for language in languages.REGISTERED
    for word in language.weekdays | language.weekday_abbreviations
)

_MONTH_WORD = r"([^\W\d_]{3,10})\.?"
_TIME = r"(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
_DAY_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"(\d{{4}})-(\d{{1,2}})-(\d{{1,2}}){_TIME}"), "ymd"),
    (re.compile(r"(\d{4})/(\d{1,2})/(\d{1,2})"), "ymd"),
    (re.compile(rf"(\d{{1,2}})\.\s?(\d{{1,2}})\.\s?(\d{{4}}){_TIME}"), "dmy"),
    (re.compile(rf"(\d{{1,2}})\.?\s+{_MONTH_WORD}\s+(\d{{4}})"), "d-name-y"),
    (re.compile(rf"{_MONTH_WORD}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})"), "name-d-y"),
)
# In file names and paths: 2026-11-30, 2026_11_30, 20261130, 30.11.2026, 2026/11/30.
_PATH_DAY = re.compile(r"(?<!\d)(\d{4})([-_.]?)(\d{2})\2(\d{2})(?!\d)")
_PATH_DMY = re.compile(r"(?<!\d)(\d{1,2})\.(\d{1,2})\.(\d{4})(?!\d)")
_PATH_FOLDERS = re.compile(r"(?:^|/)(\d{4})/(\d{1,2})/(\d{1,2})(?=[/._ -]|$)")


def today() -> date:
    """Today, or the day `QUIRE_TODAY` (ISO) names: "last week" in a test or a benchmark must
    mean the same week on every run."""
    fixed = os.environ.get("QUIRE_TODAY", "").strip()
    if fixed:
        try:
            return date.fromisoformat(fixed)
        except ValueError:
            pass
    return date.today()


class InvalidDate(ValueError):
    """Text shaped like a date that is no day of the calendar (`31.02.2026`)."""


def fold(text: str) -> str:
    """Lower case without accents, one character for one (so a match's offsets hold in `text`):
    how month names and time words are matched."""
    return "".join((unicodedata.normalize("NFKD", c)[:1] or c).lower() for c in text)


def make_day(year: int, month: int, day: int, written: str) -> date:
    try:
        return date(year, month, day)
    except ValueError:
        raise InvalidDate(f"{written!r} is not a date") from None


def parse_day(text: str) -> date | None:
    """The day `text` states and nothing else (a weekday may lead, a time may follow); None if it
    is no date; InvalidDate if it is shaped like one but no such day exists."""
    written = text.strip().strip("*_#[]()").strip()
    words = written.split(maxsplit=1)
    if len(words) == 2 and fold(words[0]).rstrip(",.") in _WEEKDAYS:
        written = words[1].strip()
    for pattern, order in _DAY_PATTERNS:
        match = pattern.fullmatch(written)
        if match is None:
            continue
        parts = match.groups()
        if order == "ymd":
            return make_day(int(parts[0]), int(parts[1]), int(parts[2]), text)
        if order == "dmy":
            return make_day(int(parts[2]), int(parts[1]), int(parts[0]), text)
        name, day = (parts[1], parts[0]) if order == "d-name-y" else (parts[0], parts[1])
        month = MONTHS.get(fold(name))
        if month is None:
            return None
        return make_day(int(parts[2]), month, int(day), text)
    return None


def day_or_none(text: str) -> date | None:
    """`parse_day`, with a date shaped text that is no day (`31.02.2026`) read as no date."""
    try:
        return parse_day(text)
    except InvalidDate:
        return None


def day_in_path(rel_path: str) -> date | None:
    """A day a note's file name or folders state (`2026-11-30.md`, `journal/2026/11/30.md`,
    `30.11.2026 call.md`); impossible days are ignored (a number, not a date)."""
    name = rel_path.rsplit("/", 1)[-1]
    for pattern, text in ((_PATH_DAY, name), (_PATH_DMY, name), (_PATH_FOLDERS, rel_path)):
        for match in pattern.finditer(text):
            groups = [g for g in match.groups() if g.isdigit()]
            y, m, d = (groups[2], groups[1], groups[0]) if pattern is _PATH_DMY else groups
            try:
                return make_day(int(y), int(m), int(d), match.group())
            except InvalidDate:
                continue
    return None
