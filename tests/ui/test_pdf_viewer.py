"""A `[n]` on a PDF passage opens the page, rendered, with exactly the cited characters' boxes
highlighted (real widgets offscreen, the queued fake model, real pdfium)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

pytest.importorskip("pytestqt")

from desktop_app.core.ingest.formats import pdf
from desktop_app.ui.main_window import MainWindow
from tests.support.clicks import INDEXED, click_link, indexed_window, link_hrefs
from tests.support.documents import write_pdf
from tests.support.fakes import QueuedModel

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("fake_embedder")]
PAGES = [
    "Sourdough starter needs feeding twice a day with equal weights of flour and water. " * 3,
    "The rye loaf bakes at 240 degrees for fifty minutes in a covered pot. "
    "Let it cool for a whole day before cutting it, or the crumb stays gummy.",
    "Store the finished bread wrapped in linen, never in the fridge. " * 3,
]


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, quire_home: Path) -> Iterator[MainWindow]:
    source = tmp_path / "source"
    source.mkdir()
    write_pdf(source / "bread.pdf", PAGES, outline=["Starter", "Baking", "Storing"])
    yield from indexed_window(qtbot, tmp_path / "notes", source, quire_home)


def test_a_citation_opens_the_pdf_page_with_the_cited_characters_highlighted(
    qtbot: QtBot, window: MainWindow, queued_model: QueuedModel, tmp_path: Path
) -> None:
    queued_model.answers.append("Bake the rye loaf at 240 degrees for fifty minutes [1].")
    with qtbot.waitSignal(window.chat.finished, timeout=INDEXED) as done:
        window.chat.ask("At what temperature does the rye loaf bake?")
    assert done.args[0].answerable
    evidence = window.chat.turns[0].evidence[0]
    assert evidence.path == "bread.pdf" and evidence.page == 2
    click_link(qtbot, window.chat.view, "quire:evidence/0/0")
    view = window.viewer.pdf_page
    assert window.viewer.views.currentWidget() is view and view.page == 2
    assert "p. 2" in window.viewer.heading.text()
    note = tmp_path / "notes" / "bread.pdf"
    starts = window.quire.page_starts(tmp_path / "notes", "bread.pdf")
    page, start, end = pdf.span_on_page(starts, evidence.start, evidence.end)
    expected = pdf.char_boxes(note, page, start, end)  # straight from pdfium
    assert len(expected) == sum(1 for ch in evidence.text if not ch.isspace())
    rendered = pdf.render_page(note, 2, view.scale)
    shown = [(r.x(), r.y(), r.width(), r.height()) for r in view.highlights]
    flat = [v for rect in shown for v in rect]
    assert flat == pytest.approx([v for b in expected for v in rendered.rect(b)])
    image = view.page_label.pixmap().toImage()
    x, y, w, _ = shown[0]
    tint = image.pixelColor(int(x + w / 2), int(y + 1))  # painted over: not white paper
    assert (tint.red(), tint.green(), tint.blue()) != (255, 255, 255)
    answer_links = [h for h in link_hrefs(window.chat.view) if h.startswith("quire:source/0/")]
    assert answer_links  # the queued answer cites [1] for what the page says
    window.viewer.pdf_page.page = 0
    click_link(qtbot, window.chat.view, answer_links[0])  # it opens its passage's page as well
    assert view.page == 2


def test_switching_pdfs_off_in_settings_drops_them_and_on_brings_them_back(
    qtbot: QtBot, window: MainWindow
) -> None:
    def notes() -> int:
        return -1 if window.last_status is None else window.last_status.counts.notes

    qtbot.waitUntil(lambda: window.ready and notes() == 1, timeout=INDEXED)
    dialog = window.open_settings()
    dialog.file_kinds["PDF"].setChecked(False)
    dialog.accept()
    assert window.quire.settings.ignored_types == [".pdf"]
    qtbot.waitUntil(lambda: window.ready and notes() == 0, timeout=INDEXED)
    dialog = window.open_settings()
    assert not dialog.file_kinds["PDF"].isChecked()  # the dialog shows what is saved
    dialog.file_kinds["PDF"].setChecked(True)
    dialog.accept()
    qtbot.waitUntil(lambda: window.ready and notes() == 1, timeout=INDEXED)
    assert window.quire.search("rye loaf", top_k=1)[0].page == 2
