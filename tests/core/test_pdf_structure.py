"""A PDF read the way a person reads it: headings by type size become the heading path,
running headers and page numbers stay out of passages' search terms, a word hyphenated at a
line end is found whole, a list and a code block are each one block and footnotes passages of
their own (as a web page's are) whose words are also read where their marks stand, a
two-column page reads column by column, and contents and index pages are found by their words
but never outrank the prose they point to. Every passage stays an exact span whose characters
map to their boxes."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.ingest import formats, paged
from desktop_app.core.ingest.document import Document
from desktop_app.core.ingest.formats import pdf
from desktop_app.core.ingest.note_analysis import AnalyzedNote, analyze_note
from desktop_app.core.retrieval import analyzer
from desktop_app.core.service import Quire
from tests.support.documents import (
    BIRDS_CODE,
    BIRDS_ITEMS,
    BIRDS_LEFT,
    BIRDS_NOTES,
    BIRDS_RIGHT,
    write_formula_pdf,
    write_structured_pdf,
)


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_structured_pdf(tmp_path_factory.mktemp("book") / "birds.pdf")


@pytest.fixture(scope="module")
def document(book: Path) -> Document:
    return formats.load(book, 10**8)


@pytest.fixture(scope="module")
def note(document: Document) -> AnalyzedNote:
    return analyze_note("birds.pdf", document, 60)  # small passages: one a section here


def _holding(note: AnalyzedNote, words: str) -> list:
    return [c for c in note.chunks if words in " ".join(c.chunk.text.split())]


def test_headings_by_type_size_are_the_heading_path_and_pages_stay_right(
    note: AnalyzedNote,
) -> None:
    feeding = _holding(note, "strike at fish")
    assert len(feeding) == 1
    chunk = feeding[0].chunk
    assert chunk.heading_path == ("2 Herons", "2.1 Feeding")
    assert (chunk.page_start, chunk.page_end) == (3, 3)
    background = _holding(note, "seasonal migra")[0].chunk
    assert background.heading_path == ("1 Introduction", "1.1 Background")
    assert background.page_start == 2
    kingfishers = _holding(note, "Kingfishers dive")[0].chunk
    assert kingfishers.heading_path == ("3 Kingfishers",) and kingfishers.page_start == 4


def test_running_header_and_page_numbers_are_furniture_not_search_terms(
    document: Document, note: AnalyzedNote
) -> None:
    furniture = [document.text[b.start : b.end].strip() for b in paged.Reading(document).blocks
                 if b.kind == "furniture"]  # fmt: skip
    assert furniture.count("Wetland Almanac draft") == 5  # every page after the title page
    assert sorted(f for f in furniture if f.isdigit()) == ["2", "3", "4", "5", "6"]
    almanac = analyzer.stems(["almanac"], note.language)[0]
    assert all(almanac not in c.body_terms.split() for c in note.chunks)
    assert all(c.chunk.heading_path and "Almanac" not in c.chunk.heading_path[-1]
               for c in note.chunks)  # fmt: skip


def test_a_word_hyphenated_at_a_line_end_is_found_whole(note: AnalyzedNote) -> None:
    migration = analyzer.stems(["migration"], note.language)[0]
    holding = [c for c in note.chunks if migration in c.body_terms.split()]
    assert [c.chunk.page_start for c in holding] == [2]


def test_a_two_column_page_reads_column_by_column(document: Document) -> None:
    text = " ".join(document.text.split())
    left, right = text.index(BIRDS_LEFT), text.index(BIRDS_RIGHT)
    assert left < right  # each column whole, the left one first
    assert document.page_at(document.text.index("Bitterns")) == 5


def _block_of(document: Document, words: str) -> tuple[str, str]:
    """The kind and text (spacing folded) of the block holding `words`."""
    for block in paged.Reading(document).blocks:
        text = " ".join(document.text[block.start : block.end].split())
        if words in text:
            return block.kind, text
    raise AssertionError(f"no block holds {words!r}")


def test_a_list_is_one_block_and_fixed_pitch_lines_one_code_block(document: Document) -> None:
    kind, text = _block_of(document, "Perch: a branch")
    assert kind == "text" and text == " ".join(BIRDS_ITEMS)  # its items, wrapped lines too
    kind, text = _block_of(document, "ring --species")
    assert kind == "code" and text == " ".join(BIRDS_CODE)


def test_each_footnote_is_a_block_and_a_passage_of_its_own(
    document: Document, note: AnalyzedNote
) -> None:
    for footnote in BIRDS_NOTES:
        assert _block_of(document, footnote[:20]) == ("note", footnote)
        holding = _holding(note, footnote)
        assert len(holding) == 1
        # neither the prose and the list above it nor the other footnote
        assert " ".join(holding[0].chunk.text.split()) == footnote
        assert holding[0].chunk.page_start == 4
    survey = analyzer.stems(["survey"], note.language)[0]
    assert survey in _holding(note, BIRDS_NOTES[0])[0].body_terms.split()  # found by its words


def test_a_footnote_is_read_where_its_mark_stands(note: AnalyzedNote) -> None:
    survey, ospreys = (analyzer.stems([w], note.language)[0] for w in ("survey", "ospreys"))
    marked = _holding(note, "a metre long,1 and")
    assert len(marked) == 1 and BIRDS_NOTES[0] not in marked[0].chunk.text
    assert survey in marked[0].body_terms.split()  # the first note's words, not its text
    assert all(
        ospreys not in c.body_terms.split()
        for c in note.chunks
        if BIRDS_NOTES[1] not in c.chunk.text
    )  # no mark of it: read in its own only


def test_a_passage_opening_inside_a_sentence_is_read_with_its_start(tmp_path: Path) -> None:
    document = formats.load(write_formula_pdf(tmp_path / "paper.pdf"), 10**8)
    note = analyze_note("paper.pdf", document, 40)  # the formula opens the second passage
    covariance = analyzer.stems(["covariance"], note.language)[0]
    after = _holding(note, "the meat M is the")
    assert len(after) == 1 and "covariance" not in after[0].chunk.text
    assert covariance in after[0].body_terms.split()  # the sentence it continues, read too
    assert after[0].chunk.text == document.text[after[0].chunk.start : after[0].chunk.end]
    lead = _holding(note, "a sandwich formula can be given")
    assert len(lead) == 1 and lead[0] is not after[0]


def test_contents_and_index_pages_are_listings_found_by_prefix_only(
    note: AnalyzedNote,
) -> None:
    contents = _holding(note, "1 Introduction ....")
    index = _holding(note, "grey heron, 3")
    assert [c.chunk.page_start for c in contents] == [1]
    assert [c.chunk.page_start for c in index] == [6]
    for listing in (*contents, *index):
        assert listing.body_terms == "" and listing.prefix_terms  # searchable, weakly
    assert index[0].chunk.heading_path == ("Index",)


def test_every_passage_maps_to_its_characters_boxes(
    book: Path, document: Document, note: AnalyzedNote
) -> None:
    for analyzed in note.chunks:
        chunk = analyzed.chunk
        assert document.text[chunk.start : chunk.end] == chunk.text
        page, start, end = pdf.span_on_page(document.pages, chunk.start, chunk.end)
        boxes = pdf.char_boxes(book, page, start, end)
        shown = document.text[document.pages[page - 1] + start : document.pages[page - 1] + end]
        assert len(boxes) == sum(1 for c in shown if not c.isspace())


def test_prose_outranks_the_contents_and_index_pages_that_hold_every_word(
    tmp_path: Path, book: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "birds.pdf").write_bytes(book.read_bytes())
    quire = Quire.open(tmp_path / "home")
    try:
        quire.index([notes], embed=False)
        results = quire.search("grey heron strike fish shallow water", top_k=5)
        best = results[0]
        assert "strike at fish" in best.text  # the prose, above the index page's entries
        assert best.page_at(best.start + best.text.index("strike at fish")) == 3
        listed = quire.search("ringing records", top_k=5)  # only the contents page has both
        assert listed and listed[0].page == 1
    finally:
        quire.close()
