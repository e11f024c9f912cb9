"""What Quire knows of one language: the words that say nothing about a topic, the words a
question asks with, the cues of the kind of answer asked for, and its stemmer (Snowball's, through
`core.retrieval.analyzer`). Word lists are folded lower case (`analyzer.fold`): no diacritics.

Each language's words are data, a TOML file beside this module (`en.toml`): a list of words is
one string of words separated by white space, a list of phrases or regular expressions an array.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from desktop_app.core.retrieval import analyzer


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
    answer_kinds: Mapping[str, tuple[str, ...]]
    procedure: tuple[str, ...]  # regexes: a how-to question, anywhere in its folded words
    fix_turns: tuple[str, ...]  # regexes (any case): a how-to story turns to its fix
    temperature_asked: tuple[str, ...]  # regexes: the question asks for a temperature
    degrees: tuple[str, ...]  # regexes (any case): a text states a temperature
    number_words: Mapping[str, float]
    short_figures: frozenset[str]  # number words of three letters that are never anything else
    articles: frozenset[str]  # indefinite articles: "an hour" is one hour
    duration_articles: frozenset[str]  # …those that make a time unit a duration ("eine Stunde")
    time_units: tuple[str, ...]  # beginnings of the words for units of time
    months: frozenset[str]
    weekdays: frozenset[str]
    follow_up_openers: frozenset[str]  # a question opening so leans on the previous one
    abbreviations: tuple[str, ...]  # regexes: an abbreviation whose point ends no sentence
    # A capitalized word after these, or with these endings, is a common noun, not a name.
    noun_determiners: frozenset[str] = field(default_factory=frozenset)
    noun_endings: tuple[str, ...] = ()
    # Ordinary prose before a flag ("use -p", "the --force"): not the command the flag belongs to.
    prose_before_flag: frozenset[str] = field(default_factory=frozenset)

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
    types = {f.name: str(f.type) for f in fields(Language)}
    unknown = sorted(set(data) - set(types))
    if unknown:
        raise ValueError(f"{source}: unknown key(s) {', '.join(unknown)}")
    try:
        return Language(**{key: _READERS[types[key]](value) for key, value in data.items()})
    except (AttributeError, TypeError, ValueError) as exc:
        raise ValueError(f"{source}: {exc}") from exc


def _items(value: str | list[str]) -> list[str]:
    """A string of words, or an array of phrases or regular expressions, as a list."""
    if isinstance(value, str):
        return value.split()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"expected words or an array of strings, got {value!r}")
    return value


_READERS: dict[str, Callable[[Any], Any]] = {
    "str": str,
    "frozenset[str]": lambda value: frozenset(_items(value)),
    "tuple[str, ...]": lambda value: tuple(_items(value)),
    "Mapping[str, tuple[str, ...]]": lambda table: {k: tuple(_items(v)) for k, v in table.items()},
    "Mapping[str, float]": lambda table: {k: float(v) for k, v in table.items()},
}
