"""Test documents written by the libraries people's files come from: PDFs with fpdf2 (pages,
an outline, encryption), Word files with python-docx, web pages by hand; and broken ones."""

from __future__ import annotations

from pathlib import Path


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
