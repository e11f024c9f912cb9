from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.ingest import indexer
from desktop_app.core.retrieval import lexical
from desktop_app.core.store.db import Database


def _search_lexical(
    db: Database, terms: lexical.QueryTerms, limit: int
) -> list[lexical.LexicalHit]:
    with db.read() as reader:
        return lexical.search_lexical(reader, terms, limit)


@pytest.fixture
def db(notes_dir: Path, tmp_path: Path) -> Database:
    database = Database(tmp_path / "q.sqlite")
    options = indexer.IndexOptions()
    indexer.index_folder(database, notes_dir, options)
    return database


def paths(db: Database, hits: list[lexical.LexicalHit]) -> list[str]:
    out = []
    for hit in hits:
        row = db.query(
            "SELECT n.path FROM chunks c JOIN notes n ON n.id = c.note_id WHERE c.id = ?",
            (hit.chunk_id,),
        )[0]
        out.append(row[0])
    return out


@pytest.mark.parametrize(
    "query",
    ["NOT sync", '"unbalanced', "sync*", "-sync", "a OR", "NEAR(x y)", "(", "sync: AND", "'\"*^"],
)
def test_fts_syntax_in_user_text_never_breaks_a_query(db: Database, query: str) -> None:
    _search_lexical(db, lexical.analyze_query(query, "en"), 10)


def test_czech_query_finds_declined_forms_without_diacritics(db: Database) -> None:
    hits = _search_lexical(db, lexical.analyze_query("retezy na kolech", "cs"), 5)
    assert paths(db, hits)[0] == "kolo.md"
    assert hits[0].matched


def test_german_query_matches_inflected_and_compound_words(db: Database) -> None:
    hits = _search_lexical(db, lexical.analyze_query("Tomatenpflanze", "de"), 5)
    assert paths(db, hits)[0] == "garten.txt"  # via the five-letter prefix column


def test_title_and_tags_are_searchable(db: Database) -> None:
    hits = _search_lexical(db, lexical.analyze_query("setup", "en"), 5)
    assert paths(db, hits) == ["sync/settings.md"]


def test_very_common_terms_are_pruned_when_rarer_terms_exist() -> None:
    df = {"the": 900, "rare": 3, "mid": 100}
    assert lexical._prune_common(("the", "rare", "mid"), df, 1000) == ("rare", "mid")
    assert lexical._prune_common(("the",), df, 1000) == ("the",)
    assert lexical._prune_common(("absent",), df, 1000) == ()


def test_evidence_ignores_function_words_and_accepts_inflected_forms(db: Database) -> None:
    # "Selective sync lets you choose which folders are copied to the laptop."
    query = lexical.analyze_query("How do I choose which folders are copied?", "en")
    hit = _search_lexical(db, query, 5)[0]
    assert paths(db, [hit]) == ["sync/settings.md"]
    assert hit.evidence == pytest.approx(1.0)  # every content word is there
    assert hit.coverage < hit.evidence  # "how", "do", "I" are absent and weigh in coverage
    # Czech: "řetězu" (another case of "řetěz") still counts as found, by prefix.
    czech = lexical.analyze_query("Kolik stál nový řetězu?", "cs")
    best = max(_search_lexical(db, czech, 5), key=lambda h: h.evidence)
    assert paths(db, [best]) == ["kolo.md"] and best.evidence > 0.5
