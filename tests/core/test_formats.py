"""PDF, Word and web pages indexed as notes: exact spans into the extracted text, pages and
character boxes for PDFs, and every hostile or broken file failing alone with a reason."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from desktop_app.core.api import Quire
from desktop_app.core.ingest import formats
from desktop_app.core.ingest.extractor import Extractor
from desktop_app.core.ingest.formats import pdf
from desktop_app.core.ingest.note_file import NoteFailed, NoteSkipped
from desktop_app.core.passage import Evidence
from tests.support.documents import (
    write_docx,
    write_hostile_corpus,
    write_html,
    write_pdf,
    write_scanned_pdf,
)

pytestmark = pytest.mark.usefixtures("fake_embedder")

PAGES = [
    "Sourdough starter needs feeding twice a day with equal weights of flour and water.",
    "The rye loaf bakes at 240 degrees for fifty minutes in a covered pot.",
    "Store the finished bread wrapped in linen, never in the fridge.",
]


def test_pdf_text_pages_outline_and_boxes(tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "bread.pdf", PAGES, outline=["Starter", "Baking", "Storing"])
    document = formats.load(path, 10**8)
    assert document.pages[0] == 0 and len(document.pages) == 3
    start = document.text.index("240 degrees")
    assert document.page_at(start) == 2
    assert document.section_at(start) == ("Baking",)
    assert document.title == "Test document"
    page_start = document.pages[1]
    boxes = pdf.char_boxes(path, 2, start - page_start, start - page_start + len("240 degrees"))
    assert len(boxes) == len("240degrees")  # one box per character, blanks left out
    import pypdfium2 as pdfium

    document_pdf = pdfium.PdfDocument(path)
    left, bottom = min(b[0] for b in boxes), min(b[1] for b in boxes)
    right, top = max(b[2] for b in boxes), max(b[3] for b in boxes)
    inside = document_pdf[1].get_textpage().get_text_bounded(left, bottom, right, top)
    document_pdf.close()
    assert "240" in inside and "degrees" in inside


def test_indexed_pdf_results_carry_their_page_and_exact_span(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    full = [_full_page(text, topic) for text, topic in zip(PAGES, TOPICS, strict=True)]
    write_pdf(notes / "bread.pdf", full, outline=["Starter", "Baking", "Storing"])
    quire = Quire.open(tmp_path / "home")
    try:
        quire.index([notes])
        results = quire.search("rye loaf covered pot", top_k=3)
        best = results[0]
        assert (best.path, best.page, best.heading_path) == ("bread.pdf", 2, ["Baking"])
        text = formats.load(notes / "bread.pdf", 10**8).text
        assert text[best.start : best.end] == best.text
        assert all(r.page == r.page_end for r in results)  # full pages: one page a passage
    finally:
        quire.close()


TOPICS = ("feeding the starter", "baking the rye loaf", "storing the bread")


def _full_page(first: str, topic: str) -> str:
    """A page of about 150 tokens, as pages of real documents have."""
    return " ".join([first, *(f"Remark {n} about {topic} and its habits." for n in range(14))])


def test_a_short_page_remainder_joins_the_passage_before_it_and_keeps_its_page(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    pages = [_full_page(PAGES[0], TOPICS[0]), "Check the oven thermometer before every bake."]
    write_pdf(notes / "short-tail.pdf", pages)
    quire = Quire.open(tmp_path / "home")
    try:
        quire.index([notes], embed=False)
        best = quire.search("oven thermometer", top_k=1)[0]
        assert (best.page, best.page_end) == (1, 2)  # the passage starts on 1, runs on to 2
        assert best.page_at(best.start) == 1
        assert best.page_at(best.start + best.text.index("oven thermometer")) == 2
        found = [e for e in _evidence(quire, "How do I check the oven thermometer?")
                 if "thermometer" in e.text]  # fmt: skip
        assert found and found[0].page == 2  # its [n] opens the page the sentence is on
    finally:
        quire.close()


def test_a_title_line_atop_a_page_is_not_a_passage_of_its_own(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    body = _full_page(PAGES[0], TOPICS[0]) + " " + _full_page(PAGES[2], TOPICS[2])  # > 200 tokens
    write_pdf(notes / "titled.pdf", ["Sourdough\n\n" + body])
    quire = Quire.open(tmp_path / "home")
    try:
        quire.index([notes], embed=False)
        texts = [r[0] for r in quire.database.query("SELECT text FROM chunks")]
        assert texts and texts[0].startswith("Sourdough\n") and "Remark 13" in texts[-1]
        assert all(t.strip() != "Sourdough" for t in texts)  # a PDF marks no headings
    finally:
        quire.close()


def test_a_text_notes_first_line_standing_alone_is_its_title(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "packing.txt").write_text(
        "Packing list for hiking trips\n\nRain jacket, water bottle (1.5 litres), snacks.\n"
    )
    (notes / "rainy-day.txt").write_text("It rained all day.\n\nWe stayed in and read.\n")
    (notes / "one-line.txt").write_text("Call the plumber about the kitchen tap\n")
    quire = Quire.open(tmp_path / "home")
    try:
        quire.index([notes], embed=False)
        titles = dict(quire.database.query("SELECT path, title FROM notes"))
        assert titles == {
            "packing.txt": "Packing list for hiking trips",
            "rainy-day.txt": "rainy day",  # a sentence is no title: the file name is
            "one-line.txt": "one line",  # nothing stands under it
        }
        found = _evidence(quire, "How much water do I take on a hiking trip?")
        assert found and found[0].text.startswith("Rain jacket")  # the title line is no answer
    finally:
        quire.close()


def _evidence(quire: Quire, question: str) -> list[Evidence]:
    from desktop_app.core.events import EvidenceShown
    from tests.support.fakes import QueuedModel

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(quire.answers, "chat_model", lambda path=None: QueuedModel("x"))
        events = list(quire.answers.ask(question))
    return next((e.evidence for e in events if isinstance(e, EvidenceShown)), [])


def test_word_and_web_pages_are_read_as_their_structure(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    table = [["plant", "spacing"], ["tomato", "60 cm"]]
    write_docx(notes / "garden.docx", "Garden plan", ["Tomatoes go in the south bed in May."],
               items=("Water the beans daily",), table=table)  # fmt: skip
    write_html(notes / "page.html", "Rye bread", ["Bake rye at 240 degrees.", "Let it cool."])
    document = formats.load(notes / "garden.docx", 10**8)
    assert "## Garden plan" in document.text and "- Water the beans daily" in document.text
    assert "| tomato | 60 cm |" in document.text
    quire = Quire.open(tmp_path / "home")
    try:
        report = quire.index([notes])[0].report
        assert report.indexed == 2 and not report.failed
        hit = quire.search("tomato spacing", top_k=1)[0]
        assert hit.path == "garden.docx" and "Garden plan" in hit.heading_path
        web = quire.search("rye 240 degrees", top_k=1)[0]
        assert web.path == "page.html" and web.heading_path == ["Rye bread"]
        page = formats.load(notes / "page.html", 10**8).text
        for hidden in ("secretScriptWord", "navigationword", "footerword", "color:red"):
            assert hidden not in page  # scripts, styles, navigation and footers are not text
            assert all(r.lexical_rank is None for r in quire.search(hidden, top_k=3))
    finally:
        quire.close()


def test_each_broken_or_hostile_file_fails_alone_with_a_reason(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    expected = write_hostile_corpus(notes)
    quire = Quire.open(tmp_path / "home")
    try:
        report = quire.index([notes])[0].report
        reasons = {path: (status, reason) for path, status, reason in report.problems}
        assert reasons["locked.pdf"][0] == "failed" and "encrypted" in reasons["locked.pdf"][1]
        assert reasons["truncated.pdf"][0] == "failed"
        assert reasons["scan.pdf"] == ("skipped", "no text found by OCR (ces deu eng)")
        assert reasons["crafted.pdf"][0] == "failed" and reasons["crafted.pdf"][1]
        assert reasons["junk.docx"][0] == "failed" and "Word" in reasons["junk.docx"][1]
        assert reasons["huge.html"][0] == "skipped" and "too large" in reasons["huge.html"][1]
        status = {f.path: f for f in quire.status().listed_files()}
        for name, outcome in expected.items():  # every good file indexed, every bad one told
            assert outcome in ("any", status[name].status), (name, status[name])
        assert "encrypted" in status["locked.pdf"].reason
        assert quire.search("gannets manual page 1999", top_k=1)[0].page == 2000
    finally:
        quire.close()


def test_a_pdf_of_two_thousand_pages_is_read_and_a_stuck_one_times_out(tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "long.pdf", [f"Page {i} of the long manual." for i in range(2000)])
    with Extractor() as extractor:
        document = extractor.load(path, 10**9)
        assert len(document.pages) == 2000
        assert document.page_at(document.text.index("Page 1999 of")) == 2000
    with Extractor(timeout=0.01) as impatient:
        with pytest.raises(NoteFailed, match="longer than"):
            impatient.load(path, 10**9)
        small = write_pdf(tmp_path / "small.pdf", PAGES[:1])
        impatient.timeout = 30
        assert "Sourdough" in impatient.load(small, 10**8).text  # a new worker took over


def test_a_worker_that_dies_fails_only_its_file(tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "long.pdf", [f"Page {i} text." for i in range(2000)])
    with Extractor() as extractor:
        extractor.load(write_pdf(tmp_path / "warm.pdf", PAGES[:1]), 10**8)  # worker started
        process = extractor._process
        threading.Timer(0.05, process.kill).start()  # as a crash in native code would
        with pytest.raises(NoteFailed, match="stopped on this file"):
            extractor.load(path, 10**9)
        time.sleep(0.1)
        assert "Sourdough" in extractor.load(tmp_path / "warm.pdf", 10**8).text


def test_the_worker_reads_ahead_in_order_out_of_order_and_past_a_broken_file(
    tmp_path: Path,
) -> None:
    files = [write_pdf(tmp_path / f"{n}.pdf", [PAGES[n]]) for n in range(3)]
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7 truncated")
    with Extractor() as extractor:
        extractor.expect([(files[0], 10**8), (broken, 10**8), (files[1], 10**8)])
        # Two sent before the first load: the worker is never idle while the caller works.
        assert extractor._in_flight == [(str(files[0]), 10**8), (str(broken), 10**8)]
        assert "Sourdough" in extractor.load(files[0], 10**8).text
        assert extractor._in_flight == [(str(broken), 10**8), (str(files[1]), 10**8)]
        with pytest.raises(NoteFailed, match="not a readable PDF"):
            extractor.load(broken, 10**8)  # its own failure, on its own load
        assert "rye loaf" in extractor.load(files[1], 10**8).text
        extractor.expect([(files[0], 10**8), (files[1], 10**8)])
        # Asked for a file it did not expect: what was sent ahead is not returned for it; a
        # new worker extracts that file, then the expected ones again, in order.
        assert "linen" in extractor.load(files[2], 10**8).text
        assert extractor._in_flight == [(str(files[0]), 10**8), (str(files[1]), 10**8)]
        assert "Sourdough" in extractor.load(files[0], 10**8).text


def test_a_file_the_caller_skips_or_a_stopped_worker_leaves_the_rest_in_order(
    tmp_path: Path,
) -> None:
    files = [write_pdf(tmp_path / f"{n}.pdf", [PAGES[n]]) for n in range(3)]
    long = write_pdf(tmp_path / "long.pdf", [f"Page {i} text." for i in range(2000)])
    with Extractor() as extractor:
        extractor.expect([(path, 10**8) for path in files])
        # files[0] is not loaded after all (its content had not changed): files[1]'s own answer
        assert "rye loaf" in extractor.load(files[1], 10**8).text
        assert extractor._in_flight == [(str(files[2]), 10**8)]
        assert "linen" in extractor.load(files[2], 10**8).text
        extractor.expect([(files[0], 10**8), (long, 10**9), (files[2], 10**8)])
        assert "Sourdough" in extractor.load(files[0], 10**8).text
        threading.Timer(0.05, extractor._process.kill).start()  # a crash on the long one
        with pytest.raises(NoteFailed, match="stopped on this file"):
            extractor.load(long, 10**9)
        assert extractor._in_flight == [(str(files[2]), 10**8)]  # sent again, once
        assert "linen" in extractor.load(files[2], 10**8).text


@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no fork server")
def test_each_worker_is_a_fork_of_one_fork_server_not_of_this_process(tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "one.pdf", [PAGES[0]])
    parents = set()
    for _ in range(2):
        with Extractor() as extractor:
            assert "Sourdough" in extractor.load(path, 10**8).text
            ps = ["ps", "-o", "ppid=", "-p", str(extractor._process.pid)]
            parents.add(int(subprocess.run(ps, capture_output=True, text=True).stdout))
    assert len(parents) == 1 and os.getpid() not in parents  # one server, never a fork of us


@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no fork server")
def test_a_fork_server_that_cannot_start_leaves_a_new_interpreter_per_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop_app.core import processes

    started = processes.start
    monkeypatch.setattr(processes, "FORK_SERVER_FAILED", [])

    def start(context: object, *args: object) -> object:
        if context.get_start_method() == "forkserver":  # type: ignore[attr-defined]
            raise OSError("no fork server here")
        return started(context, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(processes, "start", start)
    path = write_pdf(tmp_path / "one.pdf", [PAGES[0]])
    with Extractor() as extractor:
        assert "Sourdough" in extractor.load(path, 10**8).text
        ps = ["ps", "-o", "ppid=", "-p", str(extractor._process.pid)]
        assert int(subprocess.run(ps, capture_output=True, text=True).stdout) == os.getpid()
    assert processes.FORK_SERVER_FAILED == ["OSError: no fork server here"]


def test_skipped_and_failed_are_told_apart(tmp_path: Path) -> None:
    with Extractor() as extractor:
        with pytest.raises(NoteSkipped, match="no text layer"):
            extractor.load(write_scanned_pdf(tmp_path / "scan.pdf"), 10**8)
        (tmp_path / "empty.pdf").write_bytes(b"")
        with pytest.raises(NoteFailed, match="not a readable PDF"):
            extractor.load(tmp_path / "empty.pdf", 10**8)


def test_file_types_not_wanted_are_not_read_and_come_back_when_wanted(tmp_path: Path) -> None:
    import json

    from desktop_app.settings import Settings

    notes = tmp_path / "notes"
    notes.mkdir()
    write_pdf(notes / "bread.pdf", PAGES)
    (notes / "fine.md").write_text("# Fine\n\nA plain note about rye bread.\n", "utf-8")
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"ignored_types": ["PDF", "html"]}), "utf-8")
    quire = Quire.open(home)
    try:
        assert quire.settings.ignored_types == [".html", ".pdf"]  # as the user wrote it
        report = quire.index([notes])[0].report
        assert (report.scanned, report.indexed) == (1, 1)
        assert all(r.path == "fine.md" for r in quire.search("rye loaf covered pot", top_k=5))
        wanted = Settings(ignored_types=[])
        assert quire.apply_settings(wanted) == ["file types"]
        again = quire.index([notes])[0].report
        assert again.indexed == 1 and quire.search("rye loaf covered pot", top_k=1)[0].page == 2
        assert quire.apply_settings(Settings(ignored_types=[".pdf"])) == ["file types"]
        assert quire.index([notes])[0].report.removed == 1  # no longer wanted: dropped
    finally:
        quire.close()


TOMATOES = "Tomatoes go in the south bed in May.\n"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("garden.org", f"* Garden\nIntro line.\n** Beds\n{TOMATOES}"),
        ("garden.adoc", f"= Garden\n\nIntro line.\n\n== Beds\n\n{TOMATOES}"),
        ("garden.rst", f"Garden\n======\n\nIntro line.\n\nBeds\n----\n\n{TOMATOES}"),
    ],
)  # fmt: skip
def test_org_asciidoc_and_rst_headings_give_the_heading_path(
    tmp_path: Path, name: str, text: str
) -> None:
    from desktop_app.core.ingest.note_analysis import analyze_note

    (tmp_path / name).write_text(text, "utf-8")
    document = formats.load(tmp_path / name, 10**6)
    assert document.text == text  # shown and cited as the file itself
    chunks = analyze_note(name, document, 20).chunks
    tomato = next(c.chunk for c in chunks if "Tomatoes" in c.chunk.text)
    assert tomato.heading_path == ("Garden", "Beds")
    assert text[tomato.start : tomato.end] == tomato.text


def test_web_page_furniture_is_dropped_and_lists_keep_their_numbers() -> None:
    from desktop_app.core.ingest.formats.html import markdown_of

    page = (
        '<div class="navheader"><table><tr><td>Prev</td><td>Chapter 4</td></tr></table></div>'
        '<div role="navigation"><ul><li>Home</li><li>About</li></ul></div>'
        "<h1>Users</h1><ol><li><p>Login name</p></li><li>Numerical user ID</li></ol>"
        "<p>A database may hold 2<sup>48</sup> bytes.</p><p>2. Not a heading</p>"
    )
    text = markdown_of(page)
    assert "Prev" not in text and "Home" not in text  # navigation is not content
    assert "1. Login name\n2. Numerical user ID" in text
    assert "2^48 bytes" in text and "\\" not in text


def test_unclosed_items_inside_dropped_navigation_do_not_swallow_the_page() -> None:
    from desktop_app.core.ingest.formats.html import markdown_of

    page = ('<div class="menu mainmenu"><ul><li><a href="/">Home</a><li>About</ul></div>'
            "<h1>Autoincrement</h1><p>The keyword imposes extra CPU cost.</p>")  # fmt: skip
    text = markdown_of(page)
    assert "Home" not in text and "The keyword imposes extra CPU cost." in text


def test_pdf_paragraphs_stay_paragraphs_and_printed_hyphens_stay(tmp_path: Path) -> None:
    first = "The first paragraph talks about herons. " * 4
    second = "The second paragraph is about update-alternatives and Mittelstrecken- und more. " * 3
    path = write_pdf(tmp_path / "two.pdf", [first + "\n\n" + second])
    document = formats.load(path, 10**8)
    assert "herons. \n\nThe second paragraph" in document.text  # a blank line between
    assert "update-alternatives" in document.text.replace("\n", "")
    start = document.text.index("The second")
    boxes = pdf.char_boxes(path, 1, start, start + len("The second"))
    assert len(boxes) == len("Thesecond")  # one pdfium character per text character still


def test_a_cancelled_run_does_not_wait_for_a_long_extraction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop_app.core.cancel import Cancelled, CancelToken
    from desktop_app.core.ingest import extractor as extraction

    path = write_pdf(tmp_path / "long.pdf", [f"Page {i} text." for i in range(2000)])
    monkeypatch.setattr(extraction, "POLL_SECONDS", 0.005)
    cancel = CancelToken()
    with Extractor(cancel=cancel) as extractor:
        threading.Timer(0.01, cancel.cancel).start()  # long before 2,000 pages are read
        with pytest.raises(Cancelled):
            extractor.load(path, 10**9)
        assert extractor._process is None  # the worker was stopped, not left running
