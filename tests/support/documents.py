"""Test documents written by the libraries people's files come from: PDFs with fpdf2 (pages,
an outline, encryption), Word files with python-docx, web pages by hand; and broken ones."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def write_pdf(path: Path, pages: list[str], outline: list[str] | None = None,
              encrypt: str = "") -> Path:  # fmt: skip
    """One page per text; `outline[i]` names page i in the PDF's outline."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("helvetica", size=11)
    pdf.set_title("Test document")
    for i, text in enumerate(pages):
        pdf.add_page()
        if outline:
            pdf.start_section(outline[i])
        pdf.multi_cell(0, 6, text)
    if encrypt:
        pdf.set_encryption(owner_password="owner", user_password=encrypt)
    pdf.output(str(path))
    return path


def write_scanned_pdf(path: Path, pages: int = 2) -> Path:
    """Pages with drawings and no text layer, like a scan."""
    from fpdf import FPDF

    pdf = FPDF()
    for _ in range(pages):
        pdf.add_page()
        pdf.rect(20, 20, 120, 80, style="F")
    pdf.output(str(path))
    return path


def write_docx(path: Path, heading: str, paragraphs: list[str], items: tuple[str, ...] = (),
               table: list[list[str]] | None = None) -> Path:  # fmt: skip
    import docx

    document = docx.Document()
    document.add_heading(heading, 1)
    for text in paragraphs:
        document.add_paragraph(text)
    for item in items:
        document.add_paragraph(item, style="List Bullet")
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, cell in enumerate(row):
                grid.cell(r, c).text = cell
    document.save(str(path))
    return path


def write_html(path: Path, heading: str, paragraphs: list[str]) -> Path:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    path.write_text(
        "<!doctype html><html><head><title>Saved page</title><style>p{color:red}</style>"
        "<script>var secretScriptWord = 1;</script></head><body><nav>Menu navigationword</nav>"
        f"<h1>{heading}</h1>{body}<footer>footerword</footer></body></html>",
        "utf-8",
    )
    return path


def write_crafted_pdf(path: Path, depth: int = 200_000) -> Path:
    """A PDF made to make a parser recurse and loop: arrays nested `depth` deep in the page's
    content dictionary and a page tree whose kids point back at itself."""
    nested = b"[" * depth + b"]" * depth
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",  # its own kid: a cycle
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /X " + nested
        + b" >>",
        b"<< /Length 44 >>\nstream\nBT /F1 12 Tf 72 712 Td (Hello crafted) Tj ET\nendstream",
    ]  # fmt: skip
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)  # fmt: skip
    path.write_bytes(bytes(out))
    return path


