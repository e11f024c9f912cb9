"""Text notes: Markdown, plain text, and org-mode, reStructuredText and AsciiDoc as text with
their own heading syntax (read by the chunker, `markdown.parse_markdown(heading=...)`)."""

from __future__ import annotations

from pathlib import Path

from desktop_app.core.ingest.document import Document
from desktop_app.core.ingest.loaders import read_note

MARKDOWN = frozenset({".md", ".markdown"})


def load(path: Path, max_bytes: int) -> Document:
    decoded, _ = read_note(path, max_bytes)
    markdown = path.suffix.lower() in MARKDOWN
    return Document(decoded.text, markdown, decoded.encoding, decoded.warning)
