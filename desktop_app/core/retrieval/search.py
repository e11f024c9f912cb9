"""Hybrid search: lexical + dense candidates, trust-weighted fusion, dedupe, floor, cap."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import sqlite_utils

from desktop_app.core.retrieval import analyzer, fusion, lexical
from desktop_app.core.retrieval.dense import Crossing, DenseHit, VectorIndex
from desktop_app.core.retrieval.embedder import TextEmbedder, similarity
from desktop_app.core.retrieval.languages import REGISTERED, registered, wordlists
from desktop_app.core.retrieval.scope import Scope, ScopedQuery
from desktop_app.core.store import chunks, meta, notes, scopes, vectors
from desktop_app.core.store.db import Database
from desktop_app.core.text import clean_text

QUERY_VECTORS = 256
MIN_WORDS_FOR_LANGUAGE = 3  # fewer words say too little of their language


@dataclass(frozen=True)
class SearchOptions:
    candidates: int = 60  # the wide net, per retriever
    min_relevance: float = 0.0  # fused score floor, relative to a perfect top-1 in both lists
    top_k: int = 10  # the final cap
    folder_ids: tuple[int, ...] | None = None
    scope: Scope | None = None  # folder, tag, path, days: filtered inside the search


@dataclass(frozen=True)
class SearchResult:
    path: str
    start: int
    end: int
    score: float
    text: str
    folder: str
    title: str
    heading_path: list[str]
    line_start: int
    line_end: int
    chunk_id: int
    note_id: int
    matched_terms: list[str]
    lexical_rank: int | None
    dense_rank: int | None
    coverage: float = 0.0  # share of the query's IDF mass this passage contains (lexical)
    evidence: float = 0.0  # the same over content words, by stem or prefix (the gate's signal)
    cosine: float | None = None  # dense similarity on the gate's scale (embedder.similarity)
    trusted_dense: bool = True  # whether the embedder knows the query's language
    crossed: bool = False  # in another language than the question (its words cannot match)
    seq: int = 0
    page: int | None = None  # the 1-based page a PDF passage starts on (None: no pages)
    page_end: int | None = None
    day: str | None = None  # ISO day of the passage (its dated section's, else its note's)
    written: str | None = None  # that day when the note's own words give it (not its file time)
    tags: list[str] = field(default_factory=list)  # its note's tags
    page_breaks: list[int] = field(default_factory=list)  # where its later pages begin

    def page_at(self, offset: int) -> int | None:
        """The page a character of this passage stands on (a passage may run on to the next)."""
        if self.page is None:
            return None
        return self.page + sum(1 for b in self.page_breaks if b <= offset)


@dataclass(frozen=True)
class ScopedSearch:
    query: ScopedQuery  # what was searched: the text without scope words, and the scope
    results: list[SearchResult]


class Searcher:
    """`embedder`: the index's model; `companion`: the multilingual model beside an English-only
    one (its own vectors of every passage reach the languages the model cannot read)."""

    def __init__(
        self,
        database: Database,
        embedder: TextEmbedder | None,
        companion: TextEmbedder | None = None,
    ) -> None:
        self.database = database
        self.embedder = embedder
        self.companion = companion if embedder is not None else None
        self.vectors = VectorIndex()
        self.companion_vectors = VectorIndex(vectors.COMPANION)
        self._languages: tuple[str, dict[str, int]] | None = None
        self._vectors_by_query: dict[tuple[str, str], np.ndarray] = {}

    def query_vector(self, query: str, embedder: TextEmbedder | None = None) -> np.ndarray:
        """Typing searches each prefix once, a chat the same question several times: the last
        QUERY_VECTORS vectors are kept (`embedder`: the index's model by default)."""
        embedder = embedder or self.embedder
        assert embedder is not None
        key = (embedder.model_id, query)
        vector = self._vectors_by_query.get(key)
        if vector is None:
            vector = embedder.encode_query([query])[0]
            self._vectors_by_query[key] = vector
            while len(self._vectors_by_query) > QUERY_VECTORS:
                self._vectors_by_query.pop(next(iter(self._vectors_by_query)))
        return vector

    def index_languages(self) -> dict[str, int]:
        """The notes' languages with their numbers of notes, read again only when the index
        changed."""
        with self.database.read() as db:
            version = meta.data_version(db)
            cached = self._languages
            if cached is None or cached[0] != version:
                cached = self._languages = (version, notes.note_languages(db))
        return cached[1]

    def query_language(self, query: str) -> str:
        languages = self.index_languages()
        if len(languages) == 1:
            return next(iter(languages))
        return analyzer.detect_language(query, list(languages) or None, prior=languages)

    def asked_language(self, query: str) -> str | None:
        """The language the question is written in, by its own words (not the notes' prior,
        nor the names it holds, when enough words are left without them); None when it has
        too few words to tell."""
        if len(analyzer.words(query)) < MIN_WORDS_FOR_LANGUAGE:
            return None
        told = analyzer.without_names(query)
        if len(analyzer.words(told)) < MIN_WORDS_FOR_LANGUAGE:
            told = query
        candidates = {language.code for language in REGISTERED} | set(self.index_languages())
        return analyzer.detect_language(told, sorted(candidates))

    @property
    def _multilingual(self) -> bool:
        """An embedder for every language: across languages, words give way to it."""
        if self.embedder is None:
            return False
        return self.embedder.multilingual or self.companion is not None

    @property
    def meaning(self) -> TextEmbedder | None:
        """The model that reads every language here: the companion, else a multilingual index
        model (None: neither)."""
        if self.companion is not None or self.embedder is None:
            return self.companion
        return self.embedder if self.embedder.multilingual else None

    def knows(self, language: str) -> bool:
        """Whether the index's own model reads `language` (unknown models: every one)."""
        known = self.embedder.languages if self.embedder else None
        return known is None or language in known

    def _crossed(
        self, db: sqlite_utils.Database, asked: str | None, found: list[int]
    ) -> frozenset[int]:
        """The passages found (`found`: chunk ids) in another language than the question's
        (`asked`; the multilingual embedder alone can say whether they answer it)."""
        if asked is None:
            return frozenset()
        found_languages = chunks.chunk_languages(db, list(dict.fromkeys(found)))
        return frozenset(
            cid for cid, language in found_languages.items() if language and language != asked
        )

    def search(self, query: str, options: SearchOptions | None = None) -> list[SearchResult]:
        options = options or SearchOptions()
        with self.database.read() as db:  # one connection (one snapshot) for the whole search
            return self._search(db, clean_text(query), options)

    def _search(
        self, db: sqlite_utils.Database, query: str, options: SearchOptions
    ) -> list[SearchResult]:
        asked = self.asked_language(query) if self._multilingual else None
        terms = lexical.analyze_query(query, self.query_language(query), self._ignored(asked))
        scope = options.scope if options.scope and not options.scope.empty else None
        stored = scope.stored() if scope else None
        if stored is not None and not query.strip():  # "last week", "tag:recipes": list them
            return self._newest(db, stored, options)
        within = scopes.scope_select(db, stored) if stored else None
        lex_hits = lexical.search_lexical(db, terms, options.candidates, within)
        dense_hits, companion_hits = self._dense_lists(db, query, within, asked, options)
        language = asked or terms.language
        main_languages = self.embedder.languages if self.embedder else None
        weights = fusion.trust_weights(
            lex_hits, dense_hits or companion_hits, language, main_languages
        )
        if companion_hits:  # (none while it embeds again: the model's list counts as before)
            weights = fusion.with_companion(weights, self.knows(language))
        found = [h.chunk_id for h in lex_hits] + [h.chunk_id for h in dense_hits + companion_hits]
        crossed = self._crossed(db, asked, found) if dense_hits or companion_hits else frozenset()
        if crossed and any(cid not in crossed for cid in found):  # several languages found
            weights = fusion.seen_in_part(weights)
        ranked, beside = dense_hits, companion_hits
        if companion_hits and self.knows(language):  # one list, each model where it reads
            ranked, beside = fusion.interleaved(dense_hits, companion_hits, crossed), []
        named = _naming(lex_hits, crossed, language)
        fused = fusion.fuse(lex_hits, ranked, weights, fusion.RRF_C, crossed, beside, named)
        signals = _Signals(
            matched={h.chunk_id: h.matched for h in lex_hits},
            coverage={h.chunk_id: h.coverage for h in lex_hits},
            evidence={h.chunk_id: h.evidence for h in lex_hits},
            cosine=self._cosines(dense_hits, companion_hits, crossed, self.knows(language)),
            trusted_dense=weights.dense >= 0.5 or (weights.companion > 0 and bool(companion_hits)),
            crossed=crossed,
        )
        return self._materialize(db, fused, signals, options)

    def _dense_lists(
        self,
        db: sqlite_utils.Database,
        query: str,
        within: tuple[str, list[Any]] | None,
        asked: str | None,
        options: SearchOptions,
    ) -> tuple[list[DenseHit], list[DenseHit]]:
        """The index model's nearest passages and the companion's (empty without them)."""
        if self.embedder is None or not query.strip():
            return [], []
        allowed = None
        if within is not None:  # the same selection the lexical query filtered on
            allowed = np.asarray(scopes.chunk_ids(db, within), dtype=np.int64)
        dense = self._dense(db, self.vectors, self.embedder, query, allowed, asked, options)
        if self.companion is None:
            return dense, []
        companion, index = self.companion, self.companion_vectors
        return dense, self._dense(db, index, companion, query, allowed, asked, options)

    def _ignored(self, asked: str | None) -> frozenset[str]:
        """The question's function words, left out where the multilingual model ranks: they
        would rank a note only for sharing the question's language."""
        if asked is None or (self.knows(asked) and self.companion is not None):
            return frozenset()
        return _function_words(asked)

    def _dense(
        self,
        db: sqlite_utils.Database,
        index: VectorIndex,
        embedder: TextEmbedder,
        query: str,
        allowed: np.ndarray | None,
        asked: str | None,
        options: SearchOptions,
    ) -> list[DenseHit]:
        """The nearest passages by `embedder`'s vectors in `index`. With a multilingual model and
        a question whose language is known, a passage in another language ranks by its cosine
        raised as the gate reads it."""
        index.refresh(db)
        if not index.size:
            return []
        crossing = None
        if asked is not None and embedder.multilingual:
            crossing = Crossing(asked, embedder.crossed_shift)
        vector = self.query_vector(query, embedder)
        return index.search(vector, options.candidates, allowed, crossing)

    def _cosines(
        self,
        dense_hits: list[DenseHit],
        companion_hits: list[DenseHit],
        crossed: frozenset[int],
        knows: bool,
    ) -> dict[int, float]:
        """Each found passage's cosine on the gate's scale, by the model that reads the pair of
        languages: the index's own within a language it knows, else the companion's."""
        companion = self.companion

        def by_companion(chunk_id: int) -> bool:
            return companion is not None and (not knows or chunk_id in crossed)

        cosines = {}
        lists = ((self.embedder, dense_hits, False), (companion, companion_hits, True))
        for model, hits, wanted in lists:
            for hit in hits:
                if model is not None and by_companion(hit.chunk_id) == wanted:
                    cosines[hit.chunk_id] = similarity(model, hit.score, hit.chunk_id in crossed)
        return cosines

    def following(self, passage: SearchResult) -> SearchResult | None:
        """The passage right after `passage` in its note (None at the note's end), with no
        ranking signals of its own: it is read as the rest of `passage`, at its score."""
        with self.database.read() as db:
            chunk_id = chunks.chunk_after(db, passage.note_id, passage.seq)
            if chunk_id is None:
                return None
            item = fusion.Fused(chunk_id, passage.score, None, None)
            one = SearchOptions(top_k=1, min_relevance=0.0)
            found = self._materialize(db, [item], _Signals.none(passage.trusted_dense), one)
        return found[0] if found else None

    def _newest(
        self, db: sqlite_utils.Database, stored: scopes.ChunkFilter, options: SearchOptions
    ) -> list[SearchResult]:
        """A scope with nothing else asked: its passages, newest day first."""
        ids = scopes.newest_chunk_ids(db, stored, options.top_k * 3)
        fused = [fusion.Fused(i, 1.0, None, None) for i in ids]  # all equally inside
        everything = replace(options, min_relevance=0.0)
        return self._materialize(db, fused, _Signals.none(trusted_dense=False), everything)

    def _materialize(
        self,
        db: sqlite_utils.Database,
        fused: list[fusion.Fused],
        signals: _Signals,
        options: SearchOptions,
    ) -> list[SearchResult]:
        results: list[SearchResult] = []
        seen_texts: set[str] = set()
        batch = max(options.top_k * 3, 30)
        for i in range(0, len(fused), batch):
            window = [f for f in fused[i : i + batch] if f.score >= options.min_relevance]
            rows = chunks.chunk_details(db, [f.chunk_id for f in window], options.folder_ids)
            for item in window:
                row = rows.get(item.chunk_id)
                if row is None or row.text in seen_texts:
                    continue
                seen_texts.add(row.text)
                results.append(_result(row, item, signals))
                if len(results) >= options.top_k:
                    return results
        return results


@dataclass(frozen=True)
class _Signals:
    matched: dict[int, tuple[str, ...]]
    coverage: dict[int, float]
    evidence: dict[int, float]
    cosine: dict[int, float]
    trusted_dense: bool
    crossed: frozenset[int] = frozenset()

    @classmethod
    def none(cls, trusted_dense: bool) -> _Signals:
        """No ranking signals: passages listed, not ranked by the query."""
        return cls({}, {}, {}, {}, trusted_dense)


def _result(row: chunks.ChunkDetail, item: fusion.Fused, signals: _Signals) -> SearchResult:
    chunk_id = row.id
    return SearchResult(
        path=row.path,
        start=row.start,
        end=row.end,
        score=round(item.score, 6),
        text=row.text,
        folder=row.folder,
        title=row.title or "",
        heading_path=json.loads(row.heading_path or "[]"),
        line_start=row.line_start,
        line_end=row.line_end,
        chunk_id=chunk_id,
        note_id=row.note_id,
        matched_terms=list(signals.matched.get(chunk_id, ())),
        lexical_rank=item.lexical_rank,
        dense_rank=item.dense_rank,
        coverage=round(signals.coverage.get(chunk_id, 0.0), 4),
        evidence=round(signals.evidence.get(chunk_id, 0.0), 4),
        cosine=signals.cosine.get(chunk_id),
        trusted_dense=signals.trusted_dense,
        crossed=chunk_id in signals.crossed,
        seq=row.seq,
        page=row.page_start,
        page_breaks=_page_breaks(row),
        page_end=row.page_end,
        day=row.day,
        written=row.written,
        tags=(row.tags or "").split(),
    )


def _page_breaks(row: chunks.ChunkDetail) -> list[int]:
    """Where the pages after its first begin, for a passage over a page break."""
    if not row.paged:
        return []
    try:
        pages = json.loads(row.paged).get("pages", [])
    except (ValueError, AttributeError):
        return []
    return [p for p in pages if isinstance(p, int) and row.start < p < row.end]


def _function_words(language: str | None) -> frozenset[str]:
    """The words a question in `language` asks with but that say nothing of its topic ("in",
    "das"): with a multilingual embedder they would rank a note only for sharing the language."""
    known = registered(language) if language else None
    return known.function_words if known else frozenset()  # folded, as the query's words are


def _naming(
    hits: list[lexical.LexicalHit], crossed: frozenset[int], language: str
) -> frozenset[int]:
    """The passages in another language (`crossed`) whose keyword match holds a word of the
    question that is no word of its `language`: a name the two share ("svíčková" asked in
    English of a Czech note) matches as in one language; a word both languages merely spell
    alike does not."""
    matched = [h for h in hits if h.chunk_id in crossed and h.matched]
    if not matched:
        return frozenset()
    foreign = wordlists.foreign_words({w for h in matched for w in h.matched}, language)
    return frozenset(h.chunk_id for h in matched if foreign.intersection(h.matched))
