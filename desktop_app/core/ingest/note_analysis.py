"""Turn a decoded note into analyzed chunks: title, language, terms and embedding parts."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, Protocol

from desktop_app.core.heavy import collector_paused
from desktop_app.core.ingest import days_and_tags, paged
from desktop_app.core.ingest.budget import spend
from desktop_app.core.ingest.chunker import Chunk, Part, TokenOffsets, chunk_note, embedding_parts
from desktop_app.core.ingest.days_and_tags import NoteDate
from desktop_app.core.ingest.document import Document
from desktop_app.core.ingest.markdown import FrontMatter, read_front_matter
from desktop_app.core.passage import context_line, day_label
from desktop_app.core.retrieval import analyzer
from desktop_app.core.tokens import count_tokens


@dataclass(frozen=True)
class AnalyzedChunk:
    chunk: Chunk
    body_terms: str
    prefix_terms: str
    context_terms: str


@dataclass(frozen=True)
class AnalyzedNote:
    title: str
    language: str
    metadata: dict[str, Any]
    chunks: list[AnalyzedChunk]
    day: NoteDate | None = None
    tags: tuple[str, ...] = ()
    chunk_days: tuple[str, ...] = ()  # ISO day of each chunk: its dated section's, else the note's
    front_problem: str = ""  # why its front matter was not read

    @property
    def warning(self) -> str | None:
        said = [w for w in (self.front_problem, self.day.warning if self.day else "") if w]
        return "; ".join(said) or None


def note_title(rel_path: str, metadata: dict[str, Any], chunks: list[Chunk]) -> str:
    title = metadata.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    for chunk in chunks:
        if chunk.heading_path:
            return chunk.heading_path[0]
    stem, suffix = os.path.splitext(os.path.basename(rel_path))
    if suffix.lower() == ".txt" and chunks and (line := _title_line(chunks[0].text)):
        return line
    return stem.replace("_", " ").replace("-", " ").strip() or stem


# A plain-text note's first line is its title when it stands alone, short, ending no sentence
# ("Packing list for hiking trips", a blank line, then the list): as note apps show it.
_TITLE_LINE = re.compile(r"\A[ \t]*([^\n]{3,80}?)[ \t]*\n[ \t]*\n")
_TITLE_WORDS = 12


def _title_line(text: str) -> str | None:
    match = _TITLE_LINE.match(text)
    if match is None:
        return None
    line = match.group(1)
    if line[-1] in ".!?:;," or len(line.split()) > _TITLE_WORDS or not _WORDY.search(line):
        return None
    return line


_WORDY = re.compile(r"[^\W\d_]{3,}")  # a title with a word in it, not only digits and dashes

# Language identification reads bytes one by one in Python: a short sample of prose words
# (code, numbers and markup left out) is both cheaper and a cleaner signal than raw text.
_PROSE_WORD = re.compile(r"[^\W\d_]{2,}")
LANGUAGE_SAMPLE_CHARS = 600
UNKNOWN_LANGUAGE = ""  # a note read quickly (`analyze_whole`): in no language's count


def language_sample(chunks: list[Chunk]) -> str:
    text = " ".join(c.text[: 2 * LANGUAGE_SAMPLE_CHARS] for c in chunks[:4])
    return " ".join(_PROSE_WORD.findall(text))[:LANGUAGE_SAMPLE_CHARS]


def metadata_terms(metadata: dict[str, Any]) -> list[str]:
    values: list[str] = []
    for key in ("tags", "aliases", "keywords"):
        value = metadata.get(key)
        if isinstance(value, str):
            values.append(value)
        elif isinstance(value, list):
            values.extend(str(v) for v in value)
    return values


def embedding_input(
    title: str, heading_path: tuple[str, ...], text: str, part: int = 0, parts: int = 0
) -> str:
    """What the embedder reads for a chunk: where it sits, then its text."""
    if parts > 1:
        heading_path = (*heading_path, f"part {part}/{parts}")
    context = context_line(title, heading_path)
    return f"{context}\n{text}" if context else text


def embed_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def analyze_note(
    rel_path: str, document: Document, chunk_tokens: int, mtime_ns: int = 0
) -> AnalyzedNote:
    """Chunks, title, language and lexical terms of a note (embedding parts come later, from
    `PartPlanner`, so keyword search never waits for the embedder's tokenizer).

    Reading a note builds a few objects per line, heading and block, and no cycles: the cyclic
    collector is paused meanwhile, or its full passes over them would make a note of many
    headings cost more than in proportion to its size (and stall the window's thread)."""
    with collector_paused(freeze=False):
        return _analyze(rel_path, document, chunk_tokens, mtime_ns)


def _analyze(rel_path: str, document: Document, chunk_tokens: int, mtime_ns: int) -> AnalyzedNote:
    metadata: dict[str, Any]
    front = read_front_matter(document.text) if document.markdown else FrontMatter()
    reading = paged.Reading(document) if document.lines else None
    if reading is not None:
        document = reading.document  # its sections: the headings on its pages
        chunks = paged.chunk_blocks(reading, chunk_tokens)
        metadata = {"title": document.title, "pages": list(document.pages)}
    elif document.pages:  # a PDF: its own title, never its first outline entry
        chunks = chunk_pages(document, chunk_tokens)
        metadata = {"title": document.title, "pages": list(document.pages)}
    else:
        chunks, metadata = chunk_note(
            document.text,
            count_tokens,
            chunk_tokens,
            document.markdown,
            document.headings,
            opens_chunk=days_and_tags.is_day_heading,
            front=front,
        )
    chunks = placed(chunks, document)
    title = note_title(rel_path, metadata, chunks)
    language = analyzer.detect_language(language_sample(chunks) or title)
    analyzed = chunk_terms(chunks, title, language, metadata_terms(metadata), reading)
    day = days_and_tags.note_date(metadata, rel_path, mtime_ns)
    if day.source != "modified" and not _WORDY.search(title):  # "02", "2026-11-30": the date
        title = day_label(day.day.isoformat())
    marks = days_and_tags.day_marks(document.text) if not document.pages else []
    days = tuple(days_and_tags.chunk_days(marks, [c.end for c in chunks], day.day))
    tags = tuple(days_and_tags.note_tags(metadata, document.text if document.markdown else ""))
    return AnalyzedNote(title, language, metadata, analyzed, day, tags, days, front.problem)


def analyze_whole(rel_path: str, document: Document) -> AnalyzedNote:
    """A first, quick reading of a text note for a large first index: the whole note one
    passage, its terms those of a language without a stemmer (five-letter prefixes, as a Czech
    note's are), so a vault is keyword-searchable within seconds; identifying its language
    would take most of that time. Its language, stems, passages, front matter, days and tags
    come with the full reading that follows."""
    with collector_paused(freeze=False):
        text = document.text
        whole = Chunk(0, len(text), 1, text.count("\n") + 1, (), text)
        title = note_title(rel_path, {}, [])
        terms = chunk_terms([whole], title, UNKNOWN_LANGUAGE, [])  # no stemmer: prefixes
        return AnalyzedNote(title, UNKNOWN_LANGUAGE, {}, terms)


SHORT_PAGE = 0.25  # of the document's median page length: a page's remainder, not a page


def chunk_pages(document: Document, chunk_tokens: int) -> list[Chunk]:
    """A paged document chunked page by page. A short page (an article's last lines, a
    chapter's remainder) joins the passage before it, as a note's small tail does: such a
    passage starts on one page and ends on the next. Slides and one-line pages, all short,
    stay one page a passage."""
    out: list[Chunk] = []
    ends = [*document.pages[1:], len(document.text)]
    lengths = sorted(
        len(document.text[a:b].strip()) for a, b in zip(document.pages, ends, strict=True)
    )
    short = SHORT_PAGE * lengths[len(lengths) // 2] if lengths else 0
    line = 0
    joined = -1  # the chunk that took a short page in (it takes no second one)
    for start, end in zip(document.pages, ends, strict=True):
        page = document.text[start:end]
        chunks, _ = chunk_note(page, count_tokens, chunk_tokens, markdown=False)
        chunks = [
            replace(
                c,
                start=c.start + start,
                end=c.end + start,
                line_start=c.line_start + line,
                line_end=c.line_end + line,
            )
            for c in chunks
        ]
        line += page.count("\n")
        if len(chunks) > 1 and _small_head(document.text, chunks, chunk_tokens):
            chunks = [_joined(document.text, chunks[0], chunks[1]), *chunks[2:]]
        fits = out and len(chunks) == 1 and joined != len(out) - 1
        if (
            fits
            and len(page.strip()) < short
            and _fits(document.text, out[-1], chunks[0], chunk_tokens)
        ):
            out[-1], joined = _joined(document.text, out[-1], chunks[0]), len(out) - 1
            continue
        out += chunks
    return out


def _small_head(text: str, chunks: list[Chunk], target: int) -> bool:
    """A page's first chunk that is only a short line or two (a title set in large type: PDFs
    mark no headings) belongs with the text under it, as a Markdown heading does."""
    return count_tokens(chunks[0].text) < target // 4 and _fits(text, chunks[0], chunks[1], target)


def _fits(text: str, before: Chunk, after: Chunk, target: int) -> bool:
    return count_tokens(text[before.start : after.end]) <= 2 * target


def _joined(text: str, before: Chunk, after: Chunk) -> Chunk:
    return replace(
        before, end=after.end, line_end=after.line_end, text=text[before.start : after.end]
    )


def placed(chunks: list[Chunk], document: Document) -> list[Chunk]:
    """Chunks of a paged document with their pages, and its outline's heading path where the
    text itself has no headings."""
    if not document.pages and not document.sections:
        return chunks
    return [
        replace(
            c,
            page_start=document.page_at(c.start),
            page_end=document.page_at(max(c.start, c.end - 1)),
            heading_path=c.heading_path or document.section_at(c.start),
        )
        for c in chunks
    ]


def chunk_terms(
    chunks: list[Chunk],
    title: str,
    language: str,
    tags: list[str],
    reading: paged.Reading | None = None,
) -> list[AnalyzedChunk]:
    """The lexical stage: each chunk's stems, prefixes, and the stems of where it sits (title,
    heading path, tags and aliases). `reading`: a paged document's (furniture left out, a page
    listing terms found by prefix only)."""
    extra = " ".join(tags)

    @cache
    def context_terms(heading_path: tuple[str, ...]) -> str:
        words = analyzer.words(f"{context_line(title, heading_path)} {extra}")
        return " ".join(analyzer.stems(words, language))

    stemmed = analyzer.has_stemmer(language)  # else a body's terms are its prefixes
    analyzed = []
    for chunk in chunks:
        spend()
        words = analyzer.words(reading.terms_text(chunk) if reading else chunk.text)
        listing = reading is not None and reading.is_listing(chunk)
        prefixes = " ".join(analyzer.prefixes(words))
        body = " ".join(analyzer.stems(words, language)) if stemmed else prefixes
        analyzed.append(
            AnalyzedChunk(
                chunk=chunk,
                body_terms="" if listing else body,
                prefix_terms=prefixes,
                context_terms=context_terms(chunk.heading_path),
            )
        )
    return analyzed


PlanRow = tuple[str, tuple[str, ...], int, str]  # a chunk to plan: title, headings, start, text


class Planner(Protocol):
    """Plans the embedding parts of chunks (`PartPlanner`, here or in the vector worker)."""

    def plan(self, chunks: list[PlanRow]) -> list[list[tuple[Part, str]]]: ...


class PartPlanner:
    """Cuts chunks the embedder would truncate into labelled parts, each with the hash of its
    embedding input (vectors are stored by that hash, so unchanged texts are never re-embedded)."""

    def __init__(self, token_offsets: TokenOffsets, limit: int) -> None:
        self.token_offsets = token_offsets
        self.limit = limit
        self._context_tokens: dict[str, int] = {}

    def _room(self, context: str) -> int:
        if context not in self._context_tokens:
            self._context_tokens[context] = len(self.token_offsets(context + "\n"))
        return self.limit - self._context_tokens[context] - 8  # 8: a "part n/N" label

    def parts(
        self, title: str, heading_path: tuple[str, ...], start: int, text: str
    ) -> list[tuple[Part, str]]:
        room = self._room(context_line(title, heading_path))
        if len(text) <= room:  # a word piece spans at least one character
            parts = [Part(start, start + len(text), 1, 1)]
        else:
            parts = embedding_parts(start, text, self.token_offsets, room)

        def piece(part: Part) -> str:
            return text[part.start - start : part.end - start]

        return [
            (p, embed_hash(embedding_input(title, heading_path, piece(p), p.number, p.count)))
            for p in parts
        ]

    def plan(self, chunks: list[PlanRow]) -> list[list[tuple[Part, str]]]:
        """`parts` of each (title, heading path, start, text)."""
        return [self.parts(*chunk) for chunk in chunks]
