"""A turn as Markdown: evidence first, the answer with its `[n]` as links, the checks' notices."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from desktop_app.core.answer.attribution import NOT_FOUND
from desktop_app.core.answer.citations import replace_citations
from desktop_app.core.events import OFF_QUESTION, Quote
from desktop_app.core.service import Turn


def linkify(answer: str, valid: Callable[[int], bool], turn: int = 0) -> str:
    """Markdown for an answer: valid `[n]` become links to that turn's source, others plain."""

    def render(numbers: list[int]) -> str:
        return "".join(
            f"[[{n}]](quire:source/{turn}/{n})" if valid(n) else f"\\[{n}\\]" for n in numbers
        )

    return replace_citations(answer.replace("<", "&lt;"), render)


def turn_markdown(turn: Turn, index: int) -> str:
    """The turn as the chat view shows it (`index` numbers its links)."""
    count = len(turn.sources)
    answer = linkify(mark_unsupported(turn.answer, turn.unsupported), lambda n: 1 <= n <= count,
                     index)  # fmt: skip
    answer = evidence_markdown(turn.evidence, index) + caution_markdown(turn.caution) + answer
    notice = check_notice(turn.citations) if turn.answerable else ""
    notice = f"\n\n*⚠ {notice}*" if notice else ""
    if turn.draft is not None:
        notice = draft_markdown(turn.draft) + notice
    if not turn.answerable and turn.sources and turn.citations:
        notice = f"\n\n[Answer from the closest passages anyway](quire:anyway/{index})"
    return f"**You:** {html.escape(turn.question)}\n\n{answer}{notice}\n\n---\n"


def evidence_markdown(evidence: list[Quote], turn: int) -> str:
    """The "From your notes" block: each sentence quoted verbatim, its `[n]` selects its span."""
    if not evidence:
        return ""
    lines = ["**From your notes:**", ""]
    for i, e in enumerate(evidence):
        quoted = _literal_markdown(" ".join(e.text.split()))
        lines.append(f"> “{quoted}” [[{e.number}]](quire:evidence/{turn}/{i})")
        lines.append(">")
    return "\n".join(lines[:-1]) + "\n\n"


def _literal_markdown(text: str) -> str:
    """Note text shown as itself: no emphasis, code, links or HTML from inside the note."""
    for ch in "\\`*_[]#":
        text = text.replace(ch, "\\" + ch)
    return text.replace("<", "&lt;")


def caution_markdown(caution: str) -> str:
    return f"*⚠ {html.escape(caution, quote=False)}*\n\n" if caution else ""


def mark_unsupported(answer: str, unsupported: list[dict[str, Any]]) -> str:
    """Each figure found in no source, marked in place (spans index into `answer`)."""
    out, pos = [], 0
    for f in sorted(unsupported, key=lambda f: f["start"]):
        if f["start"] < pos or answer[f["start"] : f["end"]] != f["text"]:
            continue
        out += [answer[pos : f["start"]], f"**{f['text']}** *(⚠ {NOT_FOUND})*"]
        pos = f["end"]
    return "".join(out) + answer[pos:]


DRAFT_NOTICE = ("The model's answer was not backed by your notes, so their own words are shown "
                "instead. Its draft:")  # fmt: skip
OFF_QUESTION_NOTICE = (
    "The model's answer repeats a passage that answers less of the question than the sentence "
    "shown, so that sentence is shown instead. Its draft:"
)


def draft_markdown(draft: dict[str, Any]) -> str:
    """The model's draft, when the notes backed none of it: quoted, its figures marked, its
    `[n]` plain text (a draft links to nothing)."""
    text = mark_unsupported(draft.get("answer", ""), draft.get("unsupported", []))
    text = replace_citations(text.replace("<", "&lt;"),
                             lambda ns: "".join(f"\\[{n}\\]" for n in ns))  # fmt: skip
    quoted = "\n".join(f"> {line}" for line in text.splitlines() or [""])
    notice = OFF_QUESTION_NOTICE if draft.get("replaced") == OFF_QUESTION else DRAFT_NOTICE
    return f"\n\n*⚠ {notice}*\n\n{quoted}"


def check_notice(citations: dict[str, Any]) -> str:
    """What the reader should know about an answer's grounding, from the citation report."""
    if not citations:
        return ""
    notes = []
    if not citations.get("valid"):
        notes.append("This answer cites none of the sources: check it against the passages.")
    weak = sum(1 for s in citations.get("sentences", []) if s.get("weak"))
    if weak:
        notes.append(f"{weak} cited sentence{'s' if weak != 1 else ''} weakly supported "
                     "by the cited passage.")  # fmt: skip
    invalid = citations.get("invalid", [])
    if invalid:
        notes.append(f"Ignored citations of sources that do not exist: {invalid}.")
    return " ".join(notes)
