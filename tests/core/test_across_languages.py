"""The rules that let a multilingual embedder answer across languages (fast: fakes and pure
functions; tests/core/test_cross_lingual.py runs the real model)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import sqlite_utils

from desktop_app.core.answer import evidence, gate
from desktop_app.core.answer.ask import crossed_raise
from desktop_app.core.answer.prompt import build_sources
from desktop_app.core.answer.question import Question
from desktop_app.core.api import Quire
from desktop_app.core.ingest import embed_pass
from desktop_app.core.retrieval import analyzer, fusion, lexical
from desktop_app.core.retrieval import search as search_module
from desktop_app.core.retrieval.bert_numpy import BATCH_TOKENS, _batches
from desktop_app.core.retrieval.dense import Crossing, DenseHit, VectorIndex
from desktop_app.core.retrieval.embedder import similarity
from desktop_app.core.retrieval.languages import wordlists
from desktop_app.core.retrieval.search import Searcher, SearchResult
from desktop_app.core.store import vectors
from desktop_app.paths import sample_notes
from tests.support.fakes import FakeEmbedder

pytestmark = pytest.mark.usefixtures("fake_embedder")


def test_cosines_map_onto_the_gates_scale_and_shift_across_languages() -> None:
    fake = FakeEmbedder()
    assert similarity(fake, 0.6) == pytest.approx(0.6)  # MiniLM's scale is the gate's own
    fake.cosine_range, fake.crossed_shift = (0.7, 0.9), 0.05
    assert similarity(fake, 0.7) == pytest.approx(0.0)
    assert similarity(fake, 0.9) == pytest.approx(1.0)
    assert similarity(fake, 0.85, crossed=True) == pytest.approx(1.0)  # a shift, not a stretch


def test_batches_hold_similar_lengths_within_the_budget() -> None:
    lengths = [500, 20, 20, 30, 600, 120, 20, 120, 40]
    batches = _batches(lengths, most=3)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for batch in batches:
        longest = max(lengths[i] for i in batch)
        assert len(batch) <= 3 and (len(batch) == 1 or len(batch) * longest <= BATCH_TOKENS)
    assert [4] in batches and [0] in batches  # too long to share: alone


def test_a_word_match_in_another_language_counts_little() -> None:
    hits = [lexical.LexicalHit(1, 9.0, ("berlin",), 0.5), lexical.LexicalHit(2, 8.0, ("x",), 0.5)]
    dense = [DenseHit(2, 0.8), DenseHit(1, 0.7)]
    weights = fusion.Weights(1.0, 1.0)
    same = fusion.fuse(hits, dense, weights)
    assert same[0].score == pytest.approx(same[1].score)  # ranks 1+2 and 2+1 tie
    for other_language, first in ((1, 2), (2, 1)):
        crossed = fusion.fuse(hits, dense, weights, crossed=frozenset({other_language}))
        assert crossed[0].chunk_id == first and crossed[1].score < same[1].score


def test_a_name_the_question_borrows_from_another_language_matches_in_full() -> None:
    assert wordlists.foreign_words(["svíčková", "roasted", "160"], "en") == {"svíčková"}
    assert wordlists.foreign_words(["svíčková", "roasted"], "xx") == frozenset()  # no list
    hits = [lexical.LexicalHit(1, 9.0, ("svíčková",), 0.5), lexical.LexicalHit(2, 8.0, ("x",), 0.5)]
    dense = [DenseHit(2, 0.8), DenseHit(1, 0.7)]
    crossed = frozenset({1})
    weights = fusion.Weights(1.0, 1.0)
    discounted = fusion.fuse(hits, dense, weights, crossed=crossed)
    assert discounted[0].chunk_id == 2
    named = fusion.fuse(hits, dense, weights, crossed=crossed, named=frozenset({1}))
    assert named[0].score == pytest.approx(named[1].score)  # as if in one language
    assert search_module._naming(hits, crossed, "en") == {1}
    borrowed_nothing = [lexical.LexicalHit(1, 9.0, ("roasted",), 0.5)]
    assert search_module._naming(borrowed_nothing, crossed, "en") == frozenset()


def test_function_words_of_the_asked_language_can_be_left_out() -> None:
    dropped = frozenset({"in", "das", "wie", "viel"})
    terms = lexical.analyze_query("Wie viel Salz kommt in das Brot?", "de", dropped)
    assert len(terms.stems) == 3  # salz, kommt, brot
    assert lexical.analyze_query("in das", "de", dropped).stems  # all dropped: all kept


@pytest.fixture(scope="module")
def quire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Quire]:
    q = Quire.open(tmp_path_factory.mktemp("home"))
    q.index([sample_notes()])
    yield q
    q.close()


def test_the_asked_language_is_told_by_the_questions_words_not_its_names(quire: Quire) -> None:
    question = "Kapela Foo Fighters a Red Hot Chili Peppers vydaly desky."  # names in English
    assert analyzer.without_names(question) == "Kapela a vydaly desky."
    assert quire.searcher.asked_language(question) == "cs"
    german = "Warum hat die Deutsche Bahn den Intercity Express gebaut?"  # nouns capitalised too
    assert quire.searcher.asked_language(german) == "de"
    assert quire.searcher.asked_language("Golden Gate Bridge in San Francisco") == "en"  # all names


def test_no_word_is_missing_from_a_passage_in_another_language(quire: Quire) -> None:
    question = Question.read("How much Salz goes into the bread?", "en", None, False)
    results = quire.search("How much Salz goes into the bread?")
    assert "salz" in gate.missing_words(question, results)
    crossed = [replace(results[0], crossed=True), *results[1:]]
    assert gate.missing_words(question, crossed) == []


def test_only_a_multilingual_embedder_reads_the_asked_language(tmp_path: Path) -> None:
    english = FakeEmbedder()
    q = Quire.open(tmp_path / "home", embedder=english)
    try:
        q.index([sample_notes()])
        assert not any(r.crossed for r in q.search("Wie viel Salz kommt in das Brot?"))
        english.multilingual, english.languages = True, None
        found = q.search("Wie viel Salz kommt in das Brot?")
        assert any(r.crossed for r in found) and not any(
            r.crossed for r in found if r.path == "travel/berlin.md"
        )
    finally:
        q.close()


def test_in_a_vault_of_several_languages_a_near_tie_across_languages_is_raised() -> None:
    """A multilingual model's cosines run lower across languages: raised by the shift over
    every row, the German passage (0.76) outranks the Czech one (0.80) for a Czech question;
    each hit keeps its own cosine, and without a crossing the order is the cosines'."""
    db = sqlite_utils.Database(memory=True)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("INSERT INTO meta VALUES ('data_version', '1')")
    db.execute("CREATE TABLE chunk_parts (chunk_id INTEGER, part INTEGER, embed_hash TEXT)")
    db.execute("CREATE TABLE embeddings (hash TEXT PRIMARY KEY, vector BLOB)")
    db.execute("CREATE TABLE chunks (id INTEGER PRIMARY KEY, note_id INTEGER)")
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, language TEXT)")
    query = np.array([1.0, 0.0], dtype=np.float32)
    for chunk_id, language, cosine in ((1, "cs", 0.80), (2, "de", 0.76), (3, None, 0.78)):
        vector = np.array([cosine, np.sqrt(1 - cosine**2)], dtype=np.float32)
        db.execute("INSERT INTO notes VALUES (?, ?)", (chunk_id, language))
        db.execute("INSERT INTO chunks VALUES (?, ?)", (chunk_id, chunk_id))
        db.execute("INSERT INTO chunk_parts VALUES (?, 0, ?)", (chunk_id, str(chunk_id)))
        db.execute("INSERT INTO embeddings VALUES (?, ?)", (str(chunk_id), vector.tobytes()))
    index = VectorIndex()
    index.refresh(db)
    plain = index.search(query, 3)
    assert [h.chunk_id for h in plain] == [1, 3, 2]
    crossed = index.search(query, 3, crossing=Crossing("cs", 0.074))
    assert [h.chunk_id for h in crossed] == [2, 1, 3]  # a note of unknown language is not raised
    assert crossed[0].score == pytest.approx(0.76, abs=1e-6)


