"""The evidence gate: decide from retrieval alone how well the notes can answer the question.

Three outcomes instead of a hard yes/no:
- answered: a passage holds most of the question's key words, or is close in meaning;
- weak: something related was found, but only part of it: the answer is given with a visible
  caution, the evidence sentences and the closest passages;
- absent ("not in your notes"): only when evidence is clearly absent. The reason names the
  question's key words that no passage contains, never a raw score.

Signals, each from its own retriever:
- lexical: the share of the question's IDF mass found in one passage (rare words matter most;
  function words such as "how", "die", "jak" do not count; inflected forms match by prefix);
- dense: cosine similarity of the best passage, only when the embedder knows the language.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from desktop_app.core.answer.cues import FACT_KINDS, AnswerKind
from desktop_app.core.answer.question import Question
from desktop_app.core.events import Outcome
from desktop_app.core.retrieval import analyzer

if TYPE_CHECKING:
    from desktop_app.core.passage import Evidence
    from desktop_app.core.retrieval.search import SearchResult

MIN_COVERAGE = 0.54
MIN_COSINE = 0.60
LOW_COVERAGE = 0.20  # below both of these (and no telling sentence), evidence is clearly absent
LOW_COSINE = 0.45
SENTENCE_WEAK = 0.20  # one sentence holds this share of the question's key words: not absent
SENTENCE_STRONG = 0.45  # …this share, and the kind of thing asked for: answered
CUED_COVERAGE = 0.45  # a passage this close to MIN_COVERAGE answers when a sentence holds some key
# words and the kind of thing asked for (a duration, a date, a number, a name)…
AGREED_COSINE = 0.55  # …or when the embedder, where trusted, finds it this close: two retrievers
# each just short of their bar agree
PASSAGES_CHECKED = 3  # the passages whose words decide which key words are missing


@dataclass(frozen=True)
class GateDecision:
    answerable: bool
    reason: str
    coverage: float
    cosine: float | None
    outcome: Outcome
    missing: list[str] = field(default_factory=list)  # key words of the question found nowhere

    def overridden(self) -> GateDecision:
        """The user asked for an answer although the notes seem not to cover the question."""
        return replace(
            self, answerable=True, reason="answer requested anyway", outcome=Outcome.WEAK
        )


def judge(
    question: Question, results: list[SearchResult], found: Sequence[Evidence]
) -> GateDecision:
    """The gate's decision, the one `ask`, the window and `quire search --queries` report: the
    outcome from retrieval (`classify`), moved a step by the best evidence unit (`refine`)."""
    decision = classify(question, results)
    if found:
        best = max(found, key=lambda e: e.overlap)
        decision = refine(decision, best.overlap, best.cue, question.kind)
    return decision


def by_retrieval(results: list[SearchResult]) -> GateDecision:
    """The first step: answerable or not from the two retrieval signals alone."""
    if not results:
        return GateDecision(False, "nothing in your notes matches", 0.0, None, Outcome.ABSENT)
    coverage = max(r.evidence for r in results)
    cosines = [r.cosine for r in results if r.cosine is not None]
    cosine = max(cosines) if cosines else None
    trusted = any(r.trusted_dense for r in results)
    if coverage >= MIN_COVERAGE:
        why = "passages share the question's key words"
        return GateDecision(True, why, coverage, cosine, Outcome.ANSWERED)
    if trusted and cosine is not None and cosine >= MIN_COSINE:
        return GateDecision(
            True, "passages are close in meaning", coverage, cosine, Outcome.ANSWERED
        )
    if any(_agreed(r) for r in results):
        why = "passages share most of the question's key words and are close in meaning"
        return GateDecision(True, why, coverage, cosine, Outcome.ANSWERED)
    return GateDecision(False, "no passage is relevant enough", coverage, cosine, Outcome.ABSENT)


def _agreed(r: SearchResult) -> bool:
    close = r.trusted_dense and r.cosine is not None and r.cosine >= AGREED_COSINE
    return close and r.evidence >= CUED_COVERAGE


def missing_words(question: Question, results: list[SearchResult]) -> list[str]:
    """The question's key words that none of the first passages contains: by stem or prefix,
    or as the start of a longer form a reader sees as the same word ("peče" in "pečeme"). None
    when a passage read is in another language: it says "Salz" as "salt", which no word match
    can tell."""
    checked = results[:PASSAGES_CHECKED]
    if any(r.crossed for r in checked):
        return []
    missing = question.missing({w for r in checked for w in r.matched_terms})
    if not missing:
        return missing
    words = {analyzer.fold(w) for r in checked for w in analyzer.words(r.text)}
    return [m for m in missing if not any(analyzer.begins(analyzer.fold(m), w) for w in words)]


def classify(question: Question, results: list[SearchResult]) -> GateDecision:
    """One of the three outcomes, with a reason a reader can check."""
    base = by_retrieval(results)
    missing = missing_words(question, results)
    if base.answerable:
        return GateDecision(
            True, base.reason, base.coverage, base.cosine, Outcome.ANSWERED, missing
        )
    if not results:
        why = "nothing in your notes matches any word of the question"
        return GateDecision(False, why, 0.0, None, Outcome.ABSENT, missing)
    trusted = any(r.trusted_dense for r in results)
    near = trusted and base.cosine is not None and base.cosine >= LOW_COSINE
    if base.coverage >= LOW_COVERAGE or near:
        why = "your notes match only part of the question"
        if missing:
            why += ": nothing about " + ", ".join(f"“{w}”" for w in missing[:4])
        return GateDecision(True, why, base.coverage, base.cosine, Outcome.WEAK, missing)
    why = "no passage is about what the question asks"
    if missing:
        why = "no passage mentions " + ", ".join(f"“{w}”" for w in missing[:4])
    return GateDecision(False, why, base.coverage, base.cosine, Outcome.ABSENT, missing)


def refine(
    decision: GateDecision, best_overlap: float, cue: bool, kind: AnswerKind
) -> GateDecision:
    """Let the best evidence sentence move a decision one step: a sentence holding much of the
    question (and, for how long / how many / when / who / where, the kind of thing asked for)
    answers it; one holding part of it makes a refusal a cautioned answer."""
    typed = kind not in FACT_KINDS or cue
    if decision.outcome == Outcome.WEAK and best_overlap >= SENTENCE_STRONG and typed:
        why = "a sentence of your notes holds the question's key words"
        return GateDecision(
            True, why, decision.coverage, decision.cosine, Outcome.ANSWERED, decision.missing
        )
    cued = kind in FACT_KINDS and cue and best_overlap >= SENTENCE_WEAK
    if decision.outcome == Outcome.WEAK and cued and decision.coverage >= CUED_COVERAGE:
        why = "a passage holds most of the question's key words and what it asks for"
        return GateDecision(
            True, why, decision.coverage, decision.cosine, Outcome.ANSWERED, decision.missing
        )
    floor = SENTENCE_WEAK / 2 if cue else SENTENCE_WEAK  # it holds what was asked: a number…
    if decision.outcome == Outcome.ABSENT and best_overlap >= floor:
        why = "only one sentence matches part of the question"
        return GateDecision(
            True, why, decision.coverage, decision.cosine, Outcome.WEAK, decision.missing
        )
    return decision
