"""Check a generated answer against its sources, after the fact.

- Post-hoc attribution: a sentence that cites no valid source gets the `[n]` of the source that
  supports it when the support is strong (most of its content words are in that source), so an
  answer that cites nothing still ends up cited where the notes back it. The model's own valid
  `[n]` stay; invalid numbers are left as text (they never become links).
- Invented figures: every number, date and name of the answer that appears in none of the
  sources is reported with its span, so it can be marked in place as not found in the notes.
- What must be verbatim (code, commands, flags, paths, URLs, identifiers, quotations; see
  `verbatim`) and is in no source is reported the same way, and its sentence gets no `[n]`.
- Citation numbers that are no source of this answer are taken out of the text (`invalid`
  lists them once), so they are never shown as if they were sources.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from desktop_app.core.answer import figures, verbatim
from desktop_app.core.answer.citations import numbers_in, without_citations_of
from desktop_app.core.answer.support import (
    CITATION,
    CITED_SENTENCE,
    STRONG_SUPPORT,
    WEAK_SUPPORT,
    support,
)
from desktop_app.core.events import AddedCitation, Unfound

MIN_SHARED = 2  # a source added must share this many words (or all of a short sentence's)
NOT_FOUND = "not found in the notes"
NOTES_SAY = verbatim.NOTES_SAY


@dataclass
class Checked:
    answer: str  # the answer with the added citations
    added: list[AddedCitation] = field(default_factory=list)
    unsupported: list[Unfound] = field(default_factory=list)  # in the answer's order
    invalid: list[int] = field(default_factory=list)  # cited numbers that are no source

    def marked(self, render: Any = None) -> str:
        """The answer with every unsupported figure marked in place."""
        render = render or (lambda text: f"{text} ({NOT_FOUND})")
        out, pos = [], 0
        for figure in self.unsupported:
            out += [self.answer[pos : figure.start], render(figure.text)]
            pos = figure.end
        return "".join(out) + self.answer[pos:]


def attribute(answer: str, sources: dict[int, str], language: str = "en") -> Checked:
    """Add `[n]` where a source strongly backs a sentence that cites no source backing it and
    holds nothing verbatim that no source holds; drop the numbers of no source."""
    answer, invalid = without_citations_of(answer, lambda n: n not in sources)
    unfound = verbatim.unfound(answer, list(sources.values()))
    out, added, pos = [], [], 0
    for match in CITED_SENTENCE.finditer(answer):
        sentence = match.group(0)
        out.append(answer[pos : match.start()])
        pos = match.end()
        forged = any(s.start < match.end() and match.start() < s.end for s in unfound)
        number, share = (0, 0.0) if forged else _backing(sentence, sources, language)
        if number:
            sentence = _cite(sentence, number)
            added.append(AddedCitation(match.group(0).strip(), number, round(share, 2)))
        out.append(sentence)
    out.append(answer[pos:])
    text = "".join(out)
    return Checked(text, added, unsupported(text, list(sources.values()), language), invalid)


def unsupported(answer: str, source_texts: list[str], language: str = "en") -> list[Unfound]:
    """What the answer states that no source holds: what must be verbatim and is not, and the
    figures (numbers, dates, names) outside those spans; in text order."""
    spans = verbatim.unfound(answer, source_texts)
    out = [Unfound(s.text, s.start, s.end, s.kind) for s in spans]
    figures_alone = unsupported_figures(answer, source_texts, language)
    out += [f for f in figures_alone if not any(s.start < f.end and f.start < s.end for s in spans)]
    return sorted(out, key=lambda f: f.start)


def _backing(sentence: str, sources: dict[int, str], language: str) -> tuple[int, float]:
    """The source to add to the sentence (0 if none): the one that backs it strongly, when the
    model cited no source or only sources that hardly back it (their `[n]` stay)."""
    if not sentence.strip():
        return 0, 0.0
    support_of = {n: support(sentence, text, language) for n, text in sources.items()}
    cited = [n for n in numbers_in(sentence) if n in sources]
    if any(support_of[n][0] >= WEAK_SUPPORT for n in cited):
        return 0, 0.0
    others = [n for n in sources if n not in cited]
    best = max(others, key=lambda n: support_of[n][0], default=0)
    if not best or not support_of[best][1]:  # a source sharing no word backs nothing
        return 0, 0.0
    share, shared = support_of[best]
    if share >= STRONG_SUPPORT and (shared >= MIN_SHARED or share == 1.0):
        return best, share
    if (
        share >= WEAK_SUPPORT
        and shared >= MIN_SHARED
        and _figures_all_in(sentence, sources[best], language)
    ):
        return best, share
    return 0, 0.0


def _figures_all_in(sentence: str, source: str, language: str) -> bool:
    """The sentence states a number, date or name, and every one of them is in the source: a
    paraphrase ("The train takes four hours") of a note that holds them ("vier Stunden")."""
    found = list(figures.figures(CITATION.sub(" ", sentence), language))
    values, words = figures.source_values([source])
    return bool(found) and all(figures.found_in(f, values, words) for f in found)


def _cite(sentence: str, number: int) -> str:
    """`[n]` before the sentence's closing punctuation (and its trailing space or newline)."""
    body = sentence.rstrip()
    tail = sentence[len(body) :]
    end = len(body.rstrip(".!?"))
    return f"{body[:end]} [{number}]{body[end:]}{tail}"


def unsupported_figures(
    answer: str, source_texts: list[str], language: str = "en"
) -> list[Unfound]:
    """Numbers, dates and names of `answer` found in none of the sources (citations ignored)."""
    blanked = verbatim.blank_citations(answer)
    values, words = figures.source_values(source_texts)
    out = []
    for figure in sorted(figures.figures(blanked, language), key=lambda f: f.start):
        if not figures.found_in(figure, values, words):
            out.append(Unfound(figure.text, figure.start, figure.end, figure.kind))
    return out
