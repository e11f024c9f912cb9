"""What answering a question streams: typed, frozen events, read by the CLI and the window.

Order: `Sources` (with the gate's decision), `Evidence` (the verbatim sentences that best answer,
before any token), `Token`…, then `Done` (or `Error` at any point). `to_json()` gives the line
`quire ask --json` prints for each; that format is a fixed interface (keys, values and order).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from desktop_app.core.passage import Evidence as Quote
from desktop_app.core.passage import Passage

__all__ = ["AnswerEvent", "Done", "Error", "Evidence", "Passage", "Quote", "Sources", "Token"]

# Why a draft was replaced by the best evidence sentence (`Done.draft["replaced"]`):
UNBACKED = "unbacked"  # the notes back no sentence of the model's answer
OFF_QUESTION = "off_question"  # it repeats another passage, which answers less of the question
FORGED = "forged_quote"  # it presents as the notes' words a quotation that no note holds


@dataclass(frozen=True)
class Sources:
    """The passages behind the answer (or, when `answerable` is false, the closest ones)."""

    answerable: bool
    outcome: str  # gate.ANSWERED, gate.WEAK or gate.ABSENT
    gate: dict[str, Any]  # the gate's decision, as GateDecision.to_json()
    sources: list[Passage]
    # Only for an answer (a refusal has no prompt): what did not fit, the model's notices.
    dropped_sources: int | None = None
    dropped_turns: int | None = None
    notices: list[str] | None = None

    def to_json(self) -> dict[str, Any]:
        data = {"type": "sources", "answerable": self.answerable, "outcome": self.outcome,
                "gate": self.gate, "sources": [s.to_json() for s in self.sources]}  # fmt: skip
        if self.answerable:
            data.update(dropped_sources=self.dropped_sources, dropped_turns=self.dropped_turns,
                        notices=self.notices)  # fmt: skip
        return data


@dataclass(frozen=True)
class Evidence:
    """The sentences of the notes that best answer, quoted verbatim, before any token."""

    outcome: str
    caution: str  # the "weak evidence" notice, or ""
    evidence: list[Quote]
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {"type": "evidence", "outcome": self.outcome, "caution": self.caution,
                "evidence": [e.to_json() for e in self.evidence],
                "seconds": self.seconds}  # fmt: skip


@dataclass(frozen=True)
class Token:
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "token", "text": self.text}


@dataclass(frozen=True)
class Done:
    """The answer, checked: citations added where the notes back a sentence, figures found in no
    source (`unsupported`), the citation report and the timings."""

    answer: str
    answerable: bool
    citations: dict[str, Any]  # valid, invalid, sentences
    stopped: str
    timings: dict[str, Any]
    outcome: str
    caution: str
    added_citations: list[Any] = field(default_factory=list)
    unsupported: list[dict[str, Any]] = field(default_factory=list)  # text, start, end, kind
    marked_answer: str = ""
    generated: str = ""  # what the model wrote, before the checks (an answer only)
    reason: str | None = None  # why the notes do not cover it (a refusal only)
    # The model's answer, checked, when the notes backed none of it (or it only repeated a
    # passage off the question): `answer` is then the best evidence sentence quoted
    # (Checked.to_json(): answer, unsupported, marked…, and `replaced`: UNBACKED / OFF_QUESTION).
    draft: dict[str, Any] | None = None
    # The evidence unit `answer` quotes when the draft was replaced: "Your notes say" is only
    # ever its exact text (`note_text[quote.start:quote.end]`).
    quote: Quote | None = None

    def to_json(self) -> dict[str, Any]:
        data = {"type": "done", "answer": self.answer, "answerable": self.answerable,
                "citations": self.citations, "stopped": self.stopped,
                "timings": self.timings}  # fmt: skip
        if self.reason is None:
            data.update(added_citations=self.added_citations, unsupported=self.unsupported,
                        marked_answer=self.marked_answer, generated=self.generated,
                        outcome=self.outcome, caution=self.caution, backed=self.draft is None,
                        draft=self.draft,
                        quote=None if self.quote is None else self.quote.to_json())  # fmt: skip
        else:
            data.update(outcome=self.outcome, reason=self.reason, unsupported=self.unsupported,
                        added_citations=self.added_citations, marked_answer=self.marked_answer,
                        caution=self.caution)  # fmt: skip
        return data

    @property
    def cited(self) -> set[int]:
        return set(self.citations.get("valid", []))


@dataclass(frozen=True)
class Error:
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "error", "message": self.message}


AnswerEvent = Sources | Evidence | Token | Done | Error
