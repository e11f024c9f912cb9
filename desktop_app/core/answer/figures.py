"""The figures of a text (numbers, in digits or words; dates; names) with their values, to check
an answer's against its sources, in every registered language."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from desktop_app.core.answer.support import CITATION
from desktop_app.core.retrieval import analyzer, languages
from desktop_app.core.text import TextSpan

_LANGUAGES = languages.REGISTERED
NUMBER_WORDS = {w: v for lang in _LANGUAGES for w, v in lang.number_words.items()}
# In a source, "one" stands for 1 but an article only before a unit of time ("an hour"): "a",
# "ein" are in every text, and would hide an invented "1" in the answer.
ARTICLES = frozenset(w for lang in _LANGUAGES for w in lang.articles)
_SOURCE_NUMBER_WORDS = {w: v for w, v in NUMBER_WORDS.items() if w not in ARTICLES}
# Only unambiguous number words count as figures in an answer ("a", "ein" do not).
_SHORT_FIGURES = frozenset(w for lang in _LANGUAGES for w in lang.short_figures)
FIGURE_WORDS = {w: v for w, v in NUMBER_WORDS.items() if len(w) > 3 or w in _SHORT_FIGURES}
TIME_UNITS = tuple(dict.fromkeys(u for lang in _LANGUAGES for u in lang.time_units))
DATE_MONTHS = frozenset(w for lang in _LANGUAGES for w in lang.months)  # make a date figure
DATE_WEEKDAYS = frozenset(w for lang in _LANGUAGES for w in lang.weekdays)
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_SENTENCE_START = re.compile(r"[.!?:\n]\s*|(?:" + CITATION.pattern + r")\s*")


@dataclass(frozen=True)
class Figure(TextSpan):
    kind: str  # "number", "date", "name"
    value: float | str


def folded_words(text: str) -> list[str]:
    return [analyzer.fold(w) for w in analyzer.words(text)]


def number_value(token: str) -> float | None:
    plain = token.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+", token) else token
    plain = plain.replace(",", ".")
    if plain.count(".") > 1:
        plain = plain.replace(".", "")
    try:
        return float(plain)
    except ValueError:
        return None


def _digit_values(text: str) -> Iterator[tuple[re.Match[str], float]]:
    for match in _DIGITS.finditer(text):
        value = number_value(match.group(0).rstrip(".,"))
        if value is not None:
            yield match, value


def numbers(text: str) -> set[float]:
    """The values of the numbers `text` states, in digits or unambiguous words."""
    words = {FIGURE_WORDS[w] for w in folded_words(text) if w in FIGURE_WORDS}
    return {value for _, value in _digit_values(text)} | words


def _is_common_noun(word: str, before: str, language: str) -> bool:
    """German capitalizes every noun: after an article or determiner, or with a noun's ending,
    a capitalized word is a noun, not a name."""
    own = languages.registered(language)
    if own is None or not own.noun_determiners:
        return False
    return before in own.noun_determiners or word.endswith(own.noun_endings)


def _is_name(word: str, folded: str, before: str, inside: bool, language: str) -> bool:
    """A capitalized key word inside a sentence, and no common noun."""
    if not (word[0].isupper() and inside and len(word) > 1):
        return False
    return not _is_common_noun(word, before, language) and languages.is_key_word(folded)


def figures(text: str, language: str = "en") -> Iterator[Figure]:
    """Numbers (digits and number words), dates (months, weekdays) and names in `text`."""
    for match, value in _digit_values(text):
        yield Figure(match.start(), match.end(), match.group(0), "number", value)
    sentence_starts = {0} | {m.end() for m in _SENTENCE_START.finditer(text)}
    previous = ""
    for start, end in analyzer.word_spans(text):
        word, before = text[start:end], previous
        previous = word.casefold()
        folded = analyzer.fold(word.casefold())
        if word.isdigit():
            continue
        if folded in FIGURE_WORDS:
            yield Figure(start, end, word, "number", FIGURE_WORDS[folded])
        elif folded in DATE_MONTHS or folded in DATE_WEEKDAYS:
            yield Figure(start, end, word, "date", folded)
        elif _is_name(word, folded, before, start not in sentence_starts, language):
            yield Figure(start, end, word, "name", folded)


def source_values(texts: list[str]) -> tuple[set[float], set[str]]:
    """The numbers (as values) and folded words of the sources, to look figures up in."""
    values: set[float] = set()
    words: set[str] = set()
    for text in texts:
        values.update(value for _, value in _digit_values(text))
        folded = folded_words(text)
        for word, after in zip(folded, [*folded[1:], ""], strict=True):
            words.add(word)
            if word in _SOURCE_NUMBER_WORDS:
                values.add(_SOURCE_NUMBER_WORDS[word])
            elif word in ARTICLES and after.startswith(TIME_UNITS):  # "an hour" is 1 hour
                values.add(1)
    return values, words


def found_in(figure: Figure, values: set[float], words: set[str]) -> bool:
    if figure.kind == "number":
        return float(figure.value) in values
    word = str(figure.value)
    if word in words:
        return True
    stem = word[: max(4, len(word) - 3)]  # inflected forms: "Prahy" ~ "Praha", "Berlins"
    return len(stem) >= 4 and any(
        w.startswith(stem) or (word.startswith(w) and len(w) >= 4) for w in words
    )
