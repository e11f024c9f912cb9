"""Cheap answer-type cues in English, German and Czech: what kind of thing a question asks for
(a duration, a quantity, a date, a person, a place) and whether a text holds one; and the
figures of an answer (numbers, dates, names) with their values, to check them against the notes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from desktop_app.core.retrieval import analyzer


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Question openers per answer type (folded, lower case); longest phrases are tried first.
_KINDS = {
    "duration": "how long|how much time|for how long|wie lange|wie viel zeit|jak dlouho|"
    "jak dlouhou|kolik casu|kolik hodin|kolik minut",
    "quantity": "how many|how much|how far|how old|how big|how large|how high|how heavy|"
    "what percentage|what temperature|which temperature|at what temperature|wie viele|wie viel|"
    "wieviel|wieviele|wie hoch|wie gross|wie weit|wie alt|welche temperatur|bei welcher "
    "temperatur|kolik|jak velk|jak vysok|jak daleko|jak star|pri jake teplote|jaka teplota",
    "date": "when|what year|which year|in what year|what date|what century|since when|wann|"
    "in welchem jahr|seit wann|welches jahr|kdy|v jakem roce|ktereho roku|od kdy",
    "person": "who|whom|whose|wer|wem|wen|wessen|kdo|koho|komu|kym",
    "place": "where|wo|wohin|woher|kde|kam|odkud",
    "name": "which|what is the name|what was the name|welche|welcher|welches|welchen|welchem|"
    "wie heisst|ktery|ktera|ktere|kterou|jak se jmenuje",
}
PROCEDURE = "procedure"
# Words that turn a how-to story from the problem to its fix.
_FIX = re.compile(
    r"\b(?:however|instead|fortunately|luckily|the trick|the solution|the fix|a better way|"
    r"the answer|to fix|to solve|the way to|stattdessen|jedoch|zum gl[üu]ck|die l[öo]sung|"
    r"der trick|besser|m[íi]sto toho|na[šs]t[ěe]st[íi]|[řr]e[šs]en[íi])\b",
    re.IGNORECASE,
)
# How to do something, anywhere in the question ("In Vim, how can I…"): technical notes answer
# with a command, code or steps.
_PROCEDURE = re.compile(
    r"\b(?:how (?:do|can|could|would|should) (?:i|you|we|one)|how to|what do i do|can i|"
    r"is there (?:a|an|any) (?:\w+ )?(?:way|shortcut|command|flag|option|setting)|"
    r"(?:what s|what is|which is) (?:the|a) (?:\w+ ){0,2}way|"
    r"(?:what|which) (?:\w+ )?(?:command|flag|option|setting|shortcut|keys?)|"
    r"wie (?:kann|konnte|muss|soll) (?:ich|man)|wie mache ich|"
    r"wie lasst sich|wie geht|gibt es (?:einen|eine) (?:befehl|weg|option)|welcher befehl|"
    r"jak (?:mohu|muzu|lze|se da|mam|nastavim|udelam)|jakym prikazem|jaky prikaz)\b"
)
# The kinds that ask for a fact a sentence states (a "how do I" is answered by code or steps).
FACT_KINDS = frozenset({"duration", "quantity", "date", "person", "place", "name", "temperature"})
_CODE = re.compile(
    r"`[^`\n]+`|^[ \t]*\$ [^\n]+|^(?: {4}|\t)[^\n]+|^`{3}[^\n]*\n[^\n]+", re.MULTILINE
)
_KIND_PATTERNS = {
    kind: re.compile(r"\b(?:" + "|".join(sorted(p.split("|"), key=len, reverse=True)) + r")\b")
    for kind, p in _KINDS.items()
}

_NUMBER_WORDS = {
    **dict.fromkeys(_word_set("one a an ein eine einen einem einer jeden jedna jedno jednu"), 1),
    **dict.fromkeys(("two", "zwei", "dva", "dve"), 2),
    **dict.fromkeys(("three", "drei", "tri"), 3),
    **dict.fromkeys(("four", "vier", "ctyri"), 4),
    **dict.fromkeys(("five", "funf", "fuenf", "pet"), 5),
    **dict.fromkeys(("six", "sechs", "sest"), 6),
    **dict.fromkeys(("seven", "sieben", "sedm"), 7),
    **dict.fromkeys(("eight", "acht", "osm"), 8),
    **dict.fromkeys(("nine", "neun", "devet"), 9),
    **dict.fromkeys(("ten", "zehn", "deset"), 10),
    **dict.fromkeys(("eleven", "elf", "jedenact"), 11),
    **dict.fromkeys(("twelve", "zwolf", "dvanact", "dozen", "dutzend", "tucet"), 12),
    **dict.fromkeys(("twenty", "zwanzig", "dvacet"), 20),
    **dict.fromkeys(("thirty", "dreissig", "dreißig", "tricet"), 30),
    **dict.fromkeys(("hundred", "hundert", "sto"), 100),
    **dict.fromkeys(("thousand", "tausend", "tisic"), 1000),
    **dict.fromkeys(("million", "millionen", "milion", "milionu"), 1_000_000),
    **dict.fromkeys(("half", "halb", "halbe", "pul"), 0.5),
}
# In a source, "one" stands for 1 but an article only before a unit of time ("an hour"): "a",
# "ein" are in every text, and would hide an invented "1" in the answer.
_ARTICLES = _word_set("a an ein eine einen einem einer")
_SOURCE_NUMBER_WORDS = {w: v for w, v in _NUMBER_WORDS.items() if w not in _ARTICLES}
# Only unambiguous number words count as figures in an answer ("a", "ein" do not).
_FIGURE_WORDS = {w: v for w, v in _NUMBER_WORDS.items() if len(w) > 3 or w in ("two", "six", "ten",
                 "elf", "tri", "pet", "dva", "dve", "osm", "sto", "pul")}  # fmt: skip
_TIME_UNITS = (
    "hour", "minute", "second", "day", "week", "month", "year", "decade", "century", "stund",
    "minut", "sekund", "tag", "woche", "monat", "jahr", "hodin", "hodiny", "sekund", "den", "dn",
    "tyden", "tydn", "mesic", "rok", "let", "noc", "night", "nacht", "evening", "abend", "vecer",
)  # fmt: skip
_MONTHS = _word_set(
    "january february march april may june july august september october november december "
    "januar februar marz april mai juni juli august september oktober november dezember "
    "leden unor brezen duben kveten cerven cervenec srpen zari rijen listopad prosinec "
    "ledna unora brezna dubna kvetna cervna cervence srpna rijna listopadu prosince"
)
_WEEKDAYS = _word_set(
    "monday tuesday wednesday thursday friday saturday sunday montag dienstag mittwoch "
    "donnerstag freitag samstag sonntag pondeli utery streda ctvrtek patek sobota nedele"
)
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_YEAR = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})\b")
_CAPITALIZED = re.compile(r"\b[A-ZÀ-ÝČĎĚŇŘŠŤŮŽ][\w'’-]*")


_TEMPERATURE_ASKED = re.compile(r"temperat|teplot")
_TEMPERATURE = re.compile(r"\d\s*°|\bgrad\b|\bstup[nň]|\bdegree", re.IGNORECASE)
OPENING_WORDS = 4  # "when" later in a question is a clause ("…when I use it?"), not what is asked


def question_kind(question: str) -> str:
    words = [analyzer.fold(w) for w in analyzer.words(question)]
    if _TEMPERATURE_ASKED.search(" ".join(words)):
        return "temperature"
    folded = " ".join(words[:OPENING_WORDS])
    for kind, pattern in _KIND_PATTERNS.items():
        if kind == "quantity" and _KIND_PATTERNS["duration"].search(folded):
            continue
        if pattern.search(folded):
            return kind
    return PROCEDURE if _PROCEDURE.search(" ".join(words)) else "other"


def _folded_words(text: str) -> list[str]:
    return [analyzer.fold(w) for w in analyzer.words(text)]


def _numbers(text: str) -> set[float]:
    values = {_number_value(m.group(0).rstrip(".,")) for m in _DIGITS.finditer(text)}
    words = {_FIGURE_WORDS[w] for w in _folded_words(text) if w in _FIGURE_WORDS}
    return {v for v in values if v is not None} | words


def has_number(text: str, asked: str = "") -> bool:
    """A number in `text` that the question `asked` does not state itself (the "Seven" of "How
    long was the Seven Years' War?" is no answer to it)."""
    return bool(_numbers(text) - _numbers(asked))


def has_duration(text: str, asked: str = "") -> bool:
    words = _folded_words(text)
    unit = any(w.startswith(_TIME_UNITS) for w in words)
    article = any(w in ("an", "a", "eine", "einen") for w in words)
    return unit and (has_number(text, asked) or article)


def has_date(text: str, asked: str = "") -> bool:
    words = set(_folded_words(text)) - set(_folded_words(asked))
    years = set(_YEAR.findall(text)) - set(_YEAR.findall(asked))
    return bool(years) or bool(words & _MONTHS) or bool(words & _WEEKDAYS)


def has_name(text: str, question: str) -> bool:
    """A capitalized word that is not the unit's first word and not a word of the question."""
    asked = {analyzer.fold(w) for w in analyzer.words(question)}
    for match in _CAPITALIZED.finditer(text):
        word = analyzer.fold(match.group(0).casefold())
        if match.start() > 0 and word not in asked and not analyzer.is_function_word(word):
            return True
    return False


def matches(kind: str, text: str, question: str) -> bool:
    if kind == "duration":
        return has_duration(text, question)
    if kind == "quantity":
        return has_number(text, question)
    if kind == "date":  # "when" in notes is often relative: "the evening before", "weeks ahead"
        return has_date(text, question) or any(
            w.startswith(_TIME_UNITS) for w in _folded_words(text)
        )
    if kind == "temperature":
        return bool(_TEMPERATURE.search(text))  # fold() would drop "°" and the spaces
    if kind in ("person", "place", "name"):
        return has_name(text, question)
    if kind == PROCEDURE:
        return has_new_code(text, question)
    return False


def tells_the_fix(text: str) -> bool:
    """The text turns from the problem to its fix ("However, …", "Stattdessen …", "Naštěstí …")."""
    return bool(_FIX.search(text))


def has_new_code(text: str, question: str) -> bool:
    """Code (inline, a `$ command`, an indented line) holding a word the question does not: the
    thing that answers "how do I", not the question's own `onChange` repeated."""
    asked = set(_folded_words(question))
    return any(set(_folded_words(m.group(0))) - asked for m in _CODE.finditer(text))


# -- figures of an answer ---------------------------------------------------------------------
@dataclass(frozen=True)
class Figure:
    start: int
    end: int
    text: str
    kind: str  # "number", "date", "name"
    value: float | str


def _number_value(token: str) -> float | None:
    plain = token.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+", token) else token
    plain = plain.replace(",", ".")
    if plain.count(".") > 1:
        plain = plain.replace(".", "")
    try:
        return float(plain)
    except ValueError:
        return None


# German capitalizes every noun: after these words a capitalized word is a noun, not a name.
_GERMAN_DETERMINERS = _word_set(
    "der die das den dem des ein eine einen einem einer eines kein keine keinen keinem meine "
    "mein meinen dein deine sein seine ihr ihre unser unsere diese dieser dieses diesen jede "
    "jeder jedes viele einige alle"
)


def figures(text: str, language: str = "en") -> Iterator[Figure]:
    """Numbers (digits and number words), dates (months, weekdays) and names in `text`.

    In German, a capitalized word right after an article or determiner is a common noun."""
    for match in _DIGITS.finditer(text):
        value = _number_value(match.group(0).rstrip(".,"))
        if value is not None:
            yield Figure(match.start(), match.end(), match.group(0), "number", value)
    sentence_starts = {0} | {m.end() for m in re.finditer(r"[.!?:\n]\s*|\[\d+\]\s*", text)}
    previous = ""
    for start, end in analyzer.word_spans(text):
        word, before = text[start:end], previous
        previous = word.casefold()
        folded = analyzer.fold(word.casefold())
        if word.isdigit():
            continue
        if folded in _FIGURE_WORDS:
            yield Figure(start, end, word, "number", _FIGURE_WORDS[folded])
        elif folded in _MONTHS or folded in _WEEKDAYS:
            yield Figure(start, end, word, "date", folded)
        elif word[0].isupper() and start not in sentence_starts and len(word) > 1:
            if language == "de" and (before in _GERMAN_DETERMINERS or word.endswith(
                    ("ung", "heit", "keit", "schaft", "chen", "lein", "nis", "tät"))):  # fmt: skip
                continue
            if analyzer.is_key_word(folded):
                yield Figure(start, end, word, "name", folded)


def source_values(texts: list[str]) -> tuple[set[float], set[str]]:
    """The numbers (as values) and folded words of the sources, to look figures up in."""
    numbers: set[float] = set()
    words: set[str] = set()
    for text in texts:
        for match in _DIGITS.finditer(text):
            value = _number_value(match.group(0).rstrip(".,"))
            if value is not None:
                numbers.add(value)
        folded = _folded_words(text)
        for word, after in zip(folded, [*folded[1:], ""], strict=True):
            words.add(word)
            if word in _SOURCE_NUMBER_WORDS:
                numbers.add(_SOURCE_NUMBER_WORDS[word])
            elif word in _ARTICLES and after.startswith(_TIME_UNITS):  # "an hour" is 1 hour
                numbers.add(1)
    return numbers, words


def found_in(figure: Figure, numbers: set[float], words: set[str]) -> bool:
    if figure.kind == "number":
        return float(figure.value) in numbers
    word = str(figure.value)
    if word in words:
        return True
    stem = word[: max(4, len(word) - 3)]  # inflected forms: "Prahy" ~ "Praha", "Berlins"
    return len(stem) >= 4 and any(w.startswith(stem) or (word.startswith(w) and len(w) >= 4)
                                  for w in words)  # fmt: skip