@pytest.mark.parametrize(
    ("notes", "mixed"),
    [(("en", "de"), True), (("de",), False), (("en",), False)],
)
def test_the_keywords_lose_their_base_trust_only_among_passages_of_several_languages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, notes: tuple[str, ...], mixed: bool
) -> None:
    """A German question: over English and German notes the keyword list sees only the German
    ones; over German notes alone, or English notes alone (every passage in another language),
    the weights stay as they are."""
    texts = {
        "en": "# Bread\n\nThe sourdough bread needs 10 g of salt and bakes for forty minutes.\n",
        "de": "# Brot\n\nDas Sauerteigbrot braucht zehn Gramm Salz und backt vierzig Minuten.\n",
    }
    folder = tmp_path / "notes"
    folder.mkdir()
    for language in notes:
        (folder / f"{language}.md").write_text(texts[language], "utf-8")
    calls: list[fusion.Weights] = []
    original = fusion.seen_in_part

    def recorded(weights: fusion.Weights) -> fusion.Weights:
        calls.append(weights)
        return original(weights)

    monkeypatch.setattr(fusion, "seen_in_part", recorded)
    embedder = FakeEmbedder()
    embedder.multilingual, embedder.languages = True, None
    q = Quire.open(tmp_path / "home", embedder=embedder)
    try:
        q.index([folder])
        assert q.search("Wie viel Salz braucht das Sauerteigbrot?")
    finally:
        q.close()
    assert bool(calls) == mixed
    assert fusion.seen_in_part(fusion.Weights(1.3, 1.0)) == fusion.Weights(0.8, 1.0)
    assert fusion.seen_in_part(fusion.Weights(0.4, 1.0)) == fusion.Weights(0.0, 1.0)


