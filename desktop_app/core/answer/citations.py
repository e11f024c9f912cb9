"""`[n]` citations: validated against the prompt's sources, and each cited sentence checked
cheaply for support (`support.support`: the cited passages hold its content words) and for what it
must quote verbatim: a sentence holding code, a command or a quotation that no source holds is
`unverified`, and its `[n]` vouch for nothing."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from desktop_app.core.answer import verbatim
from desktop_app.core.answer.support import CITATION, CITED_SENTENCE, WEAK_SUPPORT, support
from desktop_app.core.events import CitedSentence


@dataclass
class CitationReport:
    valid: list[int] = field(default_factory=list)  # source numbers cited and present
    invalid: list[int] = field(default_factory=list)  # numbers that are not sources of this prompt
    sentences: list[CitedSentence] = field(default_factory=list)

    @property
    def backed_sentences(self) -> list[CitedSentence]:
        """The sentences that cite a source supporting them, holding nothing unfound verbatim."""
        return [s for s in self.sentences if s.cites and not s.weak and not s.unverified]


def numbers_in(text: str) -> list[int]:
    """All cited numbers in order of appearance: [1], [1, 3], [1][2] and [1; 2] forms."""
    out: list[int] = []
    for match in CITATION.finditer(text):
        out.extend(int(n) for n in re.findall(r"\d+", match.group(1)))
    return out


def replace_citations(text: str, render: Callable[[list[int]], str]) -> str:
    """`text` with every citation group replaced by `render(its numbers)` (same forms as above)."""
    return CITATION.sub(lambda m: render(numbers_in(m.group(0))), text)


def without_citations_of(text: str, drop: Callable[[int], bool]) -> tuple[str, list[int]]:
    """`text` without the cited numbers `drop` accepts (a group left empty goes with the space
    before it; other groups stay as written), and those numbers in order."""
    dropped: list[int] = []

    def keep(match: re.Match[str]) -> str:
        numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
        gone = [n for n in numbers if drop(n)]
        if not gone:
            return match.group(0)
        dropped.extend(n for n in gone if n not in dropped)
        kept = [n for n in numbers if not drop(n)]
        return f"[{', '.join(map(str, kept))}]" if kept else "\0"

    text = re.sub(r"\0+(?=\[)", "", CITATION.sub(keep, text))  # "[3][1]": the space stays
    return re.sub(r"[ \t]*\0+", "", text), dropped


def check(answer: str, sources: dict[int, str], language: str = "en") -> CitationReport:
    report = CitationReport()
    for number in numbers_in(answer):
        bucket = report.valid if number in sources else report.invalid
        if number not in bucket:
            bucket.append(number)
    unfound = verbatim.unfound(answer, list(sources.values()))
    for match in CITED_SENTENCE.finditer(answer):
        sentence = match.group(0).strip()
        cites = [n for n in numbers_in(sentence) if n in sources]
        if not sentence or not cites:
            continue
        share, _ = support(sentence, "\n".join(sources[n] for n in cites), language)
        start = match.start() + len(match.group(0)) - len(match.group(0).lstrip())
        end = start + len(sentence)
        report.sentences.append(
            CitedSentence(
                text=sentence,
                start=start,
                end=end,
                cites=cites,
                support=round(share, 2),
                weak=share < WEAK_SUPPORT,
                unverified=any(u.start < end and start < u.end for u in unfound),
            )
        )
    return report
