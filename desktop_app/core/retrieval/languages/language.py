"""What Quire knows of one language: the words that say nothing about a topic, the words a
question asks with, the cues of the kind of answer asked for, and its stemmer (Snowball's, through
`core.retrieval.analyzer`). Word lists are folded lower case (`analyzer.fold`): no diacritics.

Each language's words are data, a TOML file beside this module (`en.toml`): a list of words is
one string of words separated by white space, a list of phrases or regular expressions an array.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from desktop_app.core.retrieval import analyzer

REGEXES = {"array": "regular expressions"}  # a field's items are written as an array of these
PHRASES = {"array": "phrases"}
WRITTEN = {"array": "texts as written"}  # literal text, not patterns
PERIOD_UNITS = ("day", "week", "month", "year", "weekend")


@dataclass(frozen=True)
class Language:
    code: str  # ISO 639-1, as the language detector reports it
    name: str  # in English, for the prompt ("Write … in German")
    # Words that say nothing about whether a passage answers a question: function words, and
    # light and modal verbs and indefinite pronouns ("get", "etwas", "neco").
    function_words: frozenset[str]
    # What a question asks with ("how long", "wie viele", "kolik"): no passage needs to hold them.
    question_words: frozenset[str]
    # The kind of answer asked for (see `core.answer.cues.KINDS`) → question openers.
    answer_kinds: Mapping[str, tuple[str, ...]] = field(metadata=PHRASES)
    # Regexes: a how-to question, anywhere in its folded words.
    procedure: tuple[str, ...] = field(metadata=REGEXES)
    # Regexes (any case): a how-to story turns to its fix.
    fix_turns: tuple[str, ...] = field(metadata=REGEXES)
    # Regexes: the question asks for a temperature.
    temperature_asked: tuple[str, ...] = field(metadata=REGEXES)
    # Regexes (any case): a text states a temperature.
    degrees: tuple[str, ...] = field(metadata=REGEXES)
    number_words: Mapping[str, float]
    short_figures: frozenset[str]  # number words of three letters that are never anything else
    articles: frozenset[str]  # indefinite articles: "an hour" is one hour
    duration_articles: frozenset[str]  # …those that make a time unit a duration ("eine Stunde")
    time_units: tuple[str, ...]  # beginnings of the words for units of time
    # Month and weekday names that make a date in an answer's figures (`month_forms` below: every
    # form a written date or a question's time phrase may use).
    months: frozenset[str]
    weekdays: frozenset[str]
    follow_up_openers: frozenset[str]  # a question opening so leans on the previous one
    # Abbreviations whose point ends no sentence, as written without the point ("z. B", "ca").
    abbreviations: tuple[str, ...] = field(metadata=WRITTEN)
    # A capitalized word after these, or with these endings, is a common noun, not a name.
    noun_determiners: frozenset[str] = field(default_factory=frozenset)
    noun_endings: tuple[str, ...] = ()
    # Ordinary prose before a flag ("use -p", "the --force"): not the command the flag belongs to.
    prose_before_flag: frozenset[str] = field(default_factory=frozenset)
    # Dates: the twelve months' forms, January first, each "name form form…" (`core.retrieval.
    # dates`); weekday abbreviations ("Mon, 30 Nov 2026").
    month_forms: tuple[str, ...] = ()
    weekday_abbreviations: frozenset[str] = field(default_factory=frozenset)
    # Time phrases in questions (`core.retrieval.time_phrases`): a unit (day, week, month, year,
    # weekend) → its forms; regexes of this period and of the last one; the phrases before
    # them, before "3 weeks ago"'s count or after it, before a month or a year; the words that
    # name a day or a year back from today.
    period_words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    this_period: tuple[str, ...] = field(default=(), metadata=REGEXES)
    last_period: tuple[str, ...] = field(default=(), metadata=REGEXES)
    period_prepositions: tuple[str, ...] = field(default=(), metadata=PHRASES)
    period_articles: tuple[str, ...] = field(default=(), metadata=PHRASES)
    ago_before: tuple[str, ...] = field(default=(), metadata=PHRASES)
    ago_after: tuple[str, ...] = field(default=(), metadata=PHRASES)
    month_prepositions: tuple[str, ...] = field(default=(), metadata=PHRASES)
    year_prepositions: tuple[str, ...] = field(default=(), metadata=PHRASES)
    days_back: Mapping[str, float] = field(default_factory=dict)
    years_back: Mapping[str, float] = field(default_factory=dict)
    # Number words in the forms a time phrase puts them in ("před dvěma týdny", "v posledních
    # třech dnech"): counted there as `number_words` are, and nowhere else.
    count_forms: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.month_forms and len(self.month_forms) != 12:
            raise ValueError(
                f"month_forms: twelve months, January first, not {len(self.month_forms)}"
            )
        units = set(self.period_words) - set(PERIOD_UNITS)
        if units:
            raise ValueError(
                f"period_words: no unit {', '.join(sorted(units))} ({', '.join(PERIOD_UNITS)})"
            )

    def stems(self, words: Sequence[str]) -> list[str]:
        """Its stemmer: Snowball's (`analyzer.SNOWBALL`), folded, as the index stores terms."""
        return analyzer.stems(words, self.code)


def load(code: str) -> Language:
    """The language whose words `<code>.toml` beside this module holds."""
    path = Path(__file__).with_name(f"{code}.toml")
    return parse(path.read_text("utf-8"), path.name)


def parse(text: str, source: str) -> Language:
    """A `Language` from the text of its TOML file; ValueError naming `source` and what is wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{source}: {exc}") from exc
    return from_data(data, source)


def from_data(data: dict[str, Any], source: str) -> Language:
    """A `Language` from a language file's keys and values (`parse`)."""
    known = {f.name: f for f in fields(Language)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ValueError(f"{source}: unknown key(s) {', '.join(unknown)}")
    try:
        return Language(**{key: _read(known[key], value) for key, value in data.items()})
    except (TypeError, ValueError, re.error) as exc:
        raise ValueError(f"{source}: {exc}") from exc


def _read(spec: Any, value: Any) -> Any:
    """One field's value as the `Language` holds it, checked against how the file must write it:
    phrases, regular expressions (both regex sources: `cues` joins them; each one compiled) and
    texts as written as arrays."""
    array = spec.metadata.get("array")
    lists = value.values() if isinstance(value, dict) else [value]
    if array and any(isinstance(v, str) for v in lists):
        raise TypeError(f"{spec.name}: write its {array} as an array of strings")
    read = _READERS[str(spec.type)](value)
    if array and array != WRITTEN["array"]:
        parts = read.values() if isinstance(read, Mapping) else [read]
        for pattern in (p for part in parts for p in part):
            re.compile(pattern)
    return read


def _table(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"expected a table, got {value!r}")
    return value


def _items(value: Any) -> list[str]:
    """A string of words, or an array of phrases or regular expressions, as a list."""
    if isinstance(value, str):
        return value.split()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"expected words or an array of strings, got {value!r}")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TypeError(f"expected a number, got {value!r}")
    return float(value)


_READERS: dict[str, Callable[[Any], Any]] = {
    "str": _text,
    "frozenset[str]": lambda value: frozenset(_items(value)),
    "tuple[str, ...]": lambda value: tuple(_items(value)),
    "Mapping[str, tuple[str, ...]]": lambda t: {k: tuple(_items(v)) for k, v in _table(t).items()},
    "Mapping[str, float]": lambda table: {k: _number(v) for k, v in _table(table).items()},
}
