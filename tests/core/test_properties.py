"""Property tests on arbitrary text: chunk offsets, and query terms against a real FTS5 table."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop_app.core.api import Quire
from desktop_app.core.ingest import chunker, days_and_tags, indexer
from desktop_app.core.ingest.chunker import chunk_note
from desktop_app.core.retrieval import analyzer, lexical
from desktop_app.core.store.db import Database
from desktop_app.core.text import SENTENCE_BREAK, clean_text, finditer_windowed
from desktop_app.core.tokens import count_tokens
from desktop_app.paths import sample_notes

pytestmark = pytest.mark.usefixtures("fake_embedder")

# Markdown structure, line endings and odd characters, mixed with any non-surrogate text.
PIECES = ["# ", "## Heading", "\n", "\r\n", "\r", "\x00", "```", "```python\n", "- item",
          "1. step", "| a | b |", "|---|---|", "> quote", "---\ntitle: x\n---\n", "    code",
          "**bold**", "[link](x.md)", "<div>", "\t", "  ", "ß", "é", "\u0301", "😀", "\ufeff",
          "İ", "ﬁ", "Ⅻ", "²", "\u2028", "\x85", "word", "sentence. ", "Kolo řetěz. "]  # fmt: skip
TEXT = st.lists(
    st.one_of(st.sampled_from(PIECES), st.text(st.characters(exclude_categories=["Cs"]))),
    max_size=40,
).map("".join)
ANY_TEXT = st.text(max_size=300)  # surrogates included: queries may carry them from argv
LANGUAGES = st.sampled_from(["en", "de", "cs", "und", "fr", "zh"])


def _search_lexical(
    db: Database, terms: lexical.QueryTerms, limit: int
) -> list[lexical.LexicalHit]:
    with db.read() as reader:
        return lexical.search_lexical(reader, terms, limit)


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


BREAKS = st.text(alphabet="ab.!… \r\n\t#=*", max_size=300)  # many matches straddle windows' ends
SEARCHED = [SENTENCE_BREAK, r"\r?\n", chunker._LINE_END, days_and_tags._HEADING_LINE]


@given(text=st.one_of(BREAKS, TEXT), pattern=st.sampled_from(SEARCHED))
def test_a_windowed_search_finds_what_one_search_finds(
    text: str, pattern: re.Pattern[str] | str
) -> None:
    compiled = re.compile(pattern)
    whole = [m.span() for m in compiled.finditer(text)]
    for window in range(5, 40):  # every window size, so matches fall across windows' ends
        assert [m.span() for m in finditer_windowed(compiled, text, window, reach=4)] == whole


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=ANY_TEXT, language=LANGUAGES)
def test_any_query_searches_without_error(db: Database, query: str, language: str) -> None:
    terms = lexical.analyze_query(query, language)
    hits = _search_lexical(db, terms, 10)
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


@settings(max_examples=300, deadline=None)
@given(text=TEXT, offset=st.integers(0, 1000))
def test_every_evidence_unit_is_its_exact_span(text: str, offset: int) -> None:
    from desktop_app.core.answer.units import split_units

    for unit in split_units(text, offset):
        assert text[unit.start - offset : unit.end - offset] == unit.text
        assert unit.text and unit.text == unit.text.strip()


# -- what Quire presents as the notes' words is the notes' words -------------------------------
MINI = Path(__file__).resolve().parents[1] / "data" / "eval-mini"


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Quire, list[str]]]:
    import shutil

    folders = []
    for name in ("xquad-en", "xquad-de", "ctkfacts-cs", "til-en"):
        folder = tmp_path_factory.mktemp(name) / "notes"
        shutil.copytree(MINI / name / "notes", folder)
        folders.append(folder)
    quire = Quire.open(tmp_path_factory.mktemp("home"))
    quire.index(folders, embed=False)
    words = sorted({w for f in folders for p in f.rglob("*.md")
                    for w in analyzer.words(p.read_text("utf-8")) if len(w) > 3})  # fmt: skip
    yield quire, words
    quire.close()


QUOTED: list[bool] = []  # per example: did Quire quote the notes in place of the model
OPENERS = ["How do I", "What is", "When did", "Wie viele", "Kdy", "Who", "Why does"]
MODEL_SAYS = st.sampled_from([
    "Use `git ls-clone --head=1` [1].", "It is 42 [1].", "Your notes say: “made up words” [1]",
    "Blue [2][9].", "",
])  # fmt: skip


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_what_quire_quotes_as_the_notes_is_the_notes_text(
    data: st.DataObject, mini: tuple[Quire, list[str]]
) -> None:
    """Random questions over the eval sets (words of their notes behind an opener), answered by a
    model that invents, forges a quotation or cites what is no source: every evidence unit and
    every "Your notes say" equals its note's `text[start:end]`."""
    from desktop_app.core.answer.ask import answer_events
    from desktop_app.core.answer.verbatim import NOTES_SAY
    from desktop_app.core.cancel import CancelToken
    from desktop_app.core.events import Done, EvidenceShown
    from tests.support.fakes import QueuedModel

    quire, words = mini
    picked = data.draw(st.lists(st.sampled_from(words), min_size=1, max_size=6))
    question = f"{data.draw(st.sampled_from(OPENERS))} {' '.join(picked)}?"
    model = QueuedModel(data.draw(MODEL_SAYS))
    events = list(answer_events(quire.answers.retrieval(), question, [], model, CancelToken()))
    notes: dict[Path, str] = {}
    QUOTED.append(any(isinstance(e, Done) and e.quote is not None for e in events))
    for event in events:
        quotes = event.evidence if isinstance(event, EvidenceShown) else []
        if isinstance(event, Done) and event.quote is not None:
            quotes = [event.quote]
            assert event.answer == f"{NOTES_SAY} “{event.quote.shown}” [{event.quote.number}]"
        elif isinstance(event, Done):
            assert NOTES_SAY not in event.answer  # only Quire's own quotation says it
        for q in quotes:
            path = Path(q.folder) / q.path
            text = notes.setdefault(path, path.read_text("utf-8"))
            assert text[q.start : q.end] == q.text


def test_the_quotation_property_saw_quotations() -> None:
    """Runs after the property above (file order): it must have exercised Quire's quotation."""
    assert sum(QUOTED) >= 5, QUOTED
