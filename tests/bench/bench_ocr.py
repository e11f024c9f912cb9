"""OCR benchmark (issue 50): what Quire reads from scans and photos, how well search finds it,
and what it costs next to raw Tesseract.

Material, built here from text we may redistribute: paragraphs of XQuAD (en, de) and CTKFacts
(cs) drawn as A4 pages at 300 dpi (DejaVu Serif, tests/data/fonts) in three forms: clean PNG
pages, "photos" (turned a few degrees, uneven light, blur, noise, 200 dpi, JPEG quality 60,
no resolution said), and image-only PDFs of the clean pages; and a real document, the bundled
guide PDF, rendered to an image-only PDF.

For each language and form: the character error rate against the truth (whitespace folded);
Hit@5 of the paragraph's questions when the pages are indexed among the set's other notes,
against the same paragraphs as text notes; seconds per page by Quire (`formats.load`, the
extraction worker's path) against raw tesserocr on the same picture in the same run (one
`PyTessBaseAPI` with the same languages: SetImage, GetUTF8Text). Goals: error rate ≤ 2 % on
clean pages and ≤ 5 % on the photos, in each language; Hit@5 within 0.05 of the text form;
speed ≥ 0.8× raw.

usage: python tests/bench/bench_ocr.py [--paragraphs 8] [--page docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "eval"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from desktop_app import paths  # noqa: E402
from desktop_app.core.api import Quire  # noqa: E402
from desktop_app.core.ingest import formats, ocr  # noqa: E402
from tests.bench.page import record  # noqa: E402

SETS = {"en": "xquad-en", "de": "xquad-de", "cs": "ctkfacts-cs"}
FONT = ROOT / "tests" / "data" / "fonts" / "DejaVuSerif.ttf"
A4 = (2480, 3508)  # pixels at 300 dpi
FORMS = ("clean PNG", "photo JPEG", "image-only PDF")


@dataclass
class Paragraph:
    name: str  # the file the paragraph becomes, without suffix
    text: str
    questions: list[str] = field(default_factory=list)
    source: str = ""  # the set's note it comes from (left out of the distractors)


def paragraphs(language: str, count: int) -> tuple[list[Paragraph], Path]:
    """`count` paragraphs of the language's set, each from another note, with its questions."""
    folder = EVAL / SETS[language]
    chosen: dict[tuple[str, int, int], Paragraph] = {}
    for line in (folder / "questions.jsonl").read_text("utf-8").splitlines():
        q = json.loads(line)
        note = (folder / "notes" / q["path"]).read_text("utf-8")
        span = (q["path"], q.get("passage_start", 0), q.get("passage_end", len(note)))
        if span not in chosen:
            if len(chosen) == count or any(k[0] == q["path"] for k in chosen):
                continue
            text = note[span[1] : span[2]].strip()
            chosen[span] = Paragraph(f"{language}-{len(chosen):02d}", text, source=q["path"])
        chosen[span].questions.append(q["question"])
    return list(chosen.values()), folder / "notes"


def draw(text: str) -> Any:
    """A clean A4 page at 300 dpi with `text` in 11 pt serif, wrapped to the margins."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(FONT), 46)
    page = Image.new("L", A4, 255)
    pen = ImageDraw.Draw(page)
    y = 300
    for block in text.split("\n"):
        for line in textwrap.wrap(block, 68) or [""]:
            pen.text((250, y), line, font=font, fill=0)
            y += 66
    return page


def photo(page: Any, rng: random.Random) -> Any:
    """The page as a phone would take it: turned a little, uneven light, soft, noisy, smaller."""
    from PIL import Image, ImageChops, ImageFilter

    turned = page.rotate(rng.uniform(-3.0, 3.0), expand=True, fillcolor=255)
    light = Image.linear_gradient("L").resize(turned.size).point(lambda v: 255 - v // 4)
    lit = ImageChops.multiply(turned, light)
    noise = Image.effect_noise(lit.size, 18).point(lambda v: v - 128 + 255)
    grainy = ImageChops.multiply(lit, noise.convert("L"))
    soft = grainy.filter(ImageFilter.GaussianBlur(1.2))
    return soft.resize((soft.width * 2 // 3, soft.height * 2 // 3))


def image_pdf(pages: list[Any], path: Path) -> Path:
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format=(595.28, 841.89))
    for page in pages:
        pdf.add_page()
        pdf.image(page, x=0, y=0, w=595.28, h=841.89)
    pdf.output(str(path))
    return path


def error_rate(read: str, truth: str) -> float:
    """Levenshtein distance over the truth's length, whitespace folded in both."""
    a, b = " ".join(read.split()), " ".join(truth.split())
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1] / max(1, len(b))


