"""Is a generated answer fit to read? Checked beside the proof checks, before it is shown.

A draft fails when it holds words that are neither words of the answer's language (by
`wordfreq`'s list for that language, made for exactly this) nor words of the sources or the
question; when it loops; when it wears a label ("The answer is:", "In German:") or cites a
source that does not exist; when it is in another language than the question; or when it gives
a figure of the kind asked for that the answer line, the part of the notes that matches the
question's qualifiers, does not hold ("230 °C" from the "lid off" clause for "with the lid on"),
or says nothing of what that line adds to the question; or when it never came to an end.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from desktop_app.core.answer import cues, figures, grammar
from desktop_app.core.answer.citations import numbers_in
from desktop_app.core.answer.evidence import question_overlap
from desktop_app.core.answer.grounded import language_name
from desktop_app.core.answer.question import Question
from desktop_app.core.answer.support import CITATION
from desktop_app.core.passage import Evidence
from desktop_app.core.retrieval import analyzer, languages
from desktop_app.core.retrieval.languages import wordlists

MIN_WORD = 3  # shorter words (and any with a digit) are not judged
LANGUAGE_WORDS = 6  # a draft this long (in words) is long enough to tell its language
# A label: a few words and a colon where a sentence starts; or the scaffold small models echo.
_LABEL = re.compile(r"(?:^|(?<=[.!?\]]\s))\s*(?:\w+\s){0,2}\w+:\s")
_SCAFFOLD = re.compile(
    r"\b(?:the answer (?:to (?:this|the|your) question )?is|to (?:answer|solve) this|answer:"
    r"|question:|in (?:english|german|czech):|checked:"
    # talk about the sources instead of what they say ("The key sentence from the source is")
    r"|(?:key|relevant) (?:sentences?|passages?|quotes?)\b"
    r"|\bthe (?:sources?|passages?) (?:says?|states?|is)\b"
    r"|\b(?:stated|mentioned|said|given|written) in (?:the )?(?:sources?|passages?)\b)",
    re.I,
)


@dataclass(frozen=True)
class Written:
    """A draft as generation left it: its text, whether it ended on its own, how many sources
    it was given to cite, how long the grammar let a sentence run, and whether its model keeps
    to a format (`profile.ModelProfile.follows_format`)."""

    text: str
    finished: bool
    sources: int
    bound: int = grammar.SENTENCE_CHARS
    keeps_to_format: bool = True


def problems(
    written: Written, question: Question, sources: Iterable[str], evidence: list[Evidence],
    line: Evidence | None,
) -> list[str]:  # fmt: skip
    """What makes the draft unfit to show (empty: none), each said in a few words."""
    draft, unfit = written.text, []
    if not written.finished or _cut_off(draft, written.bound):
        unfit.append("it did not come to an end")
    if _broken(draft):
        unfit.append("it breaks into pieces")
    invented = made_up_words(draft, question.language, [question.text, *sources])
    if invented:
        named = ", ".join(f"“{w}”" for w in invented[:4])
        unfit.append(f"words that are not {language_name(question.language)}: {named}")
    if grammar.repeats(draft.split()):
        unfit.append("it repeats itself")
    if _LABEL.search(draft) or _SCAFFOLD.search(draft):
        unfit.append("it wears a label instead of answering")
    if any(n < 1 or n > written.sources for n in numbers_in(draft)):
        unfit.append("it cites a source that does not exist")
    if _other_language(draft, question.language):
        unfit.append("it is not in the question's language")
    if line is not None and not written.keeps_to_format and _leaves_out(draft, question, line):
        unfit.append("it leaves out what your notes say")
    if line is not None and _figure_elsewhere(draft, question, line, evidence):
        unfit.append("its figure is not the one the notes give for what was asked")
    elif evidence and not any(_says_what(unit, draft, question) for unit in evidence):
        unfit.append("it says nothing the quoted sentences of your notes say")
    return unfit


def made_up_words(text: str, language: str, known: Iterable[str]) -> list[str]:
    """Words of `text` that are not words of `language` and that no `known` text holds."""
    lookup = wordlists.frequency(language)
    if lookup is None:  # no word list for this language: nothing can be judged
        return []
    held = {w for t in known for w in analyzer.words(t)}
    held |= {analyzer.fold(w) for w in held}
    out = []
    for word in dict.fromkeys(analyzer.words(CITATION.sub(" ", text))):
        if len(word) < MIN_WORD or any(c.isdigit() for c in word):
            continue
        if word in held or analyzer.fold(word) in held or lookup(word) > 0:
            continue
        out.append(word)
    return out


_DANGLING = re.compile(r"[,;(\u2013\u2014-]\.?$")  # a sentence cannot end on these


def _cut_off(draft: str, bound: int) -> bool:
    """A sentence ran to the grammar's length bound, stops on a comma, a dash or an open
    bracket, or leaves a bracket open: its `[n]` came mid-thought (near the bound, the grammar
    leaves a model no word that still fits, only the citation)."""
    for part in CITATION.sub("\0", draft).split("\0"):
        text = part.strip()
        if len(text) >= bound or (analyzer.words(text) and _DANGLING.search(text)):
            return True
        if text.count("(") > text.count(")"):  # "Word documents (." : a bracket left open
            return True
    return False


_LETTERS = re.compile(r"[^\W\d_]{2,}")


def _broken(draft: str) -> bool:
    """What follows a citation is a piece of no word ("… 11 [1]. 11 [1]. 2024 …") or goes on in
    lower case ("Porada 30 [1]. října se koná …"): a date or a phrase cut apart by citations."""
    for part in CITATION.split(draft)[2::2]:  # the texts after each citation
        text = part.strip(" .,;")
        if text and (not _LETTERS.search(text) or text[0].islower()):
            return True
    return False


def _other_language(draft: str, language: str) -> bool:
    plain = CITATION.sub(" ", draft)
    if len(analyzer.words(plain)) < LANGUAGE_WORDS:
        return False
    return analyzer.detect_language(plain) != language


def _says_what(unit: Evidence, draft: str, question: Question) -> bool:
    """The draft holds something an evidence unit adds to the question (a word by its stem or
    prefix, or a figure): an answer that shares none of it answers from somewhere else."""
    added, figures_added = _adds(unit.text, question)
    if not added:
        return True
    said = _terms(CITATION.sub(" ", draft), question.language)
    return bool(added & said) or bool(figures_added & figures.numbers(draft))


KEPT_SHARE = 0.5  # of what the answer line adds to the question, a rewording keeps this much


def _leaves_out(draft: str, question: Question, line: Evidence) -> bool:
    """For a model that does not keep to a format (the bundled one), a draft is at most the
    answer line in other words: it must give every figure the line adds to the question and
    most of its words, or it gives way (such a model rewords the answer away as often as not)."""
    added, figures_added = _adds(line.text, question)
    plain = CITATION.sub(" ", draft)
    if figures_added - figures.numbers(plain):
        return True
    said = _terms(plain, question.language)
    return bool(added) and len(added & said) < KEPT_SHARE * len(added)


def _adds(text: str, question: Question) -> tuple[set[str], set[float]]:
    """The words (stems and prefixes) and figures of `text` that the question does not hold."""
    words = _terms(text, question.language) - _terms(question.text, question.language)
    return words, set(figures.numbers(text) - question.numbers)


def _terms(text: str, language: str) -> set[str]:
    words = languages.key_words(analyzer.words(text))
    return {*analyzer.stems(words, language), *analyzer.prefixes(words)}


def _figure_elsewhere(
    draft: str, question: Question, line: Evidence, evidence: list[Evidence]
) -> bool:
    """The question asks for a figure, the answer line gives one, and the draft gives another:
    one that no quoted unit holding the question's key words as fully as the line's own unit
    gives (another clause of the line's unit never does: the line is the clause that answers)."""
    if question.kind not in cues.FACT_KINDS or not line.cue:
        return False
    given = figures.numbers(CITATION.sub(" ", draft)) - question.numbers
    given -= figures.numbers(line.text)
    if not given:
        return False
    own = next(
        (e for e in evidence if e.path == line.path and e.start <= line.start <= line.end <= e.end),
        line,
    )
    enough = question_overlap(own.text, question.keys)
    backed: set[float] = set()
    for unit in evidence:
        if unit is not own and question_overlap(unit.text, question.keys) >= enough:
            backed |= figures.numbers(unit.text)
    return bool(given - backed)
