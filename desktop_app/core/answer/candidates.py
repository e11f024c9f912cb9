"""The units evidence chooses from: those worth showing of the first passages read."""

from __future__ import annotations

from collections.abc import Container, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from desktop_app.core.answer.units import SENTENCE, Unit, split_units, words_of
from desktop_app.core.retrieval import analyzer

if TYPE_CHECKING:
    from desktop_app.core.retrieval.search import SearchResult

PASSAGES_READ = 4  # the top passages split into units
MIN_UNIT_WORDS = 3


def candidate_units(
    results: Sequence[SearchResult], numbered: Container[int]
) -> Iterator[tuple[SearchResult, Unit, int]]:
    """The units worth showing of the first PASSAGES_READ results that are prompt sources (chunk
    ids in `numbered`), each with its passage and the passage's rank among them."""
    for rank, r in enumerate(r for r in results if r.chunk_id in numbered):
        if rank >= PASSAGES_READ:
            return
        heading = r.heading_path[-1] if r.heading_path else ""
        for u in split_units(r.text, r.start):
            if worth_showing(u, r):
                yield r, (u if u.heading else replace(u, heading=heading)), rank


def worth_showing(unit: Unit, r: SearchResult) -> bool:
    """Not a fragment of two words, not the note's title line repeated."""
    if unit.kind == SENTENCE and len(analyzer.words(words_of(unit.text))) < MIN_UNIT_WORDS:
        return False
    return unit.text.strip() != (r.title or "").strip()
