"""Cheap answer-type cues, in every registered language: what kind of thing a question asks for
(a duration, a quantity, a date, a person, a place, a name, a procedure) and whether a text holds
one. The figures of an answer (numbers, dates, names) are in `figures`."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Protocol

from desktop_app.core.answer.figures import (
    DATE_MONTHS,
    DATE_WEEKDAYS,
    TIME_UNITS,
    folded_words,
    numbers,
)
from desktop_app.core.retrieval import analyzer, languages
from desktop_app.core.text import COMMAND, DAY_MONTH, FENCE, INDENTED, INLINE_CODE, YEAR


class Asked(Protocol):
    """What the cues read of a question (`question.Question` is one; it reads its kind here)."""

    @property
    def numbers(self) -> frozenset[float]: ...
    @property
    def folded(self) -> frozenset[str]: ...
    @property
    def years(self) -> frozenset[str]: ...


class AnswerKind(StrEnum):
    """What a question asks for (its value names the phrases in the language files)."""

    DURATION = "duration"
    QUANTITY = "quantity"
    DATE = "date"
    PERSON = "person"
    PLACE = "place"
    NAME = "name"
    TEMPERATURE = "temperature"
    PROCEDURE = "procedure"  # how to do something: answered by code, a command or steps
    OTHER = "other"  # none of the above ("What built-in function gives…")


# In this order: a question is of the first kind one of its opening phrases names.
KINDS = (
    AnswerKind.DURATION,
    AnswerKind.QUANTITY,
    AnswerKind.DATE,
    AnswerKind.PERSON,
    AnswerKind.PLACE,
    AnswerKind.NAME,
)
# The kinds that ask for a fact a sentence states (a "how do I" is answered by code or steps).
FACT_KINDS = frozenset({*KINDS, AnswerKind.TEMPERATURE})
NAMED_KINDS = frozenset({AnswerKind.PERSON, AnswerKind.PLACE, AnswerKind.NAME})
OPENING_WORDS = 4  # "when" later in a question is a clause ("…when I use it?"), not what is asked


def _alternatives(patterns: list[str], flags: int = 0) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(patterns) + r")\b", flags)


def _phrases(kind: str) -> list[str]:
    return [p for lang in languages.REGISTERED for p in lang.answer_kinds.get(kind, ())]


_KIND_PATTERNS = {
    kind: _alternatives(sorted(_phrases(kind), key=len, reverse=True)) for kind in KINDS
}
# How to do something, anywhere in the question ("In Vim, how can I…"): technical notes answer
# with a command, code or steps.
_PROCEDURE = _alternatives([p for lang in languages.REGISTERED for p in lang.procedure])
# Words that turn a how-to story from the problem to its fix.
_FIX = _alternatives([p for lang in languages.REGISTERED for p in lang.fix_turns], re.IGNORECASE)
_TEMPERATURE_ASKED = re.compile(
    "|".join(dict.fromkeys(p for lang in languages.REGISTERED for p in lang.temperature_asked))
)
_TEMPERATURE = re.compile(  # fold() would drop "°" and the spaces
    "|".join([r"\d\s*°", *(p for lang in languages.REGISTERED for p in lang.degrees)]),
    re.IGNORECASE,
)
_DURATION_ARTICLES = frozenset(w for lang in languages.REGISTERED for w in lang.duration_articles)
# Code in a text: inline code, a command line, an indented line, a fence and its first line.
_CODE = re.compile(
    "|".join(
        [
            INLINE_CODE,
            COMMAND.pattern + r"[^\n]*",
            INDENTED.pattern + r"[^\n]+",
            FENCE.pattern + r"[^\n]*\n[^\n]+",
        ]
    ),
    re.MULTILINE,
)
_CAPITALIZED = re.compile(r"\b[A-ZÀ-ÝČĎĚŇŘŠŤŮŽ][\w'’-]*")


def question_kind(question: str) -> AnswerKind:
    words = folded_words(question)
    folded = " ".join(words[:OPENING_WORDS])
    if not _KIND_PATTERNS[AnswerKind.DURATION].search(folded) and _asks_temperature(words, folded):
        return AnswerKind.TEMPERATURE
    for kind, pattern in _KIND_PATTERNS.items():
        if kind == AnswerKind.QUANTITY and _KIND_PATTERNS[AnswerKind.DURATION].search(folded):
            continue
        if pattern.search(folded):
            return kind
    return AnswerKind.PROCEDURE if _PROCEDURE.search(" ".join(words)) else AnswerKind.OTHER


def _asks_temperature(words: list[str], opening: str) -> bool:
    """A temperature is asked for by name anywhere ("at what temperature"), or as a number of
    degrees ("how many degrees", "kolik stupňů", "wie viel Grad"); a question opened by "how
    long" asks for a time, whatever temperature it names ("…at room temperature?")."""
    text = " ".join(words)
    if _TEMPERATURE_ASKED.search(text):
        return True
    return bool(_KIND_PATTERNS[AnswerKind.QUANTITY].search(opening) and _TEMPERATURE.search(text))


def has_number(text: str, question: Asked) -> bool:
    """A number in `text` that the question does not state itself (the "Seven" of "How long was
    the Seven Years' War?" is no answer to it)."""
    return bool(numbers(text) - question.numbers)


def has_duration(text: str, question: Asked) -> bool:
    words = folded_words(text)
    unit = any(w.startswith(TIME_UNITS) for w in words)
    article = any(w in _DURATION_ARTICLES for w in words)
    return unit and (has_number(text, question) or article)


def has_date(text: str, question: Asked) -> bool:
    words = set(folded_words(text)) - question.folded
    years = set(YEAR.findall(text)) - question.years
    days = [d for d in DAY_MONTH.findall(text) if not {float(n) for n in d} <= question.numbers]
    return bool(years or days) or bool(words & DATE_MONTHS) or bool(words & DATE_WEEKDAYS)


def has_name(text: str, question: Asked) -> bool:
    """A capitalized word that is not the unit's first word and not a word of the question."""
    for match in _CAPITALIZED.finditer(text):
        word = analyzer.fold(match.group(0).casefold())
        if match.start() > 0 and word not in question.folded and languages.is_content_word(word):
            return True
    return False


def matches(kind: AnswerKind, text: str, question: Asked) -> bool:
    """`text` holds the kind of thing the question asks for."""
    if kind == AnswerKind.DURATION:
        return has_duration(text, question)
    if kind == AnswerKind.QUANTITY:
        return has_number(text, question)
    if kind == AnswerKind.DATE:  # "when" in notes is often relative: "the evening before"…
        return has_date(text, question) or any(w.startswith(TIME_UNITS) for w in folded_words(text))
    if kind == AnswerKind.TEMPERATURE:
        return bool(_TEMPERATURE.search(text))
    if kind in NAMED_KINDS:
        return has_name(text, question)
    if kind == AnswerKind.PROCEDURE:
        return has_new_code(text, question)
    return False


def tells_the_fix(text: str) -> bool:
    """The text turns from the problem to its fix ("However, …", "Stattdessen …", "Naštěstí …")."""
    return bool(_FIX.search(text))


def has_new_code(text: str, question: Asked) -> bool:
    """Code (inline, a `$ command`, an indented line) holding a word the question does not: the
    thing that answers "how do I", not the question's own `onChange` repeated."""
    return any(set(folded_words(m.group(0))) - question.folded for m in _CODE.finditer(text))