def write_hostile_corpus(folder: Path) -> dict[str, str]:
    """The issue's robustness corpus in `folder`: file name → what must happen to it."""
    good = write_pdf(folder / "good.pdf", ["A good page about herons and their nests."] * 2)
    write_pdf(folder / "locked.pdf", ["secret"], encrypt="secret")
    (folder / "truncated.pdf").write_bytes(good.read_bytes()[: good.stat().st_size // 3])
    write_scanned_pdf(folder / "scan.pdf")
    write_pdf(
        folder / "long.pdf", [f"Page {i} of the long manual about gannets." for i in range(2000)]
    )
    write_crafted_pdf(folder / "crafted.pdf")
    (folder / "junk.docx").write_bytes(b"PK\x03\x04" + bytes(range(256)) * 40)
    (folder / "huge.html").write_bytes(b"<p>" + b"word " * 10_500_000 + b"</p>")  # 52 MB
    write_docx(folder / "good.docx", "Herons", ["Herons nest in colonies."])
    write_html(folder / "good.html", "Gannets", ["Gannets dive from thirty metres."])
    (folder / "fine.md").write_text("# Fine\n\nA plain note about egrets.\n", "utf-8")
    return {"good.pdf": "indexed", "locked.pdf": "failed", "truncated.pdf": "failed",
            "scan.pdf": "skipped", "long.pdf": "indexed", "crafted.pdf": "any",
            "junk.docx": "failed", "huge.html": "skipped", "good.docx": "indexed",
            "good.html": "indexed", "fine.md": "indexed"}  # fmt: skip


BIRDS_CONTENTS = [
    ("1 Introduction", 2), ("1.1 Background", 2), ("2 Herons", 3), ("2.1 Feeding", 3),
    ("3 Kingfishers", 4), ("4 Two columns", 5), ("Appendix: ringing records", 6), ("Index", 6),
]  # fmt: skip
BIRDS_INDEX = ["feeding, 3", "fish, 3, 4", "grey heron, 3", "heron, 2, 3", "kingfisher, 4",
               "migration, 2", "shallow water, 3", "strike, 3, 4"]  # fmt: skip
BIRDS_ITEMS = ["- Perch: a branch low over clear water, used day after day.",
               "- Tunnel: dug by both birds in a sandy bank; the digging takes them a week or "
               "more, and the pair take turns at it while the other one keeps watch nearby.",
               "- Clutch: six or seven round white eggs."]  # fmt: skip
BIRDS_CODE = ["ring --species kingfisher", "count --site mill-stream", "report --year 2024"]
BIRDS_NOTES = ["1 Counted along the mill stream by the ringing group in the spring survey.",
               "2 Ospreys were seen twice over the lake, never nesting."]  # fmt: skip
BIRDS_LEFT = ("The left column starts here. Reed warblers weave their nests between "
              "three or four stems of reed, high above the water, and the nest sways.")  # fmt: skip
BIRDS_RIGHT = ("The right column follows it. Bitterns boom at dusk in spring, a sound that "
               "carries for miles over the marsh and is rarely heard by day.")  # fmt: skip


def write_structured_pdf(path: Path) -> Path:
    """A small book as people make them: a title and contents page, a running header and a
    page number on every later page, headings in larger bold type, a word hyphenated at a line
    end, a list, a code block and footnotes, a two-column page and an index (see
    tests/core/test_pdf_structure.py)."""
    from fpdf import FPDF

    class Book(FPDF):
        def header(self) -> None:
            if self.page_no() > 1:
                self.set_font("helvetica", size=9)
                self.set_xy(10, 6)
                self.cell(0, 5, "Wetland Almanac draft")
                self.set_xy(10, 24)

        def footer(self) -> None:
            if self.page_no() > 1:
                self.set_font("helvetica", size=9)
                self.set_xy(100, 285)
                self.cell(10, 5, str(self.page_no()), align="C")

    pdf = Book()
    pdf.set_auto_page_break(False)
    pdf.add_page()
    _heading(pdf, "Wetland Birds", 24)
    _heading(pdf, "Contents", 16)
    pdf.set_font("helvetica", size=11)
    for title, page in BIRDS_CONTENTS:
        pdf.cell(0, 7, f"{title} {'.' * (60 - len(title))} {page}", new_x="LMARGIN", new_y="NEXT")
    pdf.add_page()
    _heading(pdf, "1 Introduction", 18)
    _text(pdf, "This guide describes the birds of reed beds and slow rivers, where they feed "
               "and how to tell them apart in the field. Each chapter keeps to one family, "
               "and every chapter ends with the places where the birds are easiest to watch "
               "without disturbing them in the breeding season.")  # fmt: skip
    _heading(pdf, "1.1 Background", 14)
    _text(pdf, "Ringing over many years has shown the seasonal migra-\ntion of grey herons "
               "between the coast and the inland lakes. Young birds wander furthest in their "
               "first autumn, while the old ones return to the same colony every spring and "
               "often to the very same tree.")  # fmt: skip
    pdf.add_page()
    _heading(pdf, "2 Herons", 18)
    _heading(pdf, "2.1 Feeding", 14)
    _text(pdf, "Grey herons stand motionless in shallow water and strike at fish with a fast "
               "thrust of the neck. They also take frogs and small mammals, and in hard winters "
               "they wait beside garden ponds for goldfish. A heron may stand for an hour "
               "before it strikes, and it swallows its catch head first.")  # fmt: skip
    _kingfishers(pdf)
    _two_columns_and_index(pdf)
    pdf.output(str(path))
    return path


FORMULA_LEAD = (
    "Inference about the parameter rests on a central limit theorem, and the estimate is close "
    "to normal in large samples. For the covariance matrix of the estimate, a sandwich formula "
    "can be given"
)
FORMULA_AFTER = (
    "where the bread B is the inverse of the expected Hessian and the meat M is the variance of "
    "the estimating function, both estimated from the fitted model."
)


def write_formula_pdf(path: Path) -> Path:
    """A page whose sentence runs on into a displayed formula and on after it, as a paper's
    do: a heading, the sentence's start ending no sentence, the formula set apart in larger
    type, the sentence's end."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    _heading(pdf, "Sandwich estimators", 16)
    _text(pdf, FORMULA_LEAD)
    pdf.ln(4)
    pdf.set_font("helvetica", size=14)
    pdf.cell(0, 8, "S = B M B", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    _text(pdf, FORMULA_AFTER)
    pdf.output(str(path))
    return path


def _two_columns_and_index(pdf: Any) -> None:
    pdf.add_page()
    _heading(pdf, "4 Two columns", 18)
    top = pdf.get_y()
    pdf.set_font("helvetica", size=11)
    pdf.set_xy(10, top)
    pdf.multi_cell(85, 6, BIRDS_LEFT)
    pdf.set_xy(110, top)
    pdf.multi_cell(85, 6, BIRDS_RIGHT)
    pdf.add_page()
    _heading(pdf, "Index", 18)
    pdf.set_font("helvetica", size=11)
    for entry in BIRDS_INDEX:
        pdf.cell(0, 6, entry, new_x="LMARGIN", new_y="NEXT")


def _kingfishers(pdf: Any) -> None:
    """A page of prose (the first footnote's mark after "a metre long,"), a list, a code block
    and footnotes in smaller type at its foot."""
    pdf.add_page()
    _heading(pdf, "3 Kingfishers", 18)
    _text(pdf, "Kingfishers dive from a perch above the stream and strike fish under the surface, "
               "then beat them against a branch before swallowing them head first. Their "
               "nests are tunnels dug into a sandy bank, up to a metre long,1 and the chamber "
               "at the end is lined with fish bones and scales.")  # fmt: skip
    for item in BIRDS_ITEMS:
        pdf.multi_cell(0, 6, item, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.set_font("courier", size=10)
    for line in BIRDS_CODE:
        pdf.cell(0, 5, line, new_x="LMARGIN", new_y="NEXT")
    pdf.set_y(262)
    pdf.set_font("helvetica", size=8)
    for note in BIRDS_NOTES:
        pdf.multi_cell(0, 4, note, new_x="LMARGIN", new_y="NEXT")


def _heading(pdf: Any, text: str, size: int) -> None:
    pdf.set_font("helvetica", "B", size)
    pdf.cell(0, size * 0.6, text, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)


def _text(pdf: Any, text: str) -> None:
    pdf.set_font("helvetica", size=11)
    pdf.multi_cell(0, 6, text)
    pdf.ln(4)


FONTS = Path(__file__).resolve().parents[1] / "data" / "fonts"


def draw_page(lines: list[str], size: int = 40, width: int = 1600) -> Any:
    """A white picture with `lines` in black, as a 300-dpi scan of type about 10 pt would be;
    `.info["boxes"]` holds each line's words' boxes in pixels (left, top, right, bottom)."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(FONTS / "DejaVuSans.ttf"), size)
    picture = Image.new("L", (width, 120 + len(lines) * size * 2), 255)
    draw = ImageDraw.Draw(picture)
    boxes: dict[str, tuple[float, float, float, float]] = {}
    for n, line in enumerate(lines):
        x, y = 60.0, 60 + n * size * 2
        draw.text((x, y), line, font=font, fill=0)
        for word in line.split():
            left, top, right, bottom = draw.textbbox((x, y), word, font=font)
            boxes[word.strip(".,")] = (left, top, right, bottom)
            x = right + draw.textlength(" ", font=font)
    picture.info["boxes"] = boxes
    return picture


def write_picture(path: Path, lines: list[str], **options: Any) -> Path:
    draw_page(lines).save(path, **options)
    return path


def write_scanned_text_pdf(path: Path, pages: list[list[str]]) -> Path:
    """An image-only PDF: each page a picture of its lines (no text layer), as a scanner makes."""
    from fpdf import FPDF

    pdf = FPDF()
    for lines in pages:
        pdf.add_page()
        picture = draw_page(lines)
        pdf.image(picture, x=10, y=10, w=picture.width * 25.4 / 300)  # placed at 300 dpi
    pdf.output(str(path))
    return path


def overlap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """Intersection over union of two boxes (left, top, right, bottom)."""
    width = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    height = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = width * height
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union else 0.0
