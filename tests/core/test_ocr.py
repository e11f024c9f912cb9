"""Scans and pictures read by OCR (real Tesseract through tesserocr, small pictures): found by
a Czech word with its diacritics, word boxes on the picture, pages turned upright, and every
bad picture failing alone with a reason."""

from __future__ import annotations

import os
import struct
import time
import zlib
from pathlib import Path

import pytest

from desktop_app.core.api import Quire
from desktop_app.core.ingest import formats, ocr
from desktop_app.core.ingest.extractor import Extractor
from desktop_app.core.ingest.note_file import NoteFailed, NoteSkipped
from desktop_app.settings import Settings
from tests.support.documents import draw_page, overlap, write_picture, write_scanned_text_pdf

pytestmark = pytest.mark.usefixtures("fake_embedder")

PICTURES = Path(__file__).resolve().parents[1] / "data" / "pictures"  # README.md there
CZECH = ["Příliš žluťoučký kůň úpěl ďábelské ódy.", "Smlouva o nájmu bytu v Brně."]
GERMAN = ["Die Straße ist schön, die Mädchen gehen über die Brücke zum Bahnhof."]


def test_ocr_runs_here_with_the_shipped_languages() -> None:
    assert ocr.unavailable() == ""
    assert ocr.installed_languages() == ["ces", "deu", "eng"]
    assert ocr.engine_name().startswith("Tesseract 5.")


