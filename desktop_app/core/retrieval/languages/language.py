"""What Quire knows of one language: the words that say nothing about a topic, the words a
question asks with, the cues of the kind of answer asked for, and its stemmer (Snowball's, through
`core.retrieval.analyzer`). Word lists are folded lower case (`analyzer.fold`): no diacritics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from desktop_app.core.retrieval import analyzer


def word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


def word_tuple(words: str) -> tuple[str, ...]:
    return tuple(words.split())


def phrases(text: str) -> tuple[str, ...]:
    """ "how long|how much time" → ("how long", "how much time")."""
    return tuple(p.strip() for p in text.split("|"))


def values(text: str) -> dict[str, float]:
    """ "one:1 half:0.5" → {"one": 1.0, "half": 0.5}."""
    return {w: float(v) for w, v in (pair.split(":") for pair in text.split())}


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