def test_a_unit_in_another_language_gets_a_cosine_and_its_raise_though_words_rank_it_last() -> None:
    """Words cannot rank a German unit for an English question: it still gets a cosine, raised
    as the gate raises one across languages, and answers when its meaning does."""
    english = "\n".join(f"The flour note line {n} says flour and water matter." for n in range(14))
    german = "Das Brot braucht zehn Gramm Salz."
    results = [
        SearchResult("en.md", 0, len(english), 1.0, english, "/n", "EN", [], 1, 14, 1, 1, [], 1,
                     None),
        SearchResult("de.md", 0, len(german), 0.9, german, "/n", "DE", [], 1, 1, 2, 2, [], None, 1,
                     crossed=True),
    ]  # fmt: skip
    sources = build_sources(results)
    asked = Question.read("How much salt does the flour and water bread need?", "en")
    seen: list[str] = []

    def cosines(_question: str, texts: list[str], _crossed: list[bool]) -> list[float]:
        seen.extend(texts)
        return [0.5 if "Salz" in t else 0.1 for t in texts]

    found = evidence.select(asked, results, sources, None, cosines, crossed_raise=0.3)
    assert german in seen  # beyond the best units by words, read for its meaning
    assert found[0].text == german
    fake = FakeEmbedder()
    fake.multilingual, fake.cosine_range, fake.crossed_shift = True, (0.7, 0.9), 0.05
    assert crossed_raise(Searcher(None, fake)) == pytest.approx(0.25)  # type: ignore[arg-type]
    only_english = FakeEmbedder()
    assert crossed_raise(Searcher(None, only_english)) == 0.0  # type: ignore[arg-type]
    beside = Searcher(None, only_english, fake)  # type: ignore[arg-type]
    assert crossed_raise(beside) == pytest.approx(0.25)  # the companion's


def test_the_companion_ranks_only_what_the_english_model_cannot_read() -> None:
    """Beside an English model that knows the question's language the companion's list counts
    only for passages in another language; for a question it cannot read, the companion takes
    its place at COMPANION_SAME within the question's language."""
    lex = [lexical.LexicalHit(1, 5.0, ("salt",), 0.5, 0.5, True)]
    dense = [DenseHit(1, 0.8), DenseHit(2, 0.7)]
    near = [DenseHit(3, 0.9), DenseHit(2, 0.8)]  # 3: German; 2: English
    knows = fusion.with_companion(fusion.Weights(1.0, 1.0), model_knows_language=True)
    assert knows == fusion.Weights(1.0, 1.0, 0.0)
    fused = {f.chunk_id: f.score for f in fusion.fuse(lex, dense, knows, crossed=frozenset({3}),
                                                      companion=near)}  # fmt: skip
    alone = {f.chunk_id: f.score for f in fusion.fuse(lex, dense, knows)}
    assert 3 in fused and fused[2] / fused[1] == pytest.approx(alone[2] / alone[1])
    blind = fusion.with_companion(fusion.Weights(0.8, 0.01), model_knows_language=False)
    assert blind == fusion.Weights(0.8, 0.0, fusion.COMPANION_SAME)
    ranked = [f.chunk_id for f in fusion.fuse([], dense, blind, companion=near)]
    assert ranked == [3, 2]  # the English model's list no longer counts


def test_indexing_fills_both_vector_spaces_and_a_model_change_empties_only_its_own(
    tmp_path: Path,
) -> None:
    english, companion = FakeEmbedder(), FakeEmbedder(dimension=64, languages=None)
    companion.model_id, companion.multilingual = "fake-multilingual", True
    q = Quire.open(tmp_path / "home", embedder=english)
    paired = Searcher(q.database, english, companion)
    q._slot.replace(lambda h: replace(h, searcher=paired))
    try:
        q.index([sample_notes()])
        status = q.status()
        chunks = status.counts.chunks
        assert english.encoded >= chunks and companion.encoded >= chunks
        assert status.companion_model == "fake-multilingual"
        with q.database.read() as db:
            assert vectors.pending_count(db, vectors.MAIN) == 0
            assert vectors.pending_count(db, vectors.COMPANION) == 0
        assert embed_pass.use_embedding_model(q.database, "other", 64, vectors.COMPANION)
        with q.database.read() as db:
            assert vectors.pending_count(db, vectors.MAIN) == 0
            assert vectors.pending_count(db, vectors.COMPANION) == chunks
        assert q.search("Wie viel Salz kommt in das Sauerteigbrot?")  # keywords and the model
    finally:
        q.close()


def test_the_companion_places_the_languages_and_the_english_model_fills_its_own_places() -> None:
    minilm = [DenseHit(1, 0.9), DenseHit(2, 0.8), DenseHit(3, 0.7)]  # English passages
    e5 = [DenseHit(2, 0.9), DenseHit(10, 0.88), DenseHit(3, 0.87), DenseHit(11, 0.8),
          DenseHit(1, 0.7)]  # fmt: skip
    merged = fusion.interleaved(minilm, e5, crossed=frozenset({10, 11}))  # 10, 11: Czech
    assert [h.chunk_id for h in merged] == [1, 10, 2, 11, 3]
    assert merged[0] is minilm[0] and merged[1] is e5[1]  # each keeps its own model's cosine
    assert fusion.interleaved(minilm, e5[:1] + e5[2:3] + e5[4:], frozenset()) == minilm