class Raw:
    """Plain tesserocr, one API with the same languages, on the same file: the picture
    decoded by Pillow, a PDF page rendered by pypdfium2 at 300 dpi (as Quire must)."""

    def __init__(self, languages: str) -> None:
        import tesserocr

        self.api = tesserocr.PyTessBaseAPI(path=str(ocr.tessdata_dir()), lang=languages)

    def seconds(self, path: Path, page: int = 0, dpi: int = 300) -> float:
        started = time.perf_counter()
        self.api.SetImage(self.picture(path, page))
        self.api.SetSourceResolution(dpi)
        self.api.GetUTF8Text()
        return time.perf_counter() - started

    @staticmethod
    def picture(path: Path, page: int) -> Any:
        if path.suffix != ".pdf":
            from PIL import Image

            return Image.open(path)
        import pypdfium2 as pdfium

        pdf = pdfium.PdfDocument(path)
        try:
            return pdf[page].render(scale=300 / 72, grayscale=True).to_pil()
        finally:
            pdf.close()


@dataclass
class Row:
    language: str
    form: str
    pages: int = 0
    errors: list[float] = field(default_factory=list)
    quire: float = 0.0
    raw: float = 0.0
    hit_ocr: float = 0.0
    hit_text: float = 0.0


def write_forms(
    paras: list[Paragraph], where: Path, rng: random.Random
) -> dict[str, list[tuple[Path, str]]]:
    """Each paragraph in each form: (the file, the text drawn on its one page)."""
    out: dict[str, list[tuple[Path, str]]] = {form: [] for form in FORMS}
    for form in FORMS:
        (where / form).mkdir(parents=True)
    for p in paras:
        clean = draw(p.text)
        png = where / FORMS[0] / f"{p.name}.png"
        clean.save(png, dpi=(300, 300))
        out[FORMS[0]].append((png, p.text))
        shot = photo(clean, rng)
        jpg = where / FORMS[1] / f"{p.name}.jpg"
        shot.save(jpg, quality=60)
        out[FORMS[1]].append((jpg, p.text))
        pdf = image_pdf([clean], where / FORMS[2] / f"{p.name}.pdf")
        out[FORMS[2]].append((pdf, p.text))
    return out


def read_and_time(
    files: list[tuple[Path, str]], row: Row, raw: Raw, languages: tuple[str, ...]
) -> None:
    for path, truth in files:
        started = time.perf_counter()
        document = formats.load(path, 10**9, languages)
        row.quire += time.perf_counter() - started
        row.raw += raw.seconds(path, 0, 300 if path.suffix != ".jpg" else ocr.PHOTO_DPI)
        row.errors.append(error_rate(document.text, truth))
        row.pages += 1


def hit_at_5(base: Path, folder: Path, paras: list[Paragraph], work: Path) -> float:
    """Hit@5 of the paragraphs' questions with `folder` indexed beside the distractors in
    `base` (a Quire home, copied)."""
    home = work / f"home-{folder.parent.name}-{folder.name}"
    shutil.copytree(base, home)
    quire = Quire.open(home)
    try:
        quire.index([folder])
        hits = total = 0
        for p in paras:
            for question in p.questions:
                found = [Path(r.path).stem for r in quire.search(question, top_k=5)]
                hits += p.name in found
                total += 1
    finally:
        quire.close()
    return hits / max(1, total)


