"""The chat's view model, Qt-free: a turn as Markdown (evidence first, the answer with its `[n]`
as links where they vouch, what no source holds marked in place, the checks' notices), the
conversation as one page, and the links of that page read back. Note text is shown as itself;
the window only sets the Markdown and acts on a clicked `TurnLink`."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from desktop_app.core.answer.attribution import NOT_FOUND
from desktop_app.core.answer.citations import numbers_in, replace_citations
from desktop_app.core.answer.cues import AnswerKind, question_kind
from desktop_app.core.answer.support import CITATION
from desktop_app.core.answer.units import CODE
from desktop_app.core.answer.verbatim import NOTES_SAY
from desktop_app.core.conversations import Turn
from desktop_app.core.events import Citations, CitedSentence, Draft, DraftReplaced, Unfound
from desktop_app.core.passage import Evidence, day_label
from desktop_app.core.text import FENCE, code_fence, plain_line

UNVERIFIED = "unverified"
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def linkify(answer: str, valid: Callable[[int], bool], turn: int = 0) -> str:
    """Markdown for an answer: valid `[n]` become links to that turn's source, others plain."""

    def render(numbers: list[int]) -> str:
        return "".join(
            f"[[{n}]](quire:source/{turn}/{n})" if valid(n) else f"\\[{n}\\]" for n in numbers
        )

    return replace_citations(answer.replace("<", "&lt;"), render)


def turn_markdown(turn: Turn, index: int, live: bool = False) -> str:
    """The turn as the chat view shows it (`index` numbers its links): one short answer first,
    then the quoted evidence, then one-line cautions; a failed draft only when unfolded. While
    `live`, the model's words stream into a provisional area: they are not the answer yet."""
    count = len(turn.sources)
    when = question_kind(turn.question) == AnswerKind.DATE  # "when did I…": say each quote's day
    if turn.quote is not None:
        answer = quoted_markdown(turn.quote, turn.evidence, index, when)
    elif live and turn.answerable and turn.answer:
        answer = provisional_markdown(turn.answer)
    else:
        sentences = [] if turn.citations is None else turn.citations.sentences
        answer = answer_markdown(
            turn.answer, turn.unsupported, sentences, lambda n: 1 <= n <= count, index
        )
    evidence = evidence_markdown(turn.evidence, index, when, shown=turn.quote)
    body = f"{answer}\n\n{evidence}" if answer else evidence
    notes = cautions_markdown(turn, index)
    if not turn.answerable and turn.sources and turn.citations is not None:
        notes += f"\n\n[Answer from the closest passages anyway](quire:anyway/{index})"
    return f"**You:** {html.escape(turn.question)}\n\n{body}{notes}\n\n---\n"


def provisional_markdown(text: str) -> str:
    """The model's words while they stream: set apart, marked as not checked yet."""
    plain = _plain_citations(text.replace("<", "&lt;"))
    return f"*Writing, to be checked against your notes:* {' '.join(plain.split())}"


def cautions_markdown(turn: Turn, index: int) -> str:
    """One line each: weak evidence, what the checks found, why the model did not write, the
    failed draft (folded unless the reader opened it), and the offer of a better model."""
    lines = [caution_markdown(turn.caution).strip()]
    lines.append(check_notice(turn.citations) if turn.answerable and turn.quote is None else "")
    lines.append(turn.declined)
    lines = [f"*⚠ {html.escape(line, quote=False)}*" if not line.startswith("*") else line
             for line in lines if line]  # fmt: skip
    text = "".join(f"\n\n{line}" for line in lines)
    if turn.draft is not None:
        text += draft_markdown(turn.draft, index, turn.draft_open)
    if turn.offer:
        offer = html.escape(turn.offer.removesuffix("."), quote=False)
        text += f"\n\n*{offer}* ([open]({MODELS_LINK}))."
    return text


def answer_markdown(
    answer: str,
    unsupported: list[Unfound],
    sentences: list[CitedSentence],
    valid: Callable[[int], bool],
    turn: int = 0,
) -> str:
    """The model's answer in one pass: what no source holds marked in place (inside a code block
    as a trailing note), each `[n]` a link only when it is a source and its sentence holds
    nothing unfound that must be verbatim (else plain, marked unverified)."""
    unverified = [(s.start, s.end) for s in sentences if s.unverified]
    parts: list[tuple[int, int, str]] = [
        (f.start, f.end, _marked(f.text, _in_fence(answer, f.start)))
        for f in unsupported
        if answer[f.start : f.end] == f.text
    ]
    for m in CITATION.finditer(answer):
        plain = any(a <= m.start() < b for a, b in unverified)
        parts.append((m.start(), m.end(), _citation(numbers_in(m.group(0)), valid, turn, plain)))
    out, pos = [], 0
    for start, end, rendered in sorted(parts):
        if start < pos:
            continue
        out += [answer[pos:start].replace("<", "&lt;"), rendered]
        pos = end
    return "".join(out) + answer[pos:].replace("<", "&lt;")