def test_a_scanned_pdf_page_is_indexed_and_found_by_a_czech_word(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    cover = ["Úvodní strana", *(f"Odstavec {n}: Die Straße ist schön und breit." for n in range(8))]
    write_scanned_text_pdf(notes / "smlouva.pdf", [cover, CZECH])
    quire = Quire.open(tmp_path / "home")
    try:
        report = quire.index([notes], embed=False)[0].report
        assert report.indexed == 1, report.problems
        hits = quire.search("žluťoučký kůň", top_k=3)
        assert hits and hits[0].path == "smlouva.pdf" and hits[0].page == 2
        found = hits[0]
        assert "žluťoučký kůň" in found.text
    finally:
        quire.close()


def test_a_picture_is_indexed_and_found_by_a_czech_word(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    write_picture(notes / "tabule.png", CZECH)
    (notes / "plain.md").write_text("# Plain\n\nNothing about horses.\n", "utf-8")
    quire = Quire.open(tmp_path / "home")
    try:
        assert quire.index([notes], embed=False)[0].report.indexed == 2
        hits = quire.search("nájmu bytu", top_k=3)
        assert hits and hits[0].path == "tabule.png"
        assert "Smlouva o nájmu bytu v Brně" in hits[0].text
    finally:
        quire.close()


def test_a_phone_photo_in_heic_is_indexed_and_found_and_a_damaged_one_fails_alone(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    heic = (PICTURES / "tabule.heic").read_bytes()
    (notes / "IMG_0001.HEIC").write_bytes(heic)
    (notes / "IMG_0002.heic").write_bytes(heic[: len(heic) // 2])  # the copy broke off
    quire = Quire.open(tmp_path / "home")
    try:
        report = quire.index([notes], embed=False)[0].report
        assert report.indexed == 1
        [(path, kind, reason)] = report.problems
        assert (path, kind) == ("IMG_0002.heic", "failed") and "damaged picture" in reason
        hits = quire.search("žluťoučký kůň", top_k=3)
        assert hits and hits[0].path == "IMG_0001.HEIC"
        assert "Smlouva o nájmu bytu v Brně" in hits[0].text
    finally:
        quire.close()


def test_each_word_keeps_its_box_on_the_picture() -> None:
    picture = draw_page(CZECH)
    page = ocr.read_page(picture, 300, ocr.DEFAULT_LANGUAGES)
    for word in ("žluťoučký", "nájmu", "Brně"):
        start = page.text.index(word)
        box = next(w[2:] for w in page.words if w[0] == start)
        left, top, right, bottom = picture.info["boxes"][word]
        width, height = picture.size
        drawn = (left / width, top / height, right / width, bottom / height)
        assert overlap(box, drawn) > 0.6, (word, box, drawn)


@pytest.mark.parametrize("turn", [90, 180, 270])
def test_a_turned_page_is_read_upright_with_boxes_where_the_words_are(turn: int) -> None:
    upright = draw_page(GERMAN, width=1900)
    picture = upright.rotate(turn, expand=True)
    page = ocr.read_page(picture, 300, ocr.DEFAULT_LANGUAGES)
    assert "Straße ist schön" in page.text
    start = page.text.index("Bahnhof")
    box = next(w[2:] for w in page.words if w[0] == start)
    x0, y0, x1, y1 = _turned(upright.info["boxes"]["Bahnhof"], upright.size, turn)
    assert overlap(box, (x0, y0, x1, y1)) > 0.6, (box, (x0, y0, x1, y1))


def test_german_umlauts_are_not_read_as_czech_letters() -> None:
    page = ocr.read_page(draw_page(GERMAN * 3), 300, ocr.DEFAULT_LANGUAGES)
    for word in ("Straße", "schön", "Mädchen", "über", "Brücke"):
        assert word in page.text


def test_bad_pictures_fail_alone_with_a_reason(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00garbage" * 50)
    (notes / "cut.jpg").write_bytes(_jpeg(tmp_path)[:400])
    (notes / "bomb.png").write_bytes(_png_claiming(100_000, 100_000))
    _huge_png(notes / "huge.png", 20_000, 20_000)
    write_picture(notes / "good.png", CZECH)
    quire = Quire.open(tmp_path / "home")
    try:
        report = quire.index([notes], embed=False)[0].report
        reasons = {path: (status, reason) for path, status, reason in report.problems}
        assert reasons["corrupt.png"][0] == "failed" and "picture" in reasons["corrupt.png"][1]
        assert reasons["cut.jpg"][0] == "failed" and "damaged" in reasons["cut.jpg"][1]
        for name in ("bomb.png", "huge.png"):
            assert reasons[name][0] == "failed" and "too large" in reasons[name][1], reasons
        assert report.indexed == 1 and quire.search("žluťoučký", top_k=1)[0].path == "good.png"
    finally:
        quire.close()


def test_a_file_whose_bytes_did_not_change_is_not_read_again(tmp_path: Path) -> None:
    """Read again, the picture would now be skipped (OCR is off the second time): it is
    still indexed and found, so its unchanged bytes were not read again."""
    notes = tmp_path / "notes"
    notes.mkdir()
    picture = write_picture(notes / "tabule.png", CZECH)
    quire = Quire.open(tmp_path / "home")
    try:
        assert quire.index([notes], embed=False)[0].report.indexed == 1
    finally:
        quire.close()
    os.utime(picture, (time.time() + 60, time.time() + 60))  # a new time, the same bytes
    quire = Quire.open(tmp_path / "home", Settings(ocr=False))
    try:
        again = quire.index([notes], embed=False)[0].report
        assert (again.indexed, again.unchanged, again.problems) == (0, 1, [])
        assert quire.search("nájmu", top_k=1)[0].path == "tabule.png"
    finally:
        quire.close()


def test_ocr_off_leaves_pictures_and_scans_unread(tmp_path: Path) -> None:
    picture = write_picture(tmp_path / "tabule.png", CZECH)
    scan = write_scanned_text_pdf(tmp_path / "scan.pdf", [CZECH])
    with pytest.raises(NoteSkipped, match="OCR is off"):
        formats.load(picture, 10**8)
    with pytest.raises(NoteSkipped, match="no text layer"):
        formats.load(scan, 10**8)


def test_the_extractor_reads_a_long_scan_page_by_page_past_its_time_limit(tmp_path: Path) -> None:
    """Each page read starts the time limit again: a scan longer than the limit is read
    whole, while one stuck page would still fail."""
    pages = [[f"Strana {n}: {CZECH[0]}"] for n in range(1, 7)]
    scan = write_scanned_text_pdf(tmp_path / "long.pdf", pages)
    started = time.monotonic()
    with Extractor(ocr_languages=ocr.DEFAULT_LANGUAGES) as warm:  # a first page: models loaded
        warm.load(write_scanned_text_pdf(tmp_path / "one.pdf", pages[:1]), 10**8)
    one_page = (time.monotonic() - started) / 2
    # room for a page read while the machine is busier than when one was timed (two test
    # workers on two cores), and the whole scan still several times one page
    with Extractor(timeout=max(2.0, 3.5 * one_page), ocr_languages=ocr.DEFAULT_LANGUAGES) as ex:
        document = ex.load(scan, 10**8)
    assert document.ocr_pages == tuple(range(6))
    assert all(f"Strana {n}" in document.text for n in range(1, 7))


def test_a_picture_read_in_the_worker_fails_there_when_it_is_not_one(tmp_path: Path) -> None:
    fake = tmp_path / "photo.jpg"
    fake.write_text("not a photo at all", "utf-8")
    with (
        Extractor(ocr_languages=ocr.DEFAULT_LANGUAGES) as extractor,
        pytest.raises(NoteFailed, match="not a picture"),
    ):
        extractor.load(fake, 10**8)


def _turned(
    box: tuple[float, float, float, float], size: tuple[int, int], turn: int
) -> tuple[float, float, float, float]:
    """A box on the upright picture (pixels) as fractions of the picture turned
    counterclockwise by `turn`."""
    w, h = size
    x0, y0, x1, y1 = box[0] / w, box[1] / h, box[2] / w, box[3] / h
    corners = {
        90: [(y0, 1 - x0), (y1, 1 - x1)],
        180: [(1 - x0, 1 - y0), (1 - x1, 1 - y1)],
        270: [(1 - y0, x0), (1 - y1, x1)],
    }[turn]
    (a, b), (c, d) = corners
    return min(a, c), min(b, d), max(a, c), max(b, d)


def _jpeg(tmp_path: Path) -> bytes:
    path = write_picture(tmp_path / "whole.jpg", CZECH)
    return path.read_bytes()


def _png_claiming(width: int, height: int) -> bytes:
    """A few hundred bytes whose header says `width` × `height` pixels (a decompression bomb)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    rows = zlib.compress(b"\x00" + b"\xff" * 1000, 9)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")
    )


def _huge_png(path: Path, width: int, height: int) -> None:
    from PIL import Image

    Image.new("1", (width, height), 1).save(path)


def test_status_names_each_file_read_by_ocr_with_its_pages(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    write_scanned_text_pdf(notes / "scan.pdf", [CZECH, GERMAN])
    write_picture(notes / "tabule.png", CZECH)
    (notes / "plain.md").write_text("# Plain\n\nTyped, not scanned.\n", "utf-8")
    quire = Quire.open(tmp_path / "home")
    try:
        quire.index([notes], embed=False)
        said = {f.path: f.read_by_ocr for f in quire.status().listed_files()}
    finally:
        quire.close()
    assert said == {
        "scan.pdf": "read by OCR (2 pages)",
        "tabule.png": "read by OCR (1 page)",
        "plain.md": "",
    }


def test_indexing_progress_counts_the_pages_ocr_reads(tmp_path: Path) -> None:
    from desktop_app.core.cancel import Phase, Progress

    notes = tmp_path / "notes"
    notes.mkdir()
    write_scanned_text_pdf(notes / "scan.pdf", [CZECH, GERMAN, CZECH[::-1]])
    seen: list[Progress] = []
    quire = Quire.open(tmp_path / "home")
    try:
        quire.index([notes], seen.append, embed=False)
    finally:
        quire.close()
    pages = [(p.done, p.total, p.detail) for p in seen if p.phase == Phase.OCR]
    assert pages == [(1, 3, "scan.pdf"), (2, 3, "scan.pdf"), (3, 3, "scan.pdf")]


def test_a_mixed_pdf_ocrs_only_its_pages_without_text(tmp_path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("helvetica", size=12)
    pdf.add_page()
    pdf.multi_cell(0, 6, "A typed page about the rent of the flat in Brno. " * 4)
    pdf.add_page()
    picture = draw_page(CZECH)
    pdf.image(picture, x=10, y=10, w=picture.width * 25.4 / 300)
    pdf.output(str(tmp_path / "mixed.pdf"))
    with Extractor(ocr_languages=ocr.DEFAULT_LANGUAGES) as extractor:
        document = extractor.load(tmp_path / "mixed.pdf", 10**8)
    assert document.ocr_pages == (1,)
    assert "typed page about the rent" in document.text[: document.pages[1]]
    assert "žluťoučký kůň" in document.text[document.pages[1] :]
    assert all(word[0] == 1 for word in document.ocr_words)


def test_the_command_line_says_which_files_ocr_read_and_what_it_is_reading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], quire_home: Path
) -> None:
    import json

    from desktop_app import cli

    notes = tmp_path / "notes"
    notes.mkdir()
    write_scanned_text_pdf(notes / "scan.pdf", [CZECH, GERMAN])
    assert cli.main(["index", "--no-embed", str(notes)]) == 0
    _, err = capsys.readouterr()
    assert "Reading scanned pages" in err  # the progress counts its pages
    assert cli.main(["status"]) == 0
    out, _ = capsys.readouterr()
    assert "pending embedding: scan.pdf — read by OCR (2 pages)" in out  # --no-embed
    assert cli.main(["status", "--json"]) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    assert [(f["path"], f["ocr_pages"]) for f in files] == [("scan.pdf", 2)]


def test_a_picture_is_opened_only_as_the_format_its_name_says(tmp_path: Path) -> None:
    """PostScript named .png would run Ghostscript under Pillow's EPS reader: never opened."""
    eps = tmp_path / "drawing.png"
    eps.write_bytes(b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 100 100\nshowpage\n")
    with pytest.raises(NoteFailed, match="not a picture Quire can read"):
        formats.load(eps, 10**8, ocr.DEFAULT_LANGUAGES)


def test_a_very_tall_screenshot_is_read_smaller_not_ended(tmp_path: Path) -> None:
    """Tesseract ends its process on a side over 32,767 pixels: such a picture is scaled."""
    from PIL import Image

    tall = Image.new("L", (1000, 33_000), 255)
    tall.paste(draw_page(CZECH, width=1000), (0, 0))
    page = ocr.read_page(tall, 300, ocr.DEFAULT_LANGUAGES)  # in this process: a crash ends it
    assert "Smlouva" in page.text


def test_a_picture_without_text_is_not_read_again_while_its_bytes_stay(tmp_path: Path) -> None:
    from PIL import Image

    notes = tmp_path / "notes"
    notes.mkdir()
    Image.new("L", (400, 300), 255).save(notes / "blank.png")
    quire = Quire.open(tmp_path / "home")
    try:
        first = quire.index([notes], embed=False)[0].report
        assert first.problems == [("blank.png", "skipped", "no text found by OCR (ces deu eng)")]
        again = quire.index([notes], embed=False)[0].report
        assert (again.unchanged, again.problems) == (1, [])
    finally:
        quire.close()


def test_a_multi_page_tiff_says_only_its_first_page_is_read(tmp_path: Path) -> None:
    first, second = draw_page(CZECH), draw_page(GERMAN)
    first.save(tmp_path / "fax.tif", save_all=True, append_images=[second])
    document = formats.load(tmp_path / "fax.tif", 10**8, ocr.DEFAULT_LANGUAGES)
    assert "žluťoučký" in document.text and "Straße" not in document.text
    assert document.warning == "only the first of its 2 pages is read"


def test_a_long_scan_past_the_page_cap_says_how_many_pages_were_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop_app.core.ingest.formats import pdf

    monkeypatch.setattr(pdf, "MAX_OCR_PAGES", 2)
    scan = write_scanned_text_pdf(tmp_path / "book.pdf", [CZECH, GERMAN, CZECH])
    document = formats.load(scan, 10**8, ocr.DEFAULT_LANGUAGES)
    assert document.ocr_pages == (0, 1)
    assert "1 pages left unread (OCR reads 2 of a file)" in document.warning


def test_uneven_light_is_told_from_an_evenly_lit_page() -> None:
    """A photo's uneven light needs Sauvola's local threshold; a scan reads with the global one."""
    from PIL import Image, ImageChops

    page = draw_page(CZECH)
    light = Image.linear_gradient("L").resize(page.size).point(lambda v: 255 - v // 4)
    assert not ocr._uneven_light(page)
    assert ocr._uneven_light(ImageChops.multiply(page, light))
