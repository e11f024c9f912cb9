"""What the core tells its front ends, read by the CLI and the window: typed, frozen events.

Answering a question streams, in order: `SourcesFound` (with the gate's verdict),
`EvidenceShown` (the verbatim sentences that best answer, before any token), `Token`…, then
`Done` (or `Error` at any point). The events carry no JSON: `desktop_app.core.as_json` gives
the line `quire ask --json` prints for each, a fixed interface (keys, values and order).

The live index tells what happened to a note or to itself as a `Change` of a `ChangeKind`,
one line of `quire watch` and of the window's status.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from desktop_app.core import names
from desktop_app.core.passage import Evidence, Passage

__all__ = [
    "QUIET_KINDS",
    "AddedCitation",
    "AnswerEvent",
    "Change",
    "ChangeCallback",
    "ChangeKind",
    "Citations",
    "CitedSentence",
    "Done",
    "Draft",
    "DraftReplaced",
    "Error",
    "Evidence",
    "EvidenceShown",
    "GateVerdict",
    "Outcome",
    "Passage",
    "SourcesFound",
    "Timings",
    "Token",
    "Unfound",
]


class Outcome(StrEnum):
    """How well the notes answer the question (the gate's three outcomes)."""

    ANSWERED = "answered"
    WEAK = "weak"  # something related was found: the answer comes with a caution
    ABSENT = "absent"  # "not in your notes"


class DraftReplaced(StrEnum):
    """Why the model's answer gave way to the best evidence sentence, quoted."""

    UNBACKED = "unbacked"  # the notes back no sentence of the model's answer
    OFF_QUESTION = "off_question"  # it repeats another passage, which answers less of the question
    FORGED = "forged_quote"  # it presents as the notes' words a quotation that no note holds
    UNREADABLE = "unreadable"  # made-up words, a loop, a label, another language, another figure


@dataclass(frozen=True)
class GateVerdict:
    """The evidence gate's decision, as the events carry it (scores rounded to 3 places)."""

    answerable: bool
    outcome: Outcome
    reason: str
    missing: list[str]  # key words of the question that no passage holds
    coverage: float
    cosine: float | None


@dataclass(frozen=True)
class SourcesFound:
    """The passages behind the answer (or, when `answerable` is false, the closest ones)."""

    answerable: bool
    outcome: Outcome
    gate: GateVerdict
    sources: list[Passage]
    # Only for an answer (a refusal has no prompt): what did not fit, the model's notices.
    dropped_sources: int | None = None
    dropped_turns: int | None = None
    notices: list[str] | None = None


@dataclass(frozen=True)
class EvidenceShown:
    """The sentences of the notes that best answer, quoted verbatim, before any token."""

    outcome: Outcome
    caution: str  # the "weak evidence" notice, or ""
    evidence: list[Evidence]
    seconds: float


@dataclass(frozen=True)
class Token:
    text: str


@dataclass(frozen=True)
class CitedSentence:
    """A sentence of the answer that cites a source, and how well that source backs it."""

    text: str
    start: int  # where it stands in the answer
    end: int
    cites: list[int]  # the source numbers it cites that are sources of this answer
    support: float  # share of its content words found in the cited sources
    weak: bool  # too little support: its `[n]` hardly vouch for it
    unverified: bool  # it holds code, a command or a quotation that no source holds


@dataclass(frozen=True)
class Citations:
    """The citation report of an answer."""

    valid: list[int] = field(default_factory=list)  # source numbers cited and present
    invalid: list[int] = field(default_factory=list)  # numbers taken out: no source of it
    sentences: list[CitedSentence] = field(default_factory=list)


@dataclass(frozen=True)
class AddedCitation:
    """A `[n]` the checks added to a sentence that a source strongly backs."""

    sentence: str
    number: int
    support: float


@dataclass(frozen=True)
class Unfound:
    """What the answer states that no source holds: a figure, or something that must be
    verbatim (code, a command, a path, a quotation); `kind` says which."""

    text: str
    start: int  # where it stands in the answer
    end: int
    kind: str


@dataclass(frozen=True)
class Draft:
    """The model's answer, checked, when it gave way to the best evidence sentence."""

    answer: str
    added_citations: list[AddedCitation]
    unsupported: list[Unfound]
    marked_answer: str  # the answer with every unfound span marked in place
    replaced: DraftReplaced
    problems: list[str] = field(default_factory=list)  # why it is unfit to read (readability)


@dataclass(frozen=True)
class Timings:
    retrieval_seconds: float
    prompt_tokens: int
    completion_tokens: int
    first_token_seconds: float | None
    tokens_per_second: float
    evidence_seconds: float | None = None  # only for an answer (a refusal shows no evidence)


@dataclass(frozen=True)
class Done:
    """The answer, checked: citations added where the notes back a sentence, what no source
    holds (`unsupported`), the citation report and the timings."""

    answer: str
    answerable: bool
    citations: Citations
    stopped: str  # why generation ended (llm.Generation.stopped)
    timings: Timings
    outcome: Outcome
    caution: str = ""
    added_citations: list[AddedCitation] = field(default_factory=list)
    unsupported: list[Unfound] = field(default_factory=list)
    marked_answer: str = ""
    generated: str = ""  # what the model wrote, before the checks (an answer only)
    reason: str | None = None  # why the notes do not cover it (a refusal only)
    # The model's answer, checked, when the notes backed none of it (or it only repeated a
    # passage off the question): `answer` is then the best evidence sentence quoted.
    draft: Draft | None = None
    # The evidence unit `answer` quotes when the draft was replaced: "Your notes say" is only
    # ever its exact text (`note_text[quote.start:quote.end]`).
    quote: Evidence | None = None
    declined: str = ""  # why the model was not asked to write (a language it does not write)
    offer: str = ""  # one line offering a better model, when the notes' words had to answer

    @property
    def cited(self) -> set[int]:
        return set(self.citations.valid)


@dataclass(frozen=True)
class Error:
    message: str


AnswerEvent = SourcesFound | EvidenceShown | Token | Done | Error


# -- the live index's changes ------------------------------------------------------------------
class ChangeKind(StrEnum):
    """What happened to a note or to the live index (the first word of a `quire watch` line)."""

    INDEXED = "indexed"
    REMOVED = "removed"
    MOVED = "moved"
    SKIPPED = "skipped"
    FAILED = "failed"
    WARNING = "warning"  # indexed, with something to say (a guessed encoding…)
    EMBEDDED = "embedded"
    NOTICE = "notice"
    ERROR = "error"
    # The quiet ones (QUIET_KINDS), which the window uses to know when work is done:
    SCANNED = "scanned"
    CAUGHT_UP = "caught-up"


@dataclass(frozen=True)
class Change:
    """One line of what happened, for `quire watch` and the window's status."""

    kind: ChangeKind
    path: str = ""
    detail: str = ""

    def __str__(self) -> str:
        """One line, whatever the note's name holds (newlines, undecodable bytes)."""
        return " ".join(names.printable(x) for x in (self.kind, self.path, self.detail) if x)


ChangeCallback = Callable[[Change], None]
QUIET_KINDS = frozenset({ChangeKind.SCANNED, ChangeKind.CAUGHT_UP})
