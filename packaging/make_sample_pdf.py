"""Write the sample notes' PDF (resources/sample_notes/guides/quire-guide.pdf) with fpdf2:
two pages with an outline, so a new user sees a cited PDF page open with its passage marked.

usage: .venv/bin/python packaging/make_sample_pdf.py
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from fpdf import FPDF

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "resources" / "sample_notes" / "guides" / "quire-guide.pdf"
PAGES = [
    ("Asking your notes",
     "Quire answers from your own notes and shows where each answer comes from. Every "
     "number in square brackets is a citation: click it to open the passage it stands for. "
     "Quotes under 'From your notes' are copied from the notes word for word.\n\n"
     "If the notes do not hold the answer, Quire says so instead of guessing. You can still "
     "ask for an answer from the closest passages."),
    ("Files Quire reads",
     "Quire reads Markdown and plain text notes, PDF files, Word documents (.docx), saved "
     "web pages (.html) and org-mode, reStructuredText and AsciiDoc files.\n\n"
     "A citation of a PDF opens the page itself with the cited sentence highlighted. A PDF "
     "made of scanned images has no text layer: Quire lists it in the Files tab as "
     "'no text layer (scanned?)' instead of indexing it as empty."),
]  # fmt: skip


def main() -> None:
    pdf = FPDF()
    pdf.set_title("Quire guide")
    pdf.set_author("Quire")
    pdf.set_creation_date(datetime(2026, 1, 1, tzinfo=UTC))  # the same bytes on every run
    for title, body in PAGES:
        pdf.add_page()
        pdf.start_section(title)
        pdf.set_font("helvetica", "B", 16)
        pdf.cell(0, 10, title, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("helvetica", size=11)
        pdf.multi_cell(0, 6, body)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(OUT))
    print(OUT, OUT.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
