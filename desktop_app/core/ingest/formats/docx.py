"""Word documents (.docx) with python-docx, written as Markdown: heading styles become `#`
headings, list paragraphs `- ` items, tables `| … |` rows, in document order."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from desktop_app.core.ingest.document import Document
from desktop_app.core.ingest.note_file import NoteFailed, NoteSkipped

_HEADING = re.compile(r"^(?:heading|nadpis|überschrift)\s*(\d)$", re.IGNORECASE)


def load(path: Path, max_bytes: int) -> Document:
    """`max_bytes` is checked by `formats.load`."""
    try:
        import docx

        document = docx.Document(str(path))
        blocks = list(_blocks(document))
    except Exception as exc:  # a zip of junk, a missing part, broken XML: this file only
        raise NoteFailed(f"not a readable Word document ({type(exc).__name__}: {exc})") from exc
    text = "\n\n".join(b for b in blocks if b.strip())
    if not text.strip():
        raise NoteSkipped("empty document")
    return Document(text + "\n", markdown=True)


def _blocks(document: Any) -> Iterator[str]:
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    # python-docx looks a paragraph's style up among all styles on every access: once here
    names = {s.style_id: s.name or "" for s in document.styles}
    for element in document.element.body.iterchildren():
        tag = element.tag.rsplit("}", 1)[-1]
        if tag == "p":
            yield _paragraph(Paragraph(element, document), names)
        elif tag == "tbl":
            yield _table(Table(element, document))


def _paragraph(paragraph: Any, names: dict[str, str]) -> str:
    text = " ".join(paragraph.text.split())
    if not text:
        return ""
    style = names.get(paragraph._p.style or "", "")
    if style.lower() == "title":
        return f"# {text}"
    if heading := _HEADING.match(style.strip()):
        return f"{'#' * min(6, int(heading.group(1)) + 1)} {text}"
    if style.lower().startswith("list") or (
        paragraph._p.pPr is not None and (paragraph._p.pPr.numPr is not None)
    ):
        return f"- {text}"
    return _escaped(text)


def _escaped(text: str) -> str:
    """A body paragraph that would read as Markdown structure stays a paragraph."""
    return "\\" + text if re.match(r"^(?:#|[-*+] |\d+[.)] |>|```|\|)", text) else text


def _table(table: Any) -> str:
    rows = []
    for row in table.rows:
        cells = [" ".join(c.text.split()).replace("|", "/") for c in row.cells]
        rows.append("| " + " | ".join(cells) + " |")
    if len(rows) > 1:
        rows.insert(1, "|" + " --- |" * len(table.rows[0].cells))
    return "\n".join(rows)
