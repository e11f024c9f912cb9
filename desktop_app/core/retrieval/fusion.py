"""Fuse lexical and dense rankings, weighting each by how far it can be trusted for this query.

Plain RRF treats both retrievers as equals. They are not: an English-only embedder is weak on
Czech or German, and BM25 is weak when the question uses other words than the note. So each
list gets a weight from two query-level signals, both computed from the results themselves:

- dense trust falls when the query language is one the embedding model was not trained on;
- lexical trust rises with how much of the query's IDF mass the best lexical hit contains
  (a question that shares its rare words with a passage is a keyword question);
- a passage in another language than the question's matches it by words only by chance (a
  name, a number, a word two languages share): its lexical rank counts little, and what finds
  it is the multilingual embedder; and when the passages found are in several languages, the
  keyword list, which sees only the question's, loses its base trust (`seen_in_part`);
- beside an English-only model, the multilingual companion ranks what that model cannot read:
  for a question the model reads, the companion places the passages of each language and the
  model chooses which of its own language fill their places (`interleaved`); for a question
  it cannot read, the companion takes its place (`with_companion`). English questions over
  English notes rank exactly as without it.

Within that, passages that contain every content word of the query (by stem, not only by
its five-letter prefix) are listed first, each group in fused-score order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from desktop_app.core.retrieval.dense import DenseHit
from desktop_app.core.retrieval.lexical import LexicalHit

RRF_C = 60.0
# An English-only MiniLM ranks Czech or German passages so poorly that any real weight lowers
# the fused ranking; it is kept only as a tie-breaker.
OUT_OF_LANGUAGE_DENSE = 0.01
# Lexical weight = LEXICAL_BASE + IDF coverage of the query by the best lexical hits (0…1).
LEXICAL_BASE = 0.5
# The share of its lexical weight a passage in another language than the question keeps.
CROSSED_LEXICAL = 0.1
# The companion's list within the question's own language, beside the keywords: at full weight
# its ranking outweighs a strong keyword match (chosen on development questions, docs/retrieval).
COMPANION_SAME = 0.3


@dataclass(frozen=True)
class Weights:
    lexical: float
    dense: float
    companion: float = 0.0  # the companion's list within the question's language


def with_companion(weights: Weights, model_knows_language: bool) -> Weights:
    """The weights with the multilingual companion's list beside the index model's. Where the
    model knows the question's language its list keeps its weight (the companion's places go
    into it: `interleaved`); elsewhere the companion takes the model's place, at COMPANION_SAME
    within the question's language (full weight among passages of several: `seen_in_part`)."""
    if model_knows_language:
        return replace(weights, companion=0.0)
    return Weights(weights.lexical, 0.0, COMPANION_SAME)


@dataclass(frozen=True)
class Fused:
    chunk_id: int
    score: float
    lexical_rank: int | None
    dense_rank: int | None


def trust_weights(
    lexical: Sequence[LexicalHit],
    dense: Sequence[DenseHit],
    language: str,
    embedder_languages: frozenset[str] | None,
) -> Weights:
    if not dense:
        return Weights(1.0, 0.0)
    if not lexical:
        return Weights(0.0, 1.0)
    in_language = embedder_languages is None or language in embedder_languages
    dense_weight = 1.0 if in_language else OUT_OF_LANGUAGE_DENSE
    coverage = max(h.coverage for h in lexical[:3])
    lexical_weight = LEXICAL_BASE + coverage
    return Weights(lexical_weight, dense_weight)


def interleaved(
    dense: Sequence[DenseHit], companion: Sequence[DenseHit], crossed: frozenset[int]
) -> list[DenseHit]:
    """One meaning list for a question the index model reads, over passages in its language and
    in others: the companion's list decides where a passage in the question's language stands
    and where one in another language does (its cosines are comparable across languages), and
    the index model decides which passage of the question's language fills each such place.
    Without passages in other languages this is the index model's own list."""
    own = (hit for hit in dense if hit.chunk_id not in crossed)
    placed: set[int] = set()
    merged: list[DenseHit] = []
    for hit in companion:
        chosen = hit if hit.chunk_id in crossed else next(own, None)
        if chosen is None and hit.chunk_id not in crossed:
            chosen = hit  # the index model has no more: the companion's own choice
        if chosen is not None and chosen.chunk_id not in placed:
            placed.add(chosen.chunk_id)
            merged.append(chosen)
    merged += [hit for hit in own if hit.chunk_id not in placed]
    return merged


def seen_in_part(weights: Weights) -> Weights:
    """The weights when the passages found are in the question's language and in others: the
    keyword list can only see those in the question's language, so it keeps the trust its
    matches earn (their coverage of the question) and not the base trust of a list that sees
    every passage that could answer. The companion's list sees every language: it ranks the
    question's own at full weight too, as it ranks the others (at COMPANION_SAME the passages in
    other languages would outrank the question's)."""
    lexical = max(0.0, weights.lexical - LEXICAL_BASE)
    return replace(weights, lexical=lexical, companion=1.0 if weights.companion else 0.0)


def fuse(
    lexical: Sequence[LexicalHit],
    dense: Sequence[DenseHit],
    weights: Weights,
    c: float = RRF_C,
    crossed: frozenset[int] = frozenset(),
    companion: Sequence[DenseHit] = (),
    named: frozenset[int] = frozenset(),
) -> list[Fused]:
    """`crossed`: chunks in another language than the question's (their keyword matches count
    CROSSED_LEXICAL, except those in `named`: they hold a word of the question that is no word
    of its language, a name the two share); `companion`: the multilingual companion's list in
    the index model's place (a crossed passage in it counts in full, others at
    `weights.companion`)."""
    scores: dict[int, float] = {}
    lex_rank: dict[int, int] = {}
    dense_rank: dict[int, int] = {}
    for rank, hit in enumerate(lexical, start=1):
        lex_rank[hit.chunk_id] = rank
        discounted = hit.chunk_id in crossed and hit.chunk_id not in named
        weight = weights.lexical * (CROSSED_LEXICAL if discounted else 1.0)
        scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + weight / (c + rank)
    for rank, near in enumerate(dense if weights.dense else (), start=1):
        dense_rank[near.chunk_id] = rank
        scores[near.chunk_id] = scores.get(near.chunk_id, 0.0) + weights.dense / (c + rank)
    companion_top = 0.0
    for rank, near in enumerate(companion, start=1):
        weight = 1.0 if near.chunk_id in crossed else weights.companion
        if weight:
            dense_rank.setdefault(near.chunk_id, rank)
            scores[near.chunk_id] = scores.get(near.chunk_id, 0.0) + weight / (c + rank)
            companion_top = max(companion_top, weight)
    norm = (weights.lexical + weights.dense + companion_top) / (c + 1) or 1.0
    # Passages holding every content word of the query (by stem) come first: a note that has
    # the rare word itself outranks any that only share its first letters or its meaning.
    exact = {hit.chunk_id for hit in lexical if hit.exact}
    ordered = sorted(scores.items(), key=lambda kv: (kv[0] not in exact, -kv[1]))
    return [
        Fused(cid, score / norm, lex_rank.get(cid), dense_rank.get(cid)) for cid, score in ordered
    ]
