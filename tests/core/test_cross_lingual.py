"""Questions in one language over notes in another, with the bundled models (the default
English MiniLM with multilingual-e5-small beside it, and e5 alone), the real chat model and the
sample notes."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.answer.ask import embedder_similarity
from desktop_app.core.api import Quire, as_json
from desktop_app.core.handle import make_embedder
from desktop_app.core.retrieval.embedder import (
    MULTILINGUAL,
    Embedder,
    meaning_model,
    multilingual_model_path,
)
from desktop_app.core.retrieval.search import Searcher
from desktop_app.core.store import meta, vectors
from desktop_app.paths import sample_notes
from desktop_app.settings import Settings
from tests.support.fakes import FakeEmbedder

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=["default", "multilingual"])
def quire(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Quire]:
    """The default (English MiniLM with the multilingual companion beside it), and the
    multilingual model chosen as the index's own."""
    chosen = Embedder() if request.param == "default" else Embedder(multilingual_model_path())
    q = Quire.open(tmp_path_factory.mktemp("home"), embedder=chosen)
    q.index([sample_notes()])
    yield q
    q.close()


def _ask(quire: Quire, question: str) -> list[dict[str, Any]]:
    return [as_json(e) for e in quire.answers.ask(question, max_tokens=48)]


def test_the_setting_chooses_the_multilingual_model() -> None:
    embedder, problem = make_embedder(Settings(embedding_model=MULTILINGUAL), None)
    assert problem is None and isinstance(embedder, Embedder)
    assert embedder.path == multilingual_model_path() and embedder.languages is None


@pytest.mark.parametrize(
    ("question", "note", "fact", "asked_word"),
    [
        # German over an English note: the note says "salt", which no word match can tell
        ("Wie viel Salz kommt in das Sauerteigbrot?", "recipes/bread.md", "10 g", "salz"),
        # Czech over a German note
        ("Jak dlouho trvá cesta vlakem z Prahy do Berlína?", "travel/berlin.md", "vier Stunden",
         "cesta"),
        # English over a Czech note whose name the question borrows: the name matches as in
        # one language, and the sentence with a temperature answers, not the one naming it
        ("At what temperature is svíčková roasted?", "recipes/svickova.md", "160 °C", "roasted"),
    ],
)  # fmt: skip
def test_a_question_is_answered_from_a_note_in_another_language(
    quire: Quire, question: str, note: str, fact: str, asked_word: str
) -> None:
    events = _ask(quire, question)
    sources, done = events[0], events[-1]
    assert sources["answerable"] and sources["sources"][0]["path"] == note
    assert done["answerable"] and 1 in done["citations"]["valid"]
    assert fact in done["answer"]
    gate = sources["gate"]  # the verdict comes with the sources
    assert asked_word not in gate["missing"] and asked_word not in gate["reason"].casefold()


def test_an_unrelated_question_is_still_refused(quire: Quire) -> None:
    events = _ask(quire, "Who won the 1998 football world cup final?")
    assert not events[0]["answerable"] and events[-1]["answer"].startswith("Your notes don't")


def test_keyword_search_keeps_its_own_language_first(quire: Quire) -> None:
    # long enough for its language to be read, so passages in other languages are marked
    found = quire.search("Wann ist der Eintritt auf der Museumsinsel länger möglich?")
    assert any(r.crossed for r in found)
    assert found and found[0].path == "travel/berlin.md" and not found[0].crossed


def test_choosing_it_reembeds_while_keyword_search_works(tmp_path: Path) -> None:
    quire = Quire.open(tmp_path / "home")  # the default embedder (English)
    try:
        quire.index([sample_notes()])
        before = quire.status().counts
        assert quire.apply_settings(Settings(embedding_model=MULTILINGUAL)) == ["embedding model"]
        assert quire.search("sourdough salt")[0].path == "recipes/bread.md"  # words, meanwhile
        embedded = quire.embed()
        after = quire.status()
        assert embedded == after.counts.chunks == before.chunks  # every passage, once
        assert after.counts.pending_embedding == 0
        assert (after.embedding_model or "").startswith("multilingual-e5-small")
        with quire.database.read() as db:  # the companion's vectors are no longer needed
            assert meta.read_meta(db, vectors.COMPANION.model_key) is None
            assert db.execute("SELECT count(*) FROM companion_vectors").fetchone()[0] == 0
        assert quire.search("Wie viel Salz kommt in das Brot?")[0].path == "recipes/bread.md"
    finally:
        quire.close()


def test_beside_the_english_only_default_the_multilingual_model_judges_sentences(
    tmp_path: Path,
) -> None:
    """The evidence of a Czech question is ranked by meaning too: the default MiniLM does not
    know Czech, so the bundled multilingual model gives the question–sentence cosines."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "bread.md").write_text("# Bread\n\nAdd 10 g of salt to the dough.\n", "utf-8")
    default = Quire.open(tmp_path / "home", embedder=Embedder())
    default.index([notes])
    assert default.search("salt")  # as an answer searches first (the vectors are read then)
    searcher = default.searcher
    assert embedder_similarity(searcher, "en") is not None  # MiniLM itself knows English
    cosines = embedder_similarity(searcher, "cs")
    assert cosines is not None
    salt, train = cosines(
        "Kolik soli patří do těsta na chleba?",
        ["Add 10 g of salt to the dough.", "The train to Berlin takes four hours."],
        [True, True],
    )
    assert salt > train
    default.close()
    assert meaning_model(FakeEmbedder()) is None  # no second model beside a stand-in


def test_beside_the_companion_english_questions_rank_as_with_the_english_model_alone(
    tmp_path: Path,
) -> None:
    """The companion only reaches passages in other languages and questions the English model
    cannot read: an English question over English notes ranks exactly as before."""
    notes = tmp_path / "notes"  # the English sample notes
    for name in ("welcome.md", "recipes/bread.md", "travel/packing-list.txt"):
        (notes / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(sample_notes() / name, notes / name)
    default = Quire.open(tmp_path / "home", embedder=Embedder())
    try:
        default.index([notes])
        paired = default.searcher
        assert paired.companion is not None and paired.companion_vectors.size == 0  # not read yet
        alone = Searcher(default.database, paired.embedder)
        for question in ("How much salt goes into the bread?", "when is the starter ready",
                         "What should I pack for a hiking trip above 2000 m?"):  # fmt: skip
            with_it = [(r.chunk_id, r.score) for r in paired.search(question)]
            assert with_it == [(r.chunk_id, r.score) for r in alone.search(question)]
        assert paired.companion_vectors.size > 0  # it was searched, and changed nothing
        status = default.status()
        assert status.counts.pending_embedding == 0
    finally:
        default.close()
