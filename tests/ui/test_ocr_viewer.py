"""A passage of a picture or of a scanned PDF page opens the picture (the page) with the words
OCR read there highlighted where they stand (real widgets offscreen, real Tesseract)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

pytest.importorskip("pytestqt")

from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.pdf_page import PdfPageView
from tests.support.clicks import indexed_window
from tests.support.documents import draw_page, overlap, write_scanned_text_pdf

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("fake_embedder")]
CZECH = ["Příliš žluťoučký kůň úpěl ďábelské ódy.", "Smlouva o nájmu bytu v Brně."]
LETTER = ["Vážený pane, posíláme vám žluťoučký kůň zpět.", "Děkujeme za trpělivost."]


@pytest.fixture
def picture(request: pytest.FixtureRequest) -> str:
    """The picture's name in the folder: `tabule.png` unless a test names another."""
    return str(getattr(request, "param", "tabule.png"))


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, quire_home: Path, picture: str) -> Iterator[MainWindow]:
    source = tmp_path / "source"
    source.mkdir()
    if picture.endswith(".heic"):  # the same drawing, made by another program (README there)
        heic = Path(__file__).resolve().parents[1] / "data" / "pictures" / "tabule.heic"
        (source / picture).write_bytes(heic.read_bytes())
    else:
        draw_page(CZECH).save(source / picture)
    cover = [f"Odstavec {n}: Die Straße ist schön und breit." for n in range(8)]
    write_scanned_text_pdf(source / "scan.pdf", [cover, LETTER])
    yield from indexed_window(qtbot, tmp_path / "notes", source, quire_home)


def _open_at(window: MainWindow, folder: Path, path: str, word: str) -> PdfPageView:
    """Open `path` at `word` (found by search, as a citation would) in the viewer."""
    hits = window.quire.search(word, top_k=5)
    hit = next(r for r in hits if r.path == path and word in r.text)
    at = hit.start + hit.text.index(word)
    assert window.viewer.open_passage(folder, path, at, at + len(word), 1, 1)
    return window.viewer.pdf_page


# Qt decodes the PNG; the HEIF photo, which Qt cannot, the core decodes.
@pytest.mark.parametrize("picture", ["tabule.png", "photo.heic"], indirect=True)
def test_a_picture_opens_with_the_cited_word_highlighted_where_it_stands(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, picture: str
) -> None:
    view = _open_at(window, tmp_path / "notes", picture, "nájmu")
    assert window.viewer.views.currentWidget() is view and "read by OCR" in view_heading(window)
    assert len(view.highlights) == 1
    image = view.page_label.pixmap().toImage()
    drawn_page = draw_page(CZECH)  # drawn the same again: where the word stands
    left, top, right, bottom = drawn_page.info["boxes"]["nájmu"]
    scale = image.width() / drawn_page.width
    rect = view.highlights[0]
    drawn = (left * scale, top * scale, right * scale, bottom * scale)
    shown = (rect.x(), rect.y(), rect.x() + rect.width(), rect.y() + rect.height())
    assert overlap(shown, drawn) > 0.6, (shown, drawn)
    tint = image.pixelColor(int(rect.center().x()), int(rect.y() + 1))
    assert (tint.red(), tint.green(), tint.blue()) != (255, 255, 255)


def test_a_scanned_pdf_page_opens_with_the_cited_words_highlighted(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    view = _open_at(window, tmp_path / "notes", "scan.pdf", "žluťoučký kůň")
    assert view.page == 2 and "p. 2" in view_heading(window)
    assert len(view.highlights) == 2  # two words, each its box
    image = view.page_label.pixmap().toImage()
    for rect in view.highlights:
        assert 0 < rect.x() < image.width() and 0 < rect.y() < image.height() / 2
        assert rect.width() > rect.height() > 0  # a word's box on its line


def view_heading(window: MainWindow) -> str:
    return window.viewer.heading.text()