def _marked(text: str, in_code: bool) -> str:
    if in_code:  # Markdown does not format inside a code block
        return f"{text}   ⚠ {NOT_FOUND}"
    return f"**{text.replace('<', '&lt;')}** *(⚠ {NOT_FOUND})*"


def _in_fence(text: str, pos: int) -> bool:
    return len(FENCE.findall(text, 0, pos)) % 2 == 1


def _citation(numbers: list[int], valid: Callable[[int], bool], turn: int, plain: bool) -> str:
    if plain:
        return "".join(f"\\[{n}\\]" for n in numbers) + f" *({UNVERIFIED})*"
    return "".join(
        f"[[{n}]](quire:source/{turn}/{n})" if valid(n) else f"\\[{n}\\]" for n in numbers
    )


def quoted_markdown(
    quote: Evidence, evidence: list[Evidence], turn: int, when: bool = False
) -> str:
    """Quire's own answer when the model's was not backed: the evidence unit, exactly as the
    note holds it, its `[n]` selecting its span; for a question about when, the day its note
    was written."""
    lines = _day_lines(quote, when) + _unit_lines(quote, f"quire:quote/{turn}")
    return f"**{NOTES_SAY}**\n\n" + "\n".join(lines)


def evidence_markdown(
    evidence: list[Evidence], turn: int, when: bool = False, shown: Evidence | None = None
) -> str:
    """The "From your notes" block: each unit quoted verbatim, its `[n]` selects its span; for a
    question about when, each dated unit says the day its note was written. A unit already
    `shown` as the answer (the same span of the same note) is not quoted twice."""
    kept = [(i, e) for i, e in enumerate(evidence) if not _same_span(e, shown)]
    if not kept:
        return ""
    lines = ["**From your notes:**", ""]
    for i, e in kept:
        lines += _day_lines(e, when) + _unit_lines(e, f"quire:evidence/{turn}/{i}")
        lines.append(">")
    return "\n".join(lines[:-1]) + "\n\n"


def _day_lines(e: Evidence, when: bool) -> list[str]:
    """For a question about when: the day the quote's note says it was written."""
    return [f"> *On {day_label(e.day)} you wrote:*", ">"] if when and e.day else []


def _same_span(e: Evidence, other: Evidence | None) -> bool:
    if other is None:
        return False
    return (e.folder, e.path, e.start, e.end) == (other.folder, other.path, other.start, other.end)


def _unit_lines(e: Evidence, link: str) -> list[str]:
    """A quote as Markdown lines: its prose literal, each code block's code as a code block (one
    quote may hold several units that stand side by side in the note); its `[n]` at the end."""
    lines: list[str] = []
    for is_code, text in quote_pieces(e):
        lines += [">"] if lines else []
        if not is_code:
            lines.append(f"> “{_literal_markdown(plain_line(text))}”")  # as read, one line
            continue
        fence = code_fence(text)
        lines += [f"> {fence}", *(f"> {line}" for line in text.splitlines()), f"> {fence}"]
    cite = f"[[{e.number}]]({link})"
    if lines and lines[-1].endswith("”"):
        return [*lines[:-1], f"{lines[-1]} {cite}"]
    return [*lines, f"> {cite}"]


def quote_pieces(e: Evidence) -> list[tuple[bool, str]]:
    """A quote's prose and code in text order as (is code, text): the sentences that introduce
    and explain a block, fence lines left out, a paragraph a piece, and each block's code."""
    if e.kind == CODE and not e.code:
        return [(True, e.text)]
    pieces, at = [], 0
    for begin, end in ((b - e.start, f - e.start) for b, f in e.code):
        pieces += [(False, _prose(e.text[at:begin])), (True, e.text[begin:end].strip("\n"))]
        at = end
    pieces.append((False, _prose(e.text[at:]) if e.code else e.text))
    return [
        (is_code, part)
        for is_code, text in pieces
        for part in ([text] if is_code else _PARAGRAPH_BREAK.split(text))
        if is_code or part.strip()
    ]


def _prose(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not FENCE.match(line)).strip()


def _literal_markdown(text: str) -> str:
    """Note text shown as itself: no emphasis, code, links or HTML from inside the note."""
    for ch in "\\`*_[]#":
        text = text.replace(ch, "\\" + ch)
    return text.replace("<", "&lt;")


def caution_markdown(caution: str) -> str:
    return f"*⚠ {html.escape(caution, quote=False)}*\n\n" if caution else ""


def mark_unsupported(answer: str, unsupported: list[Unfound]) -> str:
    """Each figure found in no source, marked in place (spans index into `answer`)."""
    out, pos = [], 0
    for f in sorted(unsupported, key=lambda f: f.start):
        if f.start < pos or answer[f.start : f.end] != f.text:
            continue
        out += [answer[pos : f.start], f"**{f.text}** *(⚠ {NOT_FOUND})*"]
        pos = f.end
    return "".join(out) + answer[pos:]


DRAFT_NOTICE = (
    "The model's answer was not backed by your notes, so their own words are shown instead."
)
FORGED_NOTICE = (
    "The model's answer quotes your notes with words that no note holds, so their "
    "own words are shown instead."
)
OFF_QUESTION_NOTICE = (
    "The model's answer repeats a passage that answers less of the question than the sentence "
    "shown, so that sentence is shown instead."
)


