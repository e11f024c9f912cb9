"""The gate's one decision on a question, the same for `quire ask`, the window and
`quire search --queries`: the question read once, the evidence units selected, the outcome."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from desktop_app.core.answer import evidence, gate
from desktop_app.core.answer.evidence import Cosines, Following
from desktop_app.core.answer.grounded import PastTurn
from desktop_app.core.answer.prompt import build_sources
from desktop_app.core.answer.question import Question, Weights
from desktop_app.core.passage import Evidence, Passage
from desktop_app.core.retrieval.search import SearchResult

RELATIVE_FLOOR = 0.6


@dataclass(frozen=True)
class Retrieval:
    """What answering needs of the index, as plain callables (the facade builds it)."""

    search: Callable[[str, int], list[SearchResult]]  # query, top_k -> ranked passages
    language: Callable[[str], str]  # the language a question is read in
    is_empty: Callable[[], bool] = lambda: False  # nothing indexed at all
    idf: Weights | None = None  # term weights over the whole index (the gate's)
    similarity: Callable[[str], Cosines | None] = lambda _language: None
    crossed_raise: float = 0.0  # added to a cosine with a passage in another language
    following: Following = lambda _passage: None  # the passage after one in its note

    def read(self, question: str, history: Sequence[PastTurn] = ()) -> Question:
        return Question.read(question, self.language(question), self.idf, bool(history))


def retrieval_query(question: Question, history: Sequence[PastTurn]) -> str:
    """Follow-ups retrieve with the previous question in mind, without another model call."""
    if question.follow_up and history:
        return f"{history[-1].question} {question.text}"
    return question.text


def relevant(results: list[SearchResult], floor: float = RELATIVE_FLOOR) -> list[SearchResult]:
    """The wide net's last filter: passages far below the best one only distract a small model."""
    if not results:
        return []
    best = results[0].score
    return [r for r in results if r.score >= floor * best]


class Decided(NamedTuple):
    gate: gate.GateDecision  # answered / weak evidence / not in your notes
    evidence: list[Evidence]  # the units shown first
    sources: list[Passage]  # the numbered passages the prompt quotes


def decide(retrieval: Retrieval, question: Question, results: list[SearchResult]) -> Decided:
    """The outcome, the evidence units and the numbered sources of the searched `results`."""
    read = evidence.read_on(question, results, retrieval.following)
    sources = build_sources(relevant(read))
    similarity = retrieval.similarity(question.language)
    found = evidence.select(
        question, read, sources, retrieval.idf, similarity, retrieval.crossed_raise
    )
    # the gate judges what the search found; a passage read on has no ranking signals of its own
    return Decided(gate.judge(question, results, found), found, sources)


def gate_decision(
    retrieval: Retrieval, question: str, results: list[SearchResult]
) -> gate.GateDecision:
    """`decide` for a question searched on its own (no conversation before it)."""
    return decide(retrieval, retrieval.read(question), results).gate
