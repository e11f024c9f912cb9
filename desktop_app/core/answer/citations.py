"""`[n]` citations: found while streaming, validated against the prompt's sources, and each cited
sentence checked cheaply for support (shared content words with the cited passage)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from desktop_app.core.retrieval import analyzer

_GROUP = re.compile(r"\[(\s*\d+\s*(?:[,;]\s*\d+\s*)*)\]")
# A sentence's body: a point before a digit ("1.160.000", "3.5") ends no sentence.
SENTENCE_BODY = r"(?:[^.!?\n]|\.(?=\d))+"
_SENTENCE = re.compile(SENTENCE_BODY + r"(?:[.!?]+|\n|$)")
WEAK_SUPPORT = 0.35


@dataclass
class CitationReport:
    valid: list[int] = field(default_factory=list)  # source numbers cited and present
    invalid: list[int] = field(default_factory=list)  # numbers that are not sources of this prompt
    sentences: list[dict] = field(default_factory=list)  # text, cites, support, weak

    @property
    def backed_sentences(self) -> list[dict]:
        """The sentences that cite a source supporting them."""
        return [s for s in self.sentences if s["cites"] and not s["weak"]]

    @property
    def backed(self) -> bool:
        return bool(self.backed_sentences)


def numbers_in(text: str) -> list[int]:
    """All cited numbers in order of appearance: [1], [1, 3], [1][2] and [1; 2] forms."""
    out: list[int] = []
    for match in _GROUP.finditer(text):
        out.extend(int(n) for n in re.findall(r"\d+", match.group(1)))
    return out


def replace_citations(text: str, render: Callable[[list[int]], str]) -> str:
    """`text` with every citation group replaced by `render(its numbers)` (same forms as above)."""
    return _GROUP.sub(lambda m: render([int(n) for n in re.findall(r"\d+", m.group(1))]), text)


class CitationStream:
    """Feed streamed text; `complete()` returns citations whose closing bracket has arrived."""

    def __init__(self, source_count: int) -> None:
        self.source_count = source_count
        self.text = ""
        self._seen = 0

    def feed(self, piece: str) -> list[int]:
        self.text += piece
        found: list[int] = []
        for match in _GROUP.finditer(self.text, self._seen):
            found.extend(int(n) for n in re.findall(r"\d+", match.group(1)))
            self._seen = match.end()
        return found

    def is_valid(self, number: int) -> bool:
        return 1 <= number <= self.source_count


def check(answer: str, sources: dict[int, str], language: str = "en") -> CitationReport:
    report = CitationReport()
    for number in numbers_in(answer):
        bucket = report.valid if number in sources else report.invalid
        if number not in bucket:
            bucket.append(number)
    source_terms = {n: set(_terms(t, language)) for n, t in sources.items()}
    for match in _SENTENCE.finditer(answer):
        sentence = match.group(0).strip()
        cites = [n for n in numbers_in(sentence) if n in sources]
        if not sentence or not cites:
            continue
        words = set(_terms(_GROUP.sub(" ", sentence), language))
        cited = set().union(*(source_terms[n] for n in cites))
        support = len(words & cited) / len(words) if words else 1.0
        report.sentences.append(
            {"text": sentence, "cites": cites, "support": round(support, 2),
             "weak": support < WEAK_SUPPORT}
        )  # fmt: skip
    return report


def _terms(text: str, language: str) -> list[str]:
    """Content words only: stems of words longer than three letters (a cheap stop-word filter)."""
    return [s for s in analyzer.stems([w for w in analyzer.words(text) if len(w) > 3], language)]
