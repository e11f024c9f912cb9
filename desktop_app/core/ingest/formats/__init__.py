"""One loader per file format behind one interface: `load(path, max_bytes) -> Document`.

Adding a format is a module here and a line in `_LOADERS`; the indexer never changes. Formats
parsed by native code or by a parser a crafted file can keep busy are `ISOLATED`: the indexer
extracts them in a worker process with a time limit and a memory cap (`extractor`).
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

from desktop_app.core.ingest.document import Document

# suffix → module of this package holding `load`
_LOADERS: dict[str, str] = {
    ".md": "text", ".markdown": "text", ".txt": "text",
    ".org": "text", ".rst": "text", ".adoc": "text", ".asciidoc": "text",
    ".pdf": "pdf",
    ".docx": "docx",
    ".html": "html", ".htm": "html", ".xhtml": "html",
}  # fmt: skip
SUFFIXES = frozenset(_LOADERS)
# How the settings name them: one switch per kind of file.
KINDS: dict[str, tuple[str, ...]] = {
    "Markdown and text": (".md", ".markdown", ".txt"),
    "PDF": (".pdf",),
    "Word (.docx)": (".docx",),
    "Web pages": (".html", ".htm", ".xhtml"),
    "Org, reST, AsciiDoc": (".org", ".rst", ".adoc", ".asciidoc"),
}
ISOLATED = frozenset(s for s, module in _LOADERS.items() if module != "text")
# The size cap per format, as a multiple of the text notes' cap (IndexOptions.max_file_bytes):
# a PDF of scans and figures is large for little text; a web page is text.
SIZE_FACTOR = {".pdf": 10, ".docx": 5}


def suffix_of(name: str) -> str:
    return os.path.splitext(name)[1].lower()


def size_cap(name: str, text_cap: int) -> int:
    return text_cap * SIZE_FACTOR.get(suffix_of(name), 1)


def load(path: Path, max_bytes: int) -> Document:
    """The file's Document. Raises loaders.NoteSkipped / NoteFailed with a readable reason."""
    module = importlib.import_module(f"{__name__}.{_LOADERS[suffix_of(path.name)]}")
    document: Document = module.load(path, max_bytes)
    return document
