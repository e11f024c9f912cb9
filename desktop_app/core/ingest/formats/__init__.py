"""One loader per file format behind one interface: `load(path, max_bytes) -> Document`.

Adding a format is a module here and a line in `_FORMATS`; the indexer never changes. Formats
parsed by native code or by a parser a crafted file can keep busy are `ISOLATED`: the indexer
extracts them in a worker process with a time limit and a memory cap (`extractor`).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path

from desktop_app.core.ingest.document import Document, PageRead
from desktop_app.core.ingest.note_file import check_size, reading
from desktop_app.core.text import suffix_of

# Each kind of file as the settings name it (one switch each): the module of this package
# holding its `load`, and its suffixes.
_FORMATS: dict[str, tuple[str, tuple[str, ...]]] = {
    "Markdown and text": ("plain", (".md", ".markdown", ".txt")),
    "PDF": ("pdf", (".pdf",)),
    "Word (.docx)": ("docx", (".docx",)),
    "Web pages": ("html", (".html", ".htm", ".xhtml")),
    "Org, reST, AsciiDoc": ("plain", (".org", ".rst", ".adoc", ".asciidoc")),
    "Pictures (read by OCR)": (
        "image",
        (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".heic", ".heif"),
    ),
}
READ_BY_OCR = frozenset({"pdf", "image"})  # the modules whose `load` takes OCR's languages
KINDS = {kind: suffixes for kind, (_, suffixes) in _FORMATS.items()}
PICTURES = frozenset(KINDS["Pictures (read by OCR)"])
_LOADERS = {suffix: module for module, suffixes in _FORMATS.values() for suffix in suffixes}
SUFFIXES = frozenset(_LOADERS)
ISOLATED = frozenset(s for s, module in _LOADERS.items() if module != "plain")
# The size cap per format, as a multiple of the text notes' cap (IndexOptions.max_file_bytes):
# a PDF of scans and figures is large for little text; a web page is text.
SIZE_FACTOR = {".pdf": 10, ".docx": 5, ".tif": 5, ".tiff": 5}


def formats_read() -> str:
    """The kinds of files Quire reads, as the welcome page names them."""
    *first, last = KINDS
    return f"{', '.join(first)} and {last} files"


def size_cap(name: str, text_cap: int) -> int:
    return text_cap * SIZE_FACTOR.get(suffix_of(name), 1)


def load(
    path: Path,
    max_bytes: int,
    ocr_languages: Sequence[str] = (),
    on_page: PageRead | None = None,
) -> Document:
    """The file's Document. Raises note_file.NoteSkipped / NoteFailed with a readable reason.
    `ocr_languages`: what pictures and pages without text are read in (Tesseract's codes);
    () leaves them unread. `on_page` hears of each page OCR read."""

    with reading():
        check_size(path, max_bytes)
    name = _LOADERS[suffix_of(path.name)]
    module = importlib.import_module(f"{__name__}.{name}")
    if name in READ_BY_OCR:
        read: Document = module.load(path, max_bytes, tuple(ocr_languages), on_page)
        return read
    document: Document = module.load(path, max_bytes)
    return document
