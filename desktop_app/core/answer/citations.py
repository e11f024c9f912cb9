"""`[n]` citations: found while streaming, validated against the prompt's sources, and each cited
sentence checked cheaply for support (shared content words with the cited passage) and for what
it must quote verbatim: a sentence holding code, a command or a quotation that no source holds
is `unverified`, and its `[n]` vouch for nothing."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from desktop_app.core.answer import verbatim
from desktop_app.core.retrieval import analyzer

CITATION_GROUP = verbatim.CITATION  # one `[n]`, `[1, 3]` or `[1; 2]` group (numbers: group 1)
# A sentence's body: a point with no space after it ("1.160.000", "3.5", "`.mise.local.toml`",
# "os.path") ends no sentence, so no `[n]` is ever put inside a number, a name or code.
SENTENCE_BODY = r"(?:[^.!?\n]|[.!?](?=[^\s\[.!?]))+"
_SENTENCE = re.compile(SENTENCE_BODY + r"(?:[.!?]+|\n|$)")
WEAK_SUPPORT = 0.35


@dataclass
class CitationReport:
    valid: list[int] = field(default_factory=list)  # source numbers cited and present
    invalid: list[int] = field(default_factory=list)  # numbers that are not sources of this prompt
    # text, start, end (in the answer), cites, support, weak, unverified
    sentences: list[dict] = field(default_factory=list)

    @property
    def backed_sentences(self) -> list[dict]:
        """The sentences that cite a source supporting them, holding nothing unfound verbatim."""
        return [s for s in self.sentences if s["cites"] and not s["weak"] and not s["unverified"]]

    @property
    def backed(self) -> bool:
        return bool(self.backed_sentences)


def numbers_in(text: str) -> list[int]:
    """All cited numbers in order of appearance: [1], [1, 3], [1][2] and [1; 2] forms."""
    out: list[int] = []
    for match in CITATION_GROUP.finditer(text):
        out.extend(int(n) for n in re.findall(r"\d+", match.group(1)))
    return out


def replace_citations(text: str, render: Callable[[list[int]], str]) -> str:
    """`text` with every citation group replaced by `render(its numbers)` (same forms as above)."""
    return CITATION_GROUP.sub(lambda m: render(numbers_in(m.group(0))), text)


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

    text = re.sub(r"\0+(?=\[)", "", CITATION_GROUP.sub(keep, text))  # "[3][1]": the space stays
    return re.sub(r"[ \t]*\0+", "", text), dropped


class CitationStream:
    """Feed streamed text; `complete()` returns citations whose closing bracket has arrived."""

    def __init__(self, source_count: int) -> None:
        self.source_count = source_count
        self.text = ""
        self._seen = 0

    def feed(self, piece: str) -> list[int]:
        self.text += piece
        found: list[int] = []
        for match in CITATION_GROUP.finditer(self.text, self._seen):
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
    unfound = verbatim.unfound(answer, list(sources.values()))
    for match in _SENTENCE.finditer(answer):
        sentence = match.group(0).strip()
        cites = [n for n in numbers_in(sentence) if n in sources]
        if not sentence or not cites:
            continue
        words = set(_terms(CITATION_GROUP.sub(" ", sentence), language))
        cited = set().union(*(source_terms[n] for n in cites))
        support = len(words & cited) / len(words) if words else 1.0
        start = match.start() + len(match.group(0)) - len(match.group(0).lstrip())
        end = start + len(sentence)
        report.sentences.append(
            {"text": sentence, "start": start, "end": end, "cites": cites,
             "support": round(support, 2), "weak": support < WEAK_SUPPORT,
             "unverified": any(u.start < end and start < u.end for u in unfound)}
        )  # fmt: skip
    return report


def _terms(text: str, language: str) -> list[str]:
    """Content words only: stems of words longer than three letters (a cheap stop-word filter)."""
    return [s for s in analyzer.stems([w for w in analyzer.words(text) if len(w) > 3], language)]
