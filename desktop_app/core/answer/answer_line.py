"""The answer line: the shortest exact part of the best evidence unit that answers the question.

A sentence of the notes often holds more than the question asks ("Bake 20 minutes at 250 °C
with the lid on, then 25 minutes at 230 °C with the lid off."). The line is the clause (or run
of neighbouring clauses) of that unit that holds the kind of thing asked for (a duration, a
figure, a date, a name) and most of the question's key words that the unit holds: the
qualifiers ("with the lid on") decide between two clauses that both hold a temperature. It is
an exact span of the note (`note_text[start:end] == text`), so it can be quoted verbatim in any
language, whatever the chat model writes. Code is never cut.

The unit is the best evidence unit that holds the kind of thing asked for, if one does. A
question of the notes (an FAQ's), a line that introduces what follows ("Ingredients:") or a
label followed only by links or tags ("Source: [[Berlin]]") answers nothing: the line is the
best unit that does, or none.
"""

from __future__ import annotations

import re
from dataclasses import replace

from desktop_app.core.answer import cues
from desktop_app.core.answer.evidence import question_overlap
from desktop_app.core.answer.question import Question
from desktop_app.core.answer.units import CODE, is_question
from desktop_app.core.passage import Evidence
from desktop_app.core.retrieval import analyzer
from desktop_app.core.text import plain_text

# A clause ends at , ; : or a dash, before the next one starts (numbers like 2,5 or 10:30 and
# hyphenated words do not end one).
_CLAUSE_END = re.compile(r"(?<!\d)[,;:](?!\d)\s+|\s+[–—-]\s+")
MIN_WORDS = 3  # a shorter piece ("then", "at 160 °C") says too little on its own
MAX_CLAUSES = 3  # neighbouring clauses tried together
KEEP_SHARE = 0.999  # a shorter part keeps every key word the whole unit holds (the qualifiers)
_TRIM = " \t\n,;:–—-"
# "Label: value" (the label a few words), and what a value that only points elsewhere holds.
_LABELLED = re.compile(r"\s*[^\W\d][\w .-]{0,30}:\s+(?P<value>\S.*)", re.DOTALL)
_POINTERS = re.compile(
    r"!?\[\[[^\]\n]*\]\]|!?\[[^\]\n]*\]\([^)\n]*\)|<?(?:https?://|www\.)\S+|"
    r"\S+@\S+\.\w+|(?<!\w)#[\w/-]+"
)


def compose(found: list[Evidence], question: Question) -> Evidence | None:
    """The answer line from the best evidence unit that answers something (None without one):
    an `Evidence` whose span lies inside that unit's; the unit itself when no shorter part
    answers as well."""
    answering = [e for e in found if answers_something(e)]
    if not answering:
        return None
    best = _first_of_the_kind(answering, question)
    if best.kind == CODE or best.code or _asks_for_all(best.text, question):
        return best
    if question.kind not in cues.FACT_KINDS:
        return best  # nothing tells which clause holds the answer: the whole unit does
    whole = _score(best.text, question)
    shortest: tuple[int, int] | None = None
    for start, end in _windows(best.text):
        text = best.text[start:end]
        if len(text.split()) < MIN_WORDS or (end - start) >= len(best.text.strip(_TRIM)):
            continue
        cue, overlap = _score(text, question)
        if (whole[0] and not cue) or overlap < KEEP_SHARE * whole[1]:
            continue
        if shortest is None or end - start < shortest[1] - shortest[0]:
            shortest = (start, end)
    if shortest is None:
        return best
    return _part(best, *shortest)


def _first_of_the_kind(answering: list[Evidence], question: Question) -> Evidence:
    """The best unit that holds the kind of fact asked for (a temperature, a duration, a date,
    a name), else the best: a sentence that names the dish but gives no temperature cannot say
    at what temperature it is roasted, however close its meaning."""
    if question.kind not in cues.FACT_KINDS:
        return answering[0]
    return next((e for e in answering if e.cue), answering[0])


def answers_something(unit: Evidence) -> bool:
    """Not a question, not a line that introduces what follows, not a label of links or tags."""
    if unit.kind == CODE or unit.code:
        return True
    shown = plain_text(unit.text).strip()
    if is_question(shown) or shown.endswith(":"):
        return False
    labelled = _LABELLED.fullmatch(unit.text)
    return labelled is None or bool(analyzer.words(_POINTERS.sub(" ", labelled["value"])))


def _asks_for_all(text: str, question: Question) -> bool:
    """Several clauses hold the kind of thing asked for, and no word of the question stands in
    two of them to choose between them ("How long does the bread bake?" over "20 minutes with
    the lid on, then 25 minutes without the lid": both times answer; "…while the lid is on?"
    names the lid, which both clauses speak of, so one of them answers)."""
    if question.kind not in cues.FACT_KINDS:
        return False
    cued = [text[a:b] for a, b in _clauses(text) if _score(text[a:b], question)[0]]
    if len(cued) < 2:
        return False
    for key in question.keys.words:
        alone = replace(question.keys, words=(key,))
        if sum(question_overlap(clause, alone) > 0 for clause in cued) >= 2:
            return False
    return True


def _score(text: str, question: Question) -> tuple[bool, float]:
    asked = question.kind in cues.FACT_KINDS
    return (asked and cues.matches(question.kind, text, question)), question_overlap(
        text, question.keys
    )


def _clauses(text: str) -> list[tuple[int, int]]:
    """The clauses of a text as spans, trimmed of the punctuation between them."""
    spans, at = [], 0
    for match in _CLAUSE_END.finditer(text):
        spans.append((at, match.start()))
        at = match.end()
    spans.append((at, len(text)))
    return [_trimmed(text, a, b) for a, b in spans if text[a:b].strip(_TRIM)]


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in _TRIM:
        start += 1
    while end > start and text[end - 1] in _TRIM:
        end -= 1
    return start, end


def _windows(text: str) -> list[tuple[int, int]]:
    """Every run of up to MAX_CLAUSES neighbouring clauses, as a span of `text`."""
    clauses = _clauses(text)
    return [
        (clauses[i][0], clauses[j][1])
        for i in range(len(clauses))
        for j in range(i, min(i + MAX_CLAUSES, len(clauses)))
    ]


def _part(unit: Evidence, start: int, end: int) -> Evidence:
    text = unit.text[start:end]
    line_start = unit.line_start + unit.text.count("\n", 0, start)
    return replace(
        unit,
        start=unit.start + start,
        end=unit.start + end,
        text=text,
        line_start=line_start,
        line_end=line_start + text.count("\n"),
    )