def distractors(language: str, notes: Path, paras: list[Paragraph], work: Path) -> Path:
    """A Quire home with the set's other notes indexed (as text, with vectors)."""
    folder = work / f"distractors-{language}"
    shutil.copytree(notes, folder, ignore=shutil.ignore_patterns(*{p.source for p in paras}))
    home = work / f"base-{language}"
    quire = Quire.open(home)
    try:
        quire.index([folder])
    finally:
        quire.close()
    return home


def bench_language(language: str, count: int, work: Path, raw: Raw) -> list[Row]:
    paras, notes = paragraphs(language, count)
    where = work / language
    forms = write_forms(paras, where, random.Random(language))
    text_folder = where / "text"
    text_folder.mkdir()
    for p in paras:
        (text_folder / f"{p.name}.md").write_text(p.text + "\n", "utf-8")
    base = distractors(language, notes, paras, work)
    text_hit = hit_at_5(base, text_folder, paras, work)
    rows = []
    for form, files in forms.items():
        row = Row(language, form, hit_text=text_hit)
        read_and_time(files, row, raw, ocr.DEFAULT_LANGUAGES)
        row.hit_ocr = hit_at_5(base, where / form, paras, work)
        rows.append(row)
    return rows


def real_document(work: Path, raw: Raw) -> Row:
    """The bundled guide PDF, each page rendered at 300 dpi, as an image-only PDF."""
    import pypdfium2 as pdfium

    source = paths.sample_notes() / "guides" / "quire-guide.pdf"
    original = pdfium.PdfDocument(source)
    pages, truths = [], []
    for page in original:
        pages.append(page.render(scale=300 / 72, grayscale=True).to_pil())
        truths.append(page.get_textpage().get_text_range())
    original.close()
    scanned = image_pdf(pages, work / "guide-scanned.pdf")
    row = Row("en", "real document (guide PDF)")
    started = time.perf_counter()
    document = formats.load(scanned, 10**9, ocr.DEFAULT_LANGUAGES)
    row.quire = time.perf_counter() - started
    ends = [*document.pages[1:], len(document.text)]
    for n, (start, end) in enumerate(zip(document.pages, ends, strict=True)):
        row.errors.append(error_rate(document.text[start:end], truths[n]))
        row.raw += raw.seconds(scanned, n)
        row.pages += 1
    row.hit_ocr = row.hit_text = float("nan")
    return row


def report(rows: list[Row]) -> None:
    print(
        f"{'language':<8} {'form':<26} {'pages':>5} {'CER':>7} {'worst':>7} "
        f"{'Hit@5 OCR':>9} {'text':>6} {'s/page':>7} {'raw':>6} {'ratio':>6}"
    )
    for r in rows:
        cer = sum(r.errors) / max(1, len(r.errors))
        print(
            f"{r.language:<8} {r.form:<26} {r.pages:>5} {cer:>7.2%} {max(r.errors):>7.2%} "
            f"{r.hit_ocr:>9.3f} {r.hit_text:>6.3f} {r.quire / r.pages:>7.2f} "
            f"{r.raw / r.pages:>6.2f} {r.raw / r.quire:>5.2f}×"
        )
    print(
        "goals: CER ≤ 2 % clean and ≤ 5 % photos in each language; Hit@5 within 0.05 of "
        "the text form; speed ≥ 0.8× raw (ratio = raw time / Quire time)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--paragraphs", type=int, default=8, help="per language")
    parser.add_argument("--languages", default="en,de,cs")
    args = parser.parse_args(argv)
    raw = Raw("+".join(ocr.DEFAULT_LANGUAGES))
    print(f"engine: {ocr.engine_name()}, languages {'+'.join(ocr.DEFAULT_LANGUAGES)}")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for language in args.languages.split(","):
            rows += bench_language(language, args.paragraphs, work, raw)
        rows.append(real_document(work, raw))
    report(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(record(main, "bench_ocr"))
