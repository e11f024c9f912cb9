"""Answer a question from the notes: retrieve, gate, assemble, stream, check citations.

`answer_events` is a generator of plain dicts, one per event, shared by `quire ask --json`
and the window: `sources` (with the gate decision), `evidence` (the verbatim sentences that best
answer, before any token), `token`…, then `done` (or `error`): the answer with citations added
where the notes back a sentence, and the figures found in no source.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from desktop_app.core.answer import attribution, citations, cues, evidence, gate, grounded
from desktop_app.core.answer.gguf import ModelFileError
from desktop_app.core.answer.llm import Generation, LocalModel
from desktop_app.core.answer.prompt import Source, assemble, build_sources, check_question
from desktop_app.core.cancel import Cancelled, CancelToken
from desktop_app.core.retrieval import analyzer, lexical
from desktop_app.core.text import clean_text

RELATIVE_FLOOR = 0.6
NOT_IN_NOTES = "Your notes don't seem to cover this. The closest passages are listed below."
EMPTY_QUESTION = "the question is empty: type what you want to know"
EMPTY_INDEX = "nothing is indexed yet: add a notes folder first (`quire index FOLDER`)"
USE_EMBEDDER_FOR_EVIDENCE = False  # measured: slower, and no better (tests/bench/bench_answers.py)
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
    """Events: `sources`, `evidence` (before any token), `token`…, `done` (or `error`).

    `override_gate`: the user asked for an answer although the notes seem not to cover it (the
    answer is still grounded in, and checked against, the closest passages)."""
    if not question.strip():
        yield {"type": "error", "message": EMPTY_QUESTION}
        return
    started = time.perf_counter()
    question = clean_text(question)
    try:  # a question the model cannot even read is refused before any work is done
        model = model or service.chat_model()
        check_question(question, _counter(model), model.n_ctx, max_tokens)
    except (ModelFileError, ValueError) as exc:
        yield {"type": "error", "message": str(exc)}
        return
    results = service.search(retrieval_query(question, history), top_k=sources_wanted)
    if not results and _index_is_empty(service):
        yield {"type": "error", "message": EMPTY_INDEX}
        return
    sources = build_sources(relevant(results))
    language = service.searcher.query_language(question)
    decision, found = decide(service, question, language, results, sources)
    if override_gate and results and not decision.answerable:
        decision = gate.GateDecision(True, "answer requested anyway", decision.coverage,
                                     decision.cosine, gate.WEAK, decision.missing)  # fmt: skip
    retrieval_seconds = time.perf_counter() - started
    if not decision.answerable:
        yield from _refusal(decision, sources, retrieval_seconds)
        return
    sources, found = grounded.choose_sources(sources, found)
    try:
        prompt = assemble(
            question, grounded.excerpts(sources, found),
            [(t.question, t.answer) for t in history], _counter(model), model.n_ctx, max_tokens,
            grounded.instructions(language), grounded.key_sentences(found),
        )  # fmt: skip
    except ValueError as exc:
        yield {"type": "error", "message": str(exc)}
        return
    kept = {s.number for s in prompt.sources}
    sources = [s for s in sources if s.number in kept]
    found = [e for e in found if e.number in kept]
    evidence_seconds = time.perf_counter() - started
    yield {"type": "sources", "answerable": True, "outcome": decision.outcome,
           "gate": decision.to_json(), "sources": [s.to_json() for s in sources],
           "dropped_sources": prompt.dropped_sources, "dropped_turns": prompt.dropped_turns,
           "notices": list(model.notices)}  # fmt: skip
    yield {"type": "evidence", "outcome": decision.outcome, "caution": _caution(decision),
           "evidence": [e.to_json() for e in found],
           "seconds": round(evidence_seconds, 3)}  # fmt: skip
    answer = _AnswerStream(model, prompt, max_tokens, cancel, temperature)
    yield from answer
    done = _checked_done(answer, sources, language, retrieval_seconds)
    done.update(outcome=decision.outcome, caution=_caution(decision))
    done["timings"]["evidence_seconds"] = round(evidence_seconds, 3)
    yield done


class _AnswerStream:
    """Token events of one generation; afterwards `.text` and `.stats` hold what was streamed."""

    def __init__(self, model: Any, prompt: Any, max_tokens: int, cancel: CancelToken,
                 temperature: float) -> None:  # fmt: skip
        self.model, self.prompt, self.max_tokens = model, prompt, max_tokens
        self.cancel, self.temperature = cancel, temperature
        self.stats = Generation()
        self.text = ""

    def __iter__(self) -> Iterator[dict[str, Any]]:
        stats, stream = self.stats, citations.CitationStream(len(self.prompt.sources))
        pieces = self.model.stream(self.model.render(self.prompt.messages), self.max_tokens,
                                   self.cancel, self.temperature, stats)  # fmt: skip
        try:
            for piece in until_markers(pieces):
                stream.feed(piece)
                self.text = stream.text
                yield {"type": "token", "text": piece}
            if stats.stopped == "length" and stats.completion_tokens < self.max_tokens:
                stats.stopped = "marker"
            pieces.close()  # ends generation now and releases the model for the next question
        except Cancelled:
            stats.stopped = "cancelled"


def _checked_done(
    answer: _AnswerStream, sources: list[Source], language: str, retrieval_seconds: float
) -> dict[str, Any]:
    """The `done` event: the answer with citations added where the notes back a sentence, the
    citation report, and the figures found in no source."""
    texts = {s.number: s.text for s in sources}
    checked = attribution.attribute(answer.text.strip(), texts, language)
    report = citations.check(checked.answer, texts, language)
    done = _done(checked.answer, True, report, answer.stats, retrieval_seconds)
    done.update(checked.to_json(), generated=answer.text)
    return done


def decide(
    service: Any, question: str, language: str, results: list[Any], sources: list[Source]
) -> tuple[gate.GateDecision, list[evidence.Evidence]]:
    """The outcome (answered / weak evidence / not in your notes) and the evidence sentences."""
    decision = gate.classify(question, results)
    found = evidence.select(question, language, results, sources, _idf(service),
                            _similarity(service, language))  # fmt: skip
    if found:
        best = max(found, key=lambda e: e.overlap)
        kind = cues.question_kind(question)
        decision = gate.refine(decision, best.overlap, best.cue, kind)
    return decision, found


def _refusal(
    decision: gate.GateDecision, sources: list[Source], retrieval_seconds: float
) -> Iterator[dict[str, Any]]:
    closest = [s.to_json() for s in sources[:5]]
    yield {"type": "sources", "answerable": False, "outcome": gate.ABSENT,
           "gate": decision.to_json(), "sources": closest}  # fmt: skip
    yield {"type": "evidence", "outcome": gate.ABSENT, "caution": "", "evidence": [],
           "seconds": round(retrieval_seconds, 3)}  # fmt: skip
    message = f"{NOT_IN_NOTES} (Why: {decision.reason}.)"
    yield {"type": "token", "text": message}
    done = _done(message, False, citations.CitationReport(), Generation(), retrieval_seconds)
    done.update(outcome=gate.ABSENT, reason=decision.reason, unsupported=[], added_citations=[],
                marked_answer=message, caution="")  # fmt: skip
    yield done


def _caution(decision: gate.GateDecision) -> str:
    if decision.outcome != gate.WEAK:
        return ""
    return f"Weak evidence: {decision.reason}. Check the quoted sentences and passages."


def _index_is_empty(service: Any) -> bool:
    try:
        row = service.database.reader.execute("SELECT 1 FROM chunks LIMIT 1").fetchone()
    except Exception:  # a fake service in tests, or no database: not our question to answer
        return False
    return row is None


def _idf(service: Any) -> Callable[[list[str]], dict[str, float]] | None:
    """IDF of terms (stems, prefixes) over the whole index (the same weights the gate uses)."""
    reader = getattr(getattr(service, "database", None), "reader", None)
    if reader is None:
        return None

    def weights(terms: list[str]) -> dict[str, float]:
        total = lexical._chunk_count(reader)
        df = lexical._doc_freqs(reader, set(terms))
        return {t: lexical.idf(df.get(t, 0), total) for t in terms}

    return weights


def _similarity(service: Any, language: str) -> Callable[[str, list[str]], list[float]] | None:
    """The embedder's cosine of the question with each sentence, where it knows the language."""
    if not USE_EMBEDDER_FOR_EVIDENCE:
        return None
    searcher = getattr(service, "searcher", None)
    embedder = getattr(searcher, "embedder", None)
    if embedder is None or not searcher.vectors.size:  # keyword-only index: the model sleeps
        return None
    if embedder.languages is not None and language not in embedder.languages:
        return None

    def cosines(question: str, texts: list[str]) -> list[float]:
        vectors = embedder.encode([question, *texts])
        return [float(v) for v in vectors[1:] @ vectors[0]]

    return cosines


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
