"""Answer a question from the notes: retrieve, gate, assemble, stream, check citations.

`answer_events` is a generator of typed events (desktop_app.core.events), shared by
`quire ask --json` and the window: `SourcesFound` (with the gate's verdict), `EvidenceShown`
(the verbatim sentences that best answer, before any token), `Token`…, then `Done` (or
`Error`): the answer with citations added where the notes back a sentence, and the figures
found in no source.

It is given what it needs (`Retrieval`: a search callable, the query language, the index's term
weights) and a chat model; it never reaches back into the facade that calls it. The question is
read once (`Question`) and that reading is what every step after it uses. The events' typed
parts (the gate's verdict, the citation report, a replaced draft, the timings) and the events
of a refusal are built at the end of this module.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

from desktop_app.core.answer import (
    answer_line,
    attribution,
    citations,
    cues,
    evidence,
    gate,
    grammar,
    grounded,
    readability,
    verbatim,
)
from desktop_app.core.answer.decision import Retrieval, decide, retrieval_query
from desktop_app.core.answer.evidence import Cosines
from desktop_app.core.answer.gguf import ModelFileError
from desktop_app.core.answer.grounded import PastTurn, language_name
from desktop_app.core.answer.llm import Generation
from desktop_app.core.answer.profile import ModelProfile
from desktop_app.core.answer.prompt import Prompt, assemble, check_question
from desktop_app.core.answer.question import Question, Weights
from desktop_app.core.answer.verbatim import NOTES_SAY
from desktop_app.core.cancel import Cancelled, CancelToken
from desktop_app.core.events import (
    AnswerEvent,
    Citations,
    CitedSentence,
    Done,
    Draft,
    DraftReplaced,
    Error,
    EvidenceShown,
    GateVerdict,
    Outcome,
    SourcesFound,
    Timings,
    Token,
    Unfound,
)
from desktop_app.core.passage import Evidence, Passage
from desktop_app.core.retrieval import lexical
from desktop_app.core.retrieval.embedder import TextEmbedder, meaning_model, similarity
from desktop_app.core.retrieval.search import Searcher
from desktop_app.core.store import chunks
from desktop_app.core.store.db import Database
from desktop_app.core.text import clean_text

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "answer_events",
    "crossed_raise",
    "embedder_similarity",
    "index_is_empty",
    "index_weights",
]
EMPTY_QUESTION = "the question is empty: type what you want to know"
EMPTY_INDEX = "nothing is indexed yet: add a notes folder first (`quire index FOLDER`)"
USE_EMBEDDER_FOR_EVIDENCE = True  # its cosines rank evidence better (docs/answers.md)
FACT_TOKENS, OTHER_TOKENS, STEPS_TOKENS = 64, 96, 160  # an answer's length bound by its kind
# A model that starts writing these has left its answer and is inventing the next prompt.
STOP_MARKERS = ("\nQuestion:", "Question: ", "<source", "Sources from my notes")

NOT_GENERATED = "not_generated"  # `Done.stopped` when the model was not asked to write
NO_LINE = "No single sentence of your notes answers this: read the passages below."
NOT_IN_NOTES = "Your notes don't seem to cover this. The closest passages are listed below."
REFUSAL_SOURCES = 5  # the closest passages a refusal lists


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
        keep = max(
            (k for m in markers for k in range(1, len(m)) if held.endswith(m[:k])), default=0
        )
        if len(held) > keep:
            yield held[: len(held) - keep]
            held = held[len(held) - keep :]
    if held:
        yield held


class ChatModel(Protocol):
    """What answering needs of a chat model (llm.LocalModel; a fake one in tests)."""

    n_ctx: int
    notices: list[str]
    profile: ModelProfile

    def render(self, messages: list[dict[str, str]]) -> str: ...

    def tokenize(self, text: str) -> list[int]: ...

    def stream(
        self,
        prompt: str,
        max_tokens: int,
        cancel: CancelToken,
        temperature: float = 0.2,
        stats: Generation | None = None,
        grammar: str | None = None,
    ) -> Generator[str, None, None]: ...


def answer_events(
    retrieval: Retrieval,
    question: str,
    history: Sequence[PastTurn],
    model: ChatModel,
    cancel: CancelToken,
    max_tokens: int = 384,
    temperature: float = 0.2,
    sources_wanted: int = 8,
    override_gate: bool = False,
) -> Iterator[AnswerEvent]:
    """Events: `SourcesFound`, `EvidenceShown` (before any token), `Token`…, `Done` (or `Error`).

    `override_gate`: the user asked for an answer although the notes seem not to cover it (the
    answer is still grounded in, and checked against, the closest passages)."""
    started = time.perf_counter()
    max_tokens = min(max_tokens, _budget(question))
    question, problem = _readable(question, model, max_tokens)
    if problem is not None:
        yield Error(problem)
        return
    asked = retrieval.read(question, history)
    results = retrieval.search(retrieval_query(asked, history), sources_wanted)
    if not results and retrieval.is_empty():
        yield Error(EMPTY_INDEX)
        return
    decision, found, sources = decide(retrieval, asked, results)
    if override_gate and results and not decision.answerable:
        decision = decision.overridden()
    retrieval_seconds = time.perf_counter() - started
    if not decision.answerable:
        yield from refusal(decision, sources, retrieval_seconds)
        return
    try:
        prompt, sources, found = _fit(asked, history, model, max_tokens, sources, found)
    except ValueError as exc:
        yield Error(str(exc))
        return
    evidence_seconds = round(time.perf_counter() - started, 3)
    yield answer_sources(decision, sources, prompt, model.notices)
    yield EvidenceShown(verdict(decision).outcome, _caution(decision), found, evidence_seconds)
    line = answer_line.compose(found, asked)
    timing = (retrieval_seconds, evidence_seconds)
    if not model.profile.writes(asked.language):
        yield composed_done(line, sources, asked, timing, decision, _declined(model, asked))
        return
    sentences, bound = _shape(asked, found, model.profile)
    answer = _AnswerStream(model, prompt, max_tokens, cancel, temperature, sentences, bound)
    yield from answer
    yield _checked_done(answer, sources, found, asked, timing, decision, line)


def _shape(
    question: Question, found: list[evidence.Evidence], profile: ModelProfile
) -> tuple[int, int]:
    """How many sentences an answer may have (a fact: one), and how long each may run."""
    sentences = 1 if question.kind in cues.FACT_KINDS else grammar.MAX_SENTENCES
    return sentences, grammar.sentence_bound((e.text for e in found), profile.follows_format)


def _budget(question: str) -> int:
    """Tokens an answer may take: a fact is a sentence, a "how do I" may need a command more."""
    kind = cues.question_kind(question)
    if kind in cues.FACT_KINDS:
        return FACT_TOKENS
    return STEPS_TOKENS if kind == cues.AnswerKind.PROCEDURE else OTHER_TOKENS


def _declined(model: ChatModel, question: Question) -> str:
    """Why the model writes nothing for this question (its language is not one it writes)."""
    name = language_name(question.language)
    return (
        f"The chat model ({model.profile.family}) does not write {name}, so the answer is "
        "your notes' own words."
    )


def _readable(question: str, model: ChatModel, max_tokens: int) -> tuple[str, str | None]:
    """The question cleaned, and why it cannot be answered at all (empty, too long for the
    model): such a question is refused before any work is done."""
    if not question.strip():
        return question, EMPTY_QUESTION
    question = clean_text(question)
    try:
        check_question(question, _counter(model), model.n_ctx, max_tokens)
    except (ModelFileError, ValueError) as exc:
        return question, str(exc)
    return question, None


def _fit(
    question: Question,
    history: Sequence[PastTurn],
    model: ChatModel,
    max_tokens: int,
    sources: list[Passage],
    found: list[evidence.Evidence],
) -> tuple[Prompt, list[Passage], list[evidence.Evidence]]:
    """The compact prompt, and the sources and evidence that fit in it (numbered as in it);
    raises ValueError (QuestionTooLong) when not even the question fits."""
    sources, found = grounded.choose_sources(sources, found)
    prompt = assemble(
        question.text,
        grounded.excerpts(sources, found),
        grounded.past_turns(history),
        _counter(model),
        model.n_ctx,
        max_tokens,
        grounded.instructions(question.language),
        grounded.key_sentences(found),
    )
    kept = {s.number for s in prompt.sources}
    return prompt, [s for s in sources if s.number in kept], [e for e in found if e.number in kept]


class _AnswerStream:
    """Token events of one generation; afterwards `.text` and `.stats` hold what was streamed."""

    def __init__(
        self,
        model: ChatModel,
        prompt: Prompt,
        max_tokens: int,
        cancel: CancelToken,
        temperature: float,
        sentences: int = grammar.MAX_SENTENCES,
        bound: int = grammar.SENTENCE_CHARS,
    ) -> None:
        self.model, self.prompt, self.max_tokens = model, prompt, max_tokens
        self.cancel, self.temperature = cancel, temperature
        self.sentences, self.bound = sentences, bound
        self.stats = Generation()
        self.text = ""

    def __iter__(self) -> Iterator[Token]:
        stats = self.stats
        rendered = self.model.render(self.prompt.messages)
        shape = None
        if self.prompt.sources:
            shape = grammar.answer_grammar(len(self.prompt.sources), self.sentences, self.bound)
        pieces = self.model.stream(
            rendered, self.max_tokens, self.cancel, self.temperature, stats, grammar=shape
        )
        try:
            for piece in until_markers(pieces):
                self.text += piece
                yield Token(piece)
                if grammar.repeats(self.text.split()):
                    stats.stopped = "loop"
                    break
            if stats.stopped == "length" and stats.completion_tokens < self.max_tokens:
                stats.stopped = "marker"
            pieces.close()  # ends generation now and releases the model for the next question
        except Cancelled:
            stats.stopped = "cancelled"


def _replaced_because(
    checked: attribution.Checked,
    report: citations.CitationReport,
    found: list[evidence.Evidence],
    question: Question,
    texts: dict[int, str],
) -> DraftReplaced | None:
    """Why the best evidence sentence should replace the model's answer (None if it should not).

    An answer that quotes "your notes" with words no note holds speaks in a voice that is not
    its own: whatever else it says, it gives way. The tiny model also often copies a sentence of
    a lower source that the notes do back but that is not about the question: backed only by
    sources other than the best evidence's, and holding less of the question's key words than
    that evidence (counting only the key words its sources hold too: a copy that echoes the
    question holds the question's words, the passage it copies does not), it gives way too."""
    if not found:
        return None
    if any(_forged_quote(f) for f in checked.unsupported):
        return DraftReplaced.FORGED
    backed = report.backed_sentences
    if not backed:
        return DraftReplaced.UNBACKED
    best = found[0]
    if any(best.number in s.cites for s in backed):
        return None
    if all(_backed_overlap(s, texts, question) < best.overlap for s in backed):
        return DraftReplaced.OFF_QUESTION
    return None


def _backed_overlap(sentence: CitedSentence, texts: dict[int, str], question: Question) -> float:
    cited = "\n".join(texts[n] for n in sentence.cites)  # valid numbers only (check())
    return evidence.question_overlap(sentence.text, question.keys, cited)


def _forged_quote(unsupported: Unfound) -> bool:
    return unsupported.kind == verbatim.QUOTE and unsupported.text.startswith(verbatim.NOTES_SAY)


def _checked_done(
    answer: _AnswerStream,
    sources: list[Passage],
    found: list[evidence.Evidence],
    question: Question,
    timing: tuple[float, float],
    decision: gate.GateDecision,
    line: evidence.Evidence | None,
) -> Done:
    """The `Done` event: the answer with citations added where the notes back a sentence, the
    citation report, and the figures found in no source. An answer the notes back nowhere, that
    only repeats a passage off the question, or that is unfit to read (`readability`) is not
    passed off as one: the answer line from the evidence takes its place, and the model's
    checked draft goes along (`draft`, with why it was `replaced`) to be shown folded away."""
    retrieval_seconds, evidence_seconds = timing
    texts, language = {s.number: s.text for s in sources}, question.language
    checked = attribution.attribute(answer.text.strip(), texts, language)
    report = citations.check(checked.answer, texts, language)
    draft: Draft | None = None
    quote, invalid = None, checked.invalid
    ended = answer.stats.stopped in ("eos", "marker")  # not cut by the length bound or a loop
    keeps_to_format = answer.model.profile.follows_format
    written = readability.Written(answer.text, ended, len(texts), answer.bound, keeps_to_format)
    unfit = readability.problems(written, question, texts.values(), found, line)
    replaced = _replaced_because(checked, report, found, question, texts)
    if replaced is None and unfit:
        replaced = DraftReplaced.UNREADABLE
    if replaced is not None and answer.stats.stopped != "cancelled":
        draft = draft_of(checked, replaced, unfit)
        quote = line
        checked = attribution.Checked(line_answer(line))
        report = citations.check(checked.answer, texts, language)
    return Done(
        answer=checked.answer,
        answerable=True,
        citations=citations_of(report, invalid),
        stopped=answer.stats.stopped,
        timings=timings_of(answer.stats, retrieval_seconds, evidence_seconds),
        outcome=verdict(decision).outcome,
        caution=_caution(decision),
        added_citations=list(checked.added),
        unsupported=list(checked.unsupported),
        marked_answer=checked.marked(),
        generated=answer.text,
        draft=draft,
        quote=quote,
        offer=offer_for(question.language, draft is not None),
    )


def composed_done(
    line: evidence.Evidence | None,
    sources: list[Passage],
    question: Question,
    timing: tuple[float, float],
    decision: gate.GateDecision,
    declined: str,
) -> Done:
    """The answer when the model writes nothing (the question's language is not one it writes):
    the answer line from the evidence, in the notes' own words."""
    texts = {s.number: s.text for s in sources}
    answer = line_answer(line)
    report = citations.check(answer, texts, "")
    return Done(
        answer=answer,
        answerable=True,
        citations=citations_of(report),
        stopped=NOT_GENERATED,
        timings=timings_of(Generation(), *timing),
        outcome=verdict(decision).outcome,
        caution=_caution(decision),
        marked_answer=answer,
        quote=line,
        declined=declined,
        offer=offer_for(question.language, True),
    )


def _caution(decision: gate.GateDecision) -> str:
    if decision.outcome != Outcome.WEAK:
        return ""
    return f"Weak evidence: {decision.reason}. Check the quoted sentences and passages."


def index_is_empty(database: Database) -> bool:
    with database.read() as db:
        return chunks.is_empty(db)


def index_weights(database: Database) -> Weights:
    """IDF of terms (stems, prefixes) over the whole index (the same weights the gate uses)."""

    def weights(terms: list[str]) -> dict[str, float]:
        with database.read() as db:
            return lexical.term_weights(db, terms)

    return weights


def embedder_similarity(searcher: Searcher, language: str) -> Cosines | None:
    """The cosine of the question with each sentence on the gate's scale, by the model that
    reads every pair of languages where the index has one (the multilingual companion beside
    the English-only default, whose sentences may be in any language), else the index's model
    where it knows the question's language, else the bundled multilingual model's."""
    if not USE_EMBEDDER_FOR_EVIDENCE:
        return None
    embedder = searcher.embedder
    if embedder is None or not searcher.vectors.size:  # keyword-only index: the model sleeps
        return None
    own = _cosines(embedder, searcher.query_vector)  # the search's own query vector
    knows = embedder.languages is None or language in embedder.languages
    other = searcher.companion or meaning_model(embedder)
    if other is None:
        return own if knows else None
    meaning = _cosines(other, lambda question: searcher.query_vector(question, other))
    if not knows:
        return meaning
    return _paired(own, meaning) if searcher.companion is not None else own


def crossed_raise(searcher: Searcher) -> float:
    """What a cosine with a passage in another language than the question's is raised by on the
    gate's scale (the multilingual model's cross-language shift; 0 without one)."""
    meaning = searcher.meaning
    if meaning is None:
        return 0.0
    return similarity(meaning, 0.0, crossed=True) - similarity(meaning, 0.0)


def _cosines(embedder: TextEmbedder, query_vector: Callable[[str], np.ndarray]) -> Cosines:
    def cosines(question: str, texts: list[str], _crossed: list[bool]) -> list[float]:
        if not texts:
            return []
        asked = query_vector(question)
        return [similarity(embedder, float(v)) for v in embedder.encode_few(texts) @ asked]

    return cosines


def _paired(own: Cosines, meaning: Cosines) -> Cosines:
    """The index model's cosines for sentences in the question's language, the multilingual
    companion's for the others (the English-only model cannot read them)."""

    def cosines(question: str, texts: list[str], crossed: list[bool]) -> list[float]:
        same = [i for i, x in enumerate(crossed) if not x]
        other = [i for i, x in enumerate(crossed) if x]
        out = [0.0] * len(texts)
        for indices, read in ((same, own), (other, meaning)):
            values = read(question, [texts[i] for i in indices], [False] * len(indices))
            for i, value in zip(indices, values, strict=True):
                out[i] = value
        return out

    return cosines


def _counter(model: ChatModel) -> Callable[[list[dict[str, str]]], int]:
    return lambda messages: len(model.tokenize(model.render(messages)))


# -- the typed parts of the events: the gate's verdict, the citation report, the replaced draft,
# the timings; the events of a refusal ------------------------------------------------------
def refusal(
    decision: gate.GateDecision, sources: list[Passage], retrieval_seconds: float
) -> Iterator[AnswerEvent]:
    """The events of "not in your notes": the closest passages, no evidence, why."""
    yield SourcesFound(False, Outcome.ABSENT, verdict(decision), sources[:REFUSAL_SOURCES])
    yield EvidenceShown(Outcome.ABSENT, "", [], round(retrieval_seconds, 3))
    message = f"{NOT_IN_NOTES} (Why: {decision.reason}.)"
    yield Token(message)
    yield Done(
        answer=message,
        answerable=False,
        citations=citations_of(citations.CitationReport()),
        stopped=Generation().stopped,
        timings=timings_of(Generation(), retrieval_seconds),
        outcome=Outcome.ABSENT,
        marked_answer=message,
        reason=decision.reason,
    )


def answer_sources(
    decision: gate.GateDecision, sources: list[Passage], prompt: Prompt, notices: list[str]
) -> SourcesFound:
    """The passages an answer is grounded in, with what did not fit in its prompt."""
    gate_verdict = verdict(decision)
    return SourcesFound(
        answerable=True,
        outcome=gate_verdict.outcome,
        gate=gate_verdict,
        sources=sources,
        dropped_sources=prompt.dropped_sources,
        dropped_turns=prompt.dropped_turns,
        notices=list(notices),
    )


def verdict(decision: gate.GateDecision) -> GateVerdict:
    """The gate's decision, its scores rounded as the events carry them."""
    cosine = None if decision.cosine is None else round(decision.cosine, 3)
    return GateVerdict(
        answerable=decision.answerable,
        outcome=decision.outcome,
        reason=decision.reason,
        missing=list(decision.missing),
        coverage=round(decision.coverage, 3),
        cosine=cosine,
    )


def citations_of(report: citations.CitationReport, invalid: Sequence[int] = ()) -> Citations:
    """The report as `Done` carries it; `invalid`: the numbers taken out of the answer."""
    taken_out = [n for n in invalid if n not in report.invalid]
    return Citations(list(report.valid), [*report.invalid, *taken_out], list(report.sentences))


def draft_of(
    checked: attribution.Checked, replaced: DraftReplaced, problems: Sequence[str] = ()
) -> Draft:
    """The model's answer, checked, as it goes along when it gave way."""
    return Draft(
        answer=checked.answer,
        added_citations=list(checked.added),
        unsupported=list(checked.unsupported),
        marked_answer=checked.marked(),
        replaced=replaced,
        problems=list(problems),
    )


def line_answer(line: Evidence | None) -> str:
    """The answer in the notes' own words: the answer line quoted verbatim with its `[n]`."""
    if line is None:
        return NO_LINE
    return f"{NOTES_SAY} “{line.shown}” [{line.number}]"


def offer_for(language: str, needed: bool) -> str:
    """One line offering a better model, when Quire had to answer without the model's words."""
    if not needed:
        return ""
    return (
        f"A chat model that writes {language_name(language)} well can answer in its own words: "
        "choose or download one in Settings → Models."
    )


def timings_of(
    stats: Generation, retrieval_seconds: float, evidence_seconds: float | None = None
) -> Timings:
    first = stats.first_token_seconds
    return Timings(
        retrieval_seconds=round(retrieval_seconds, 3),
        prompt_tokens=stats.prompt_tokens,
        completion_tokens=stats.completion_tokens,
        first_token_seconds=None if first is None else round(first, 3),
        tokens_per_second=round(stats.tokens_per_second, 1),
        evidence_seconds=evidence_seconds,
    )
