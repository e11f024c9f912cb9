"""Text notes: Markdown, plain text, and org-mode, reStructuredText and AsciiDoc as text with
their own heading syntax (read by the chunker, `markdown.parse_markdown(headings=...)`)."""

from __future__ import annotations

from pathlib import Path

from desktop_app.core.ingest.document import Document
from desktop_app.core.ingest.formats import suffix_of
from desktop_app.core.ingest.loaders import DecodedNote, read_note

MARKDOWN = frozenset({".md", ".markdown"})
HEADINGS = {".org": "org", ".rst": "rst", ".adoc": "asciidoc", ".asciidoc": "asciidoc"}


def load(path: Path, max_bytes: int) -> Document:
    decoded, _ = read_note(path, max_bytes)
    return text_document(path.name, decoded)


def text_document(name: str, decoded: DecodedNote) -> Document:
    suffix = suffix_of(name)
    return Document(decoded.text, suffix in MARKDOWN, HEADINGS.get(suffix, ""),
                    decoded.encoding, decoded.warning)  # fmt: skip