UNREADABLE_NOTICE = (
    "The model's answer did not pass the reading checks, so your notes' own words are shown "
    "instead."
)
MODELS_LINK = "quire:models"
DRAFT_LABEL = "The model's draft:"

_NOTICES = {
    DraftReplaced.OFF_QUESTION: OFF_QUESTION_NOTICE,
    DraftReplaced.FORGED: FORGED_NOTICE,
    DraftReplaced.UNREADABLE: UNREADABLE_NOTICE,
}


def draft_markdown(draft: Draft, turn: int = 0, unfolded: bool = True) -> str:
    """The model's draft, when it gave way: folded behind a link that says why; unfolded, quoted,
    its figures marked, its `[n]` plain text (a draft links to nothing)."""
    notice = _NOTICES.get(draft.replaced, DRAFT_NOTICE)
    if draft.problems:
        notice = f"{notice.removesuffix('.')} ({'; '.join(draft.problems)})."
    notice = html.escape(notice, quote=False)
    if not unfolded:
        return f"\n\n*⚠ {notice}* [Show the model's draft](quire:draft/{turn})"
    text = mark_unsupported(draft.answer, draft.unsupported).replace("<", "&lt;")
    quoted_lines = _plain_citations(text).splitlines()
    quoted = "\n".join(f"> {line}" for line in quoted_lines or [""])
    return f"\n\n*⚠ {notice} {DRAFT_LABEL}*\n\n{quoted}"


def _plain_citations(text: str) -> str:
    """Every `[n]` as plain text: words not yet checked (or a draft) link to no source."""
    return replace_citations(text, lambda numbers: "".join(f"\\[{n}\\]" for n in numbers))


def check_notice(citations: Citations | None) -> str:
    """What the reader should know about an answer's grounding, from the citation report."""
    if citations is None:
        return ""
    notes = []
    if not citations.valid:
        notes.append("This answer cites none of the sources: check it against the passages.")
    if weak := sum(1 for s in citations.sentences if s.weak):
        plural = "s" if weak != 1 else ""
        notes.append(f"{weak} cited sentence{plural} weakly supported by the cited passage.")
    if forged := sum(1 for s in citations.sentences if s.unverified):
        plural, verb = ("", "quotes") if forged == 1 else ("s", "quote")
        notes.append(
            f"{forged} cited sentence{plural} {verb} code, a command or words that no source "
            "holds: their citations vouch for nothing."
        )
    if citations.invalid:
        notes.append(f"Ignored citations of sources that do not exist: {citations.invalid}.")
    return " ".join(notes)


EMPTY_CHAT = (
    "*Ask anything about your notes. Answers cite the passages they use: click a number like [1] "
    "to see it in its note.*"
)
TYPING_MARK = "▍"  # after the live turn: the answer is still being written


def conversation_markdown(turns: list[Turn], live: Turn | None = None, hint: str = "") -> str:
    """The chat page: each turn numbered by its place, the live one last, then a hint."""
    parts = [turn_markdown(t, i) for i, t in enumerate(turns)]
    if live is not None:
        parts.append(turn_markdown(live, len(turns), live=True) + TYPING_MARK)
    if hint:
        parts.append(f"*{hint}*")
    return "\n".join(parts or [EMPTY_CHAT])


def problem_markdown(message: str) -> str:
    """What went wrong, in place of an answer (the message shown as text, not Markdown)."""
    return f"**Problem:** {html.escape(message)}"


class LinkKind(StrEnum):
    """What a link of the chat page does when followed."""

    MODELS = "models"  # the offer of a better model: open the model settings
    ANYWAY = "anyway"  # answer from the closest passages although the gate said no
    DRAFT = "draft"  # fold or unfold the model's draft
    QUOTE = "quote"  # select the quoted answer in its note
    SOURCE = "source"  # a turn's source `[n]`
    EVIDENCE = "evidence"  # one evidence unit of a turn


_TURN_LINKS = (LinkKind.ANYWAY, LinkKind.DRAFT, LinkKind.QUOTE)
_NUMBERED_LINKS = (LinkKind.SOURCE, LinkKind.EVIDENCE)


@dataclass(frozen=True)
class TurnLink:
    """A followed link of the chat page: its kind, the turn it belongs to and, for a source or
    an evidence unit, the source's number or the unit's place (-1 where there is none)."""

    kind: LinkKind
    turn: int = -1
    number: int = -1

    @classmethod
    def read(cls, scheme: str, path: str) -> TurnLink | None:
        """The link a `quire:` URL's path names, as the Markdown above writes them; None for
        any other URL."""
        parts = path.split("/")
        if scheme != "quire":
            return None
        if parts == [LinkKind.MODELS]:
            return cls(LinkKind.MODELS)
        if len(parts) == 2 and parts[0] in _TURN_LINKS:
            return cls(LinkKind(parts[0]), int(parts[1]))
        if len(parts) == 3 and parts[0] in _NUMBERED_LINKS:
            return cls(LinkKind(parts[0]), int(parts[1]), int(parts[2]))
        return None
