"""Answer a question from the notes: retrieve, gate, assemble, stream, check citations.

`answer_events` is a generator of plain dicts, one per event, shared by `quire ask --json`
and the window: `sources` (with the gate decision), `token`…, then `done` (or `error`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from desktop_app.core.answer import citations, gate
from desktop_app.core.answer.gguf import ModelFileError
from desktop_app.core.answer.llm import Generation, LocalModel
from desktop_app.core.answer.prompt import Source, assemble, build_sources, check_question
from desktop_app.core.cancel import Cancelled, CancelToken
from desktop_app.core.retrieval import analyzer
from desktop_app.core.text import clean_text

RELATIVE_FLOOR = 0.6
NOT_IN_NOTES = "Your notes don't seem to cover this. The closest passages are listed below."
# Opening words that make a question lean on the previous turn ("and how do I undo it?").
_FOLLOW_UP_OPENERS = {
    "and",
    "also",
    "then",
    "so",
    "but",
    "what about",
    "a",
    "i",
    "tak",
    "und",
    "dann",
}
_SHORT_QUESTION_WORDS = 6


# A model that starts writing these has left its answer and is inventing the next prompt.
STOP_MARKERS = ("\nQuestion:", "Question: ", "<source", "Sources from my notes")


def until_markers(pieces: Iterator[str], markers: tuple[str, ...] = STOP_MARKERS) -> Iterator[str]:
    """Stream pieces up to the first marker; text that may start a marker is held back."""
    held = ""
    for piece in pieces:
        held += piece
        cut = min((i for m in markers if (i := held.find(m)) >= 0), default=-1)
        if cut >= 0:
            if held[:cut]:
                yield held[:cut]
            return
        keep = max((k for m in markers for k in range(1, len(m)) if held.endswith(m[:k])),
                   default=0)  # fmt: skip
        if len(held) > keep:
            yield held[: len(held) - keep]
            held = held[len(held) - keep :]
    if held:
        yield held


@dataclass
class Turn:
    question: str
    answer: str
    sources: list[Source] = field(default_factory=list)


def retrieval_query(question: str, history: list[Turn]) -> str:
    """Follow-ups retrieve with the previous question in mind, without another model call."""
    if not history:
        return question
    words = analyzer.words(question)
    if len(words) <= _SHORT_QUESTION_WORDS or (words and words[0] in _FOLLOW_UP_OPENERS):
        return f"{history[-1].question} {question}"
    return question


def relevant(results: list[Any], floor: float = RELATIVE_FLOOR) -> list[Any]:
    """The wide net's last filter: passages far below the best one only distract a small model."""
    if not results:
        return []
    best = results[0].score
    return [r for r in results if r.score >= floor * best]


def answer_events(
    service: Any,
    question: str,
    history: list[Turn],
    model: LocalModel | None,
    cancel: CancelToken,
    max_tokens: int = 384,
    temperature: float = 0.2,
    sources_wanted: int = 8,
    override_gate: bool = False,
) -> Iterator[dict[str, Any]]:
    """`override_gate`: the user asked for an answer although the gate found too little (the
    answer is still grounded in, and checked against, the closest passages)."""
    started = time.perf_counter()
    question = clean_text(question)
    try:  # a question the model cannot even read is refused before any work is done
        model = model or service.chat_model()
        check_question(question, _counter(model), model.n_ctx, max_tokens)
    except (ModelFileError, ValueError) as exc:
        yield {"type": "error", "message": str(exc)}
        return
    results = service.search(retrieval_query(question, history), top_k=sources_wanted)
    decision = gate.decide(results)
    if override_gate and results and not decision.answerable:
        decision = gate.GateDecision(True, "answer requested anyway", decision.coverage,
                                     decision.cosine)  # fmt: skip
    sources = build_sources(relevant(results))
    retrieval_seconds = time.perf_counter() - started
    if not decision.answerable:
        yield {"type": "sources", "answerable": False, "gate": decision.to_json(),
               "sources": [s.to_json() for s in sources[:5]]}  # fmt: skip
        yield {"type": "token", "text": NOT_IN_NOTES}
        yield _done(
            NOT_IN_NOTES, False, citations.CitationReport(), Generation(), retrieval_seconds
        )
        return
    try:
        prompt = assemble(
            question, sources, [(t.question, t.answer) for t in history], _counter(model),
            model.n_ctx, max_tokens,
        )  # fmt: skip
    except ValueError as exc:
        yield {"type": "error", "message": str(exc)}
        return
    yield {"type": "sources", "answerable": True, "gate": decision.to_json(),
           "sources": [s.to_json() for s in prompt.sources],
           "dropped_sources": prompt.dropped_sources, "dropped_turns": prompt.dropped_turns,
           "notices": list(model.notices)}  # fmt: skip
    stats = Generation()
    stream = citations.CitationStream(len(prompt.sources))
    pieces = model.stream(model.render(prompt.messages), max_tokens, cancel, temperature, stats)
    try:
        for piece in until_markers(pieces):
            stream.feed(piece)
            yield {"type": "token", "text": piece}
        if stats.stopped == "length" and stats.completion_tokens < max_tokens:
            stats.stopped = "marker"
        pieces.close()  # ends generation now and releases the model for the next question
    except Cancelled:
        stats.stopped = "cancelled"
    language = service.searcher.query_language(question)
    report = citations.check(stream.text, {s.number: s.text for s in prompt.sources}, language)
    yield _done(stream.text, True, report, stats, retrieval_seconds)


def _counter(model: Any) -> Callable[[list[dict[str, str]]], int]:
    return lambda messages: len(model.tokenize(model.render(messages)))


def _done(
    answer: str, answerable: bool, report: citations.CitationReport, stats: Generation,
    retrieval_seconds: float,
) -> dict[str, Any]:  # fmt: skip
    return {
        "type": "done",
        "answer": answer,
        "answerable": answerable,
        "citations": {
            "valid": report.valid,
            "invalid": report.invalid,
            "sentences": report.sentences,
        },
        "stopped": stats.stopped,
        "timings": {
            "retrieval_seconds": round(retrieval_seconds, 3),
            "prompt_tokens": stats.prompt_tokens,
            "completion_tokens": stats.completion_tokens,
            "first_token_seconds": None
            if stats.first_token_seconds is None
            else round(stats.first_token_seconds, 3),
            "tokens_per_second": round(stats.tokens_per_second, 1),
        },
    }
