"""Property tests on arbitrary text: chunk offsets, and query terms against a real FTS5 table."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop_app.core.ingest import indexer
from desktop_app.core.ingest.chunker import chunk_note
from desktop_app.core.retrieval import analyzer, lexical
from desktop_app.core.store.db import Database
from desktop_app.core.text import clean_text
from desktop_app.core.tokens import count_tokens
from desktop_app.paths import sample_notes

# Markdown structure, line endings and odd characters, mixed with any non-surrogate text.
PIECES = ["# ", "## Heading", "\n", "\r\n", "\r", "\x00", "```", "```python\n", "- item",
          "1. step", "| a | b |", "|---|---|", "> quote", "---\ntitle: x\n---\n", "    code",
          "**bold**", "[link](x.md)", "<div>", "\t", "  ", "ß", "é", "\u0301", "😀", "\ufeff",
          "İ", "ﬁ", "Ⅻ", "²", "\u2028", "\x85", "word", "sentence. ", "Kolo řetěz. "]  # fmt: skip
TEXT = st.lists(
    st.one_of(st.sampled_from(PIECES), st.text(st.characters(exclude_categories=("Cs",)))),
    max_size=40,
).map("".join)
ANY_TEXT = st.text(max_size=300)  # surrogates included: queries may carry them from argv
LANGUAGES = st.sampled_from(["en", "de", "cs", "und", "fr", "zh"])


@settings(max_examples=200, deadline=None)
@given(text=TEXT, target=st.integers(8, 300), markdown=st.booleans())
def test_chunk_offsets_point_at_the_chunk_text(text: str, target: int, markdown: bool) -> None:
    chunks, _ = chunk_note(text, count_tokens, target, markdown=markdown)
    previous_end = 0
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.start >= previous_end  # ordered, never overlapping
        previous_end = chunk.end
        assert 1 <= chunk.line_start <= chunk.line_end
        assert chunk.line_start == len(re.findall(r"\r\n|\r|\n", text[: chunk.start])) + 1


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    database = Database(tmp_path_factory.mktemp("props") / "q.sqlite")
    indexer.index_folder(database, sample_notes(), indexer.IndexOptions())
    yield database
    database.close()


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=ANY_TEXT, language=LANGUAGES)
def test_any_query_searches_without_error(db: Database, query: str, language: str) -> None:
    terms = lexical.analyze_query(query, language)
    hits = lexical.search_lexical(db.reader, terms, 10)
    words = {word for word, _, _ in terms.words}
    assert all(set(hit.matched) <= words for hit in hits)


def _fts() -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    con.execute("CREATE VIRTUAL TABLE t USING fts5(body, prefixes, "
                "tokenize = 'unicode61 remove_diacritics 2')")  # fmt: skip
    con.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')")
    return con


@settings(max_examples=200, deadline=None)
@given(text=ANY_TEXT, language=LANGUAGES)
def test_query_terms_are_the_tokens_fts5_stores(text: str, language: str) -> None:
    """A note holding the text is found by the same text as a query, and every query term is
    one FTS5 token exactly as stored (the document frequencies are looked up by term)."""
    terms = lexical.analyze_query(text, language)
    con = _fts()
    words = analyzer.words(clean_text(text))
    con.execute("INSERT INTO t (rowid, body, prefixes) VALUES (1, ?, ?)",
                (" ".join(analyzer.stems(words, language)),
                 " ".join(analyzer.prefixes(words))))  # fmt: skip
    stored = {row[0] for row in con.execute("SELECT term FROM v")}
    assert set(terms.stems) | set(terms.prefixes) <= stored
    for column, group in (("body", terms.stems), ("prefixes", terms.prefixes)):
        for term in group:
            found = con.execute(f"SELECT rowid FROM t WHERE t MATCH '{column} : ' || ?",
                                (lexical.quote(term),)).fetchall()  # fmt: skip
            assert found == [(1,)], (column, term)
