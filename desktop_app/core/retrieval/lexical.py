"""BM25 over FTS5: language-aware query terms, safely quoted, very common terms pruned."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from desktop_app.core.retrieval import analyzer, languages
from desktop_app.core.store import chunks, fts
from desktop_app.core.store.fts import Within
from desktop_app.core.text import clean_text

# Column weights for bm25(): stems of the body, five-letter prefixes of the body, and the
# note title / heading path / tags. Prefixes back up the stemmer (compounds, unknown forms).
BODY_WEIGHT = 1.0
PREFIX_WEIGHT = 0.4
CONTEXT_WEIGHT = 0.6
# A term in more than this share of chunks carries almost no BM25 weight but costs a long
# posting-list scan; it is dropped when rarer terms remain.
COMMON_TERM_SHARE = 0.25
MAX_QUERY_WORDS = 100


@dataclass(frozen=True)
class QueryTerms:
    language: str
    stems: tuple[str, ...]
    prefixes: tuple[str, ...]
    words: tuple[tuple[str, str, str], ...] = ()  # (word, its stem, its prefix)

    @property
    def empty(self) -> bool:
        return not self.stems and not self.prefixes


@dataclass(frozen=True)
class LexicalHit:
    chunk_id: int
    score: float  # positive, larger is better
    matched: tuple[str, ...]  # query words in the chunk: by stem, or verbatim in its text
    coverage: float  # share of the query's IDF mass that the chunk contains
    evidence: float = 0.0  # the same for content words, by stem or prefix (the gate's signal)
    exact: bool = False  # holds every content word of the query by stem, not just by prefix


def analyze_query(query: str, language: str, dropped: frozenset[str] = frozenset()) -> QueryTerms:
    """A query's terms; only its first MAX_QUERY_WORDS distinct words count, so a pasted page
    costs no more than a long question. `dropped`: folded words left out, if any other is left."""
    tokens = list(dict.fromkeys(analyzer.words(clean_text(query))))[:MAX_QUERY_WORDS]
    kept = [t for t in tokens if analyzer.fold(t) not in dropped]
    tokens = kept or tokens
    stems = analyzer.stems(tokens, language)
    prefixes = analyzer.prefixes(tokens)
    words = [(w, s, p) for w, s, p in zip(tokens, stems, prefixes, strict=True) if s and p]
    return QueryTerms(
        language,
        tuple(dict.fromkeys(s for _, s, _ in words)),
        tuple(dict.fromkeys(p for _, _, p in words)),
        tuple(words),
    )


def quote(term: str) -> str:
    """An FTS5 string literal: user text can never become syntax (NOT, *, -, quotes…)."""
    return '"' + term.replace('"', '""') + '"'


def doc_freqs(db: sqlite_utils.Database, terms: set[str]) -> dict[str, int]:
    """In how many chunks each term (a stem or a prefix) stands; terms in none are left out."""
    return fts.doc_freqs(db, terms)


def term_weights(db: sqlite_utils.Database, terms: list[str]) -> dict[str, float]:
    """The IDF of each term over the whole index (the weights BM25 and the gate use)."""
    total = chunks.chunk_count(db)
    df = doc_freqs(db, set(terms))
    return {t: idf(df.get(t, 0), total) for t in terms}


def _prune_common(terms: tuple[str, ...], df: dict[str, int], total: int) -> tuple[str, ...]:
    present = [t for t in terms if df.get(t, 0) > 0]
    if not present:
        return ()
    rare = [t for t in present if df[t] <= COMMON_TERM_SHARE * total]
    if rare:
        return tuple(rare)
    return (min(present, key=lambda t: df[t]),)


def idf(df: int, total: int) -> float:
    return math.log(1 + (total - df + 0.5) / (df + 0.5))


def search_lexical(
    db: sqlite_utils.Database, terms: QueryTerms, limit: int, within: Within | None = None
) -> list[LexicalHit]:
    """BM25 candidates; `within` (a query of chunk ids and its parameters) filters inside
    the FTS query, so a scope never costs an over-fetch."""
    if terms.empty:
        return []
    total = chunks.chunk_count(db)
    df = doc_freqs(db, set(terms.stems) | set(terms.prefixes))
    stems = _prune_common(terms.stems, df, total)
    prefixes = _prune_common(terms.prefixes, df, total)
    clauses = []
    if stems:
        clauses.append("{body context} : (" + " OR ".join(quote(t) for t in stems) + ")")
    if prefixes:
        clauses.append("prefixes : (" + " OR ".join(quote(t) for t in prefixes) + ")")
    if not clauses:
        return []
    rows = _rows(db, " OR ".join(clauses), limit, within)
    required = {s for w, s, _ in terms.words if languages.is_content_word(w)}
    if required and all(df.get(t, 0) for t in required):
        # Passages holding every content word by stem are candidates even when many short
        # prefix-only matches outscore them in BM25 (they are ranked first by the fusion).
        seen = {row[0] for row in rows}
        exact = " AND ".join(
            "{body context} : " + quote(t) for t in _prune_common(tuple(required), df, total)
        )
        rows += [row for row in _rows(db, exact, limit, within) if row[0] not in seen]
    weights = {t: idf(df.get(t, 0), total) for t in terms.stems}
    mass = sum(weights.values()) or 1.0
    content = _content_words(terms)
    content_mass = sum(weights[stem] for _, stem, _ in content) or 1.0
    hits = []
    for rowid, score, body, body_prefixes, context in rows:
        present = set(body.split()) | set(context.split())
        present_prefixes = set(body_prefixes.split())
        coverage = sum(weights[t] for t in terms.stems if t in present) / mass
        found = sum(
            weights[stem]
            for _, stem, prefix in content
            if stem in present or prefix in present_prefixes
        )
        matched = _matched(db, int(rowid), terms, present, present_prefixes)
        holds_all = bool(required) and required <= present
        hits.append(
            LexicalHit(int(rowid), float(score), matched, coverage, found / content_mass, holds_all)
        )
    return hits


def _rows(
    db: sqlite_utils.Database, match: str, limit: int, within: Within | None = None
) -> list[Any]:
    weights = (BODY_WEIGHT, PREFIX_WEIGHT, CONTEXT_WEIGHT)
    return fts.bm25_rows(db, match, weights, limit, within)


def _matched(
    db: sqlite_utils.Database,
    chunk_id: int,
    terms: QueryTerms,
    present: set[str],
    present_prefixes: set[str],
) -> tuple[str, ...]:
    """The query words a chunk holds by stem, or word for word where only the prefix matched
    (another language's stemmer): never a word that merely shares five letters with one."""
    by_stem = [word for word, stem, _ in terms.words if stem in present]
    by_prefix = [
        w for w, stem, prefix in terms.words if stem not in present and prefix in present_prefixes
    ]
    if by_prefix:
        text = chunks.chunk_text(db, chunk_id)
        folded = {analyzer.fold(w) for w in analyzer.words(text)}
        by_stem += [w for w in by_prefix if analyzer.fold(w) in folded]
    return tuple(w for w, _, _ in terms.words if w in by_stem)


def _content_words(terms: QueryTerms) -> list[tuple[str, str, str]]:
    """The query's key words (`languages.key_words`), one per stem; all its words, one per
    stem, if it has none."""
    key = set(languages.key_words(w for w, _, _ in terms.words))
    by_stem = {stem: (w, stem, p) for w, stem, p in terms.words if w in key}
    return list(by_stem.values()) or list({s: (w, s, p) for w, s, p in terms.words}.values())
