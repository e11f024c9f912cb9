"""The typed parts of the answer events, built from what the gate, the checks and the model
report: the gate's verdict, the citation report, added citations, what no source holds, the
replaced draft and the timings; and the events of a refusal ("not in your notes")."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from desktop_app.core.answer import attribution, citations, gate
from desktop_app.core.answer.grounded import language_name
from desktop_app.core.answer.llm import Generation
from desktop_app.core.answer.prompt import Prompt
from desktop_app.core.answer.verbatim import NOTES_SAY
from desktop_app.core.events import (
    AnswerEvent,
    Citations,
    Done,
    Draft,
    DraftReplaced,
    EvidenceShown,
    GateVerdict,
    Outcome,
    SourcesFound,
    Timings,
    Token,
)
from desktop_app.core.passage import Evidence, Passage

NOT_GENERATED = "not_generated"  # `Done.stopped` when the model was not asked to write
NO_LINE = "No single sentence of your notes answers this: read the passages below."
NOT_IN_NOTES = "Your notes don't seem to cover this. The closest passages are listed below."
REFUSAL_SOURCES = 5  # the closest passages a refusal lists


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
    return f"{NOTES_SAY} “{line.text}” [{line.number}]"


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
