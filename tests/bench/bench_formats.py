"""Formats benchmark: PDF, Word and web pages made from the eval sets' Markdown, side by side.

usage: python tests/bench/bench_formats.py [--questions N] [--sets xquad-en,xquad-de]
                                           [--paragraphs-per-page 2] [--pages 1000] [--runs 3]
                                           [--evidence 60] [--show 6] [--only fidelity|speed]
                                           [--details FILE] [--eval DIR]

Every article of xquad-en and xquad-de (../shared/eval) is rendered as a PDF with fpdf2 (a
Unicode TrueType font found on the machine, justified 11 pt text, page numbers in the footer, a
new page every `--paragraphs-per-page` paragraphs and wherever a page fills up, so articles span
pages and some paragraphs straddle two), as a Word file with python-docx (Heading styles,
paragraphs of several runs) and as a web page (h1/h2 + p, hard-wrapped source, a nav, script,
style and footer holding sentinel words that must not be indexed).

1. Extraction fidelity: each format's folder indexed by Quire with the default embedder, every
   question (or a fixed-seed sample of `--questions` per set) searched, each gold span mapped
   into the extracted text of its rendered file (the gold answer found, whitespace-normalised,
   inside its gold passage, else where the text around it matches best, else with all
   whitespace ignored; gold that cannot be found is counted, and counts as a miss), then Hit@5
   and MRR@10 (../shared/eval/score.py's rule: from the gold file, covering at least half of the
   gold span) for Markdown vs PDF vs DOCX vs HTML.                  goal: each within 0.01
   Also: source paragraphs found intact in the extraction and how many of them still end in a
   blank line (the paragraph breaks the chunker sees), each index's chunks, where each format's
   first hitting rank differs from Markdown's (`--details` writes every question's ranks and top
   results as JSON), and a word-level diff of every extracted text against its Markdown (words
   glued or split, hyphenation, changed, dropped, inserted), with examples. The questions'
   vectors are encoded once, in batches, and reused by the four indexes (the model Quire loads
   by default; the largest difference to a one-by-one encode is in the JSON line).
2. PDF span → boxes: every distinct passage span in the PDF indexes' top-10 results (so every
   top-1) and the evidence sentences of `--evidence` questions per set: the span lies on its
   page, `char_boxes` gives one box per non-blank character, inside the page, the character
   pdfium finds at each box's centre is that character, and pdfium's text inside the boxes'
   lines holds every word of the span. Failures are counted and listed.
3. Speed to keyword-searchable (embedder off, median of `--runs` fresh indexes):
   a. PDF pages/s, `Quire.index` of the rendered PDFs vs raw pypdfium2 (open, get_textpage,
      get_text_range of every page).                                 goal ≥ 0.5×
   b. one `--pages`-page PDF (~2.5 KB of text a page) made keyword-searchable. goal ≤ 10 s
   c. DOCX and HTML files/s vs the raw parse (python-docx Document + every paragraph's text;
      html.parser.HTMLParser feed), reported side by side (the issue sets no goal for them).

Prints a Markdown table per part, then one JSON line with every number.
"""

from __future__ import annotations

import argparse
import bisect
import difflib
import html
import json
import logging
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "eval"
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from desktop_app.core import evaluate  # noqa: E402
from desktop_app.core.answer.decision import decide  # noqa: E402
from desktop_app.core.api import Quire  # noqa: E402
from desktop_app.core.ingest import formats  # noqa: E402
from desktop_app.core.ingest.document import Document  # noqa: E402
from desktop_app.core.ingest.formats import pdf as pdf_format  # noqa: E402
from desktop_app.core.retrieval.embedder import Embedder, TextEmbedder  # noqa: E402
from desktop_app.core.retrieval.search import SearchResult  # noqa: E402

FORMATS = ("md", "pdf", "docx", "html")
MAX_BYTES = 10**9
SENTINELS = ("quirenavsentinel", "quirescriptsentinel", "quirestylesentinel",
             "quirefootersentinel")  # fmt: skip
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.fonts", "~/.local/share/fonts",
             "/Library/Fonts", "/System/Library/Fonts", "C:/Windows/Fonts")  # fmt: skip
FONT_FILES = (("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"),
              ("NotoSans-Regular.ttf", "NotoSans-Bold.ttf"),
              ("LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf"),
              ("arial.ttf", "arialbd.ttf"), ("Arial.ttf", "Arial Bold.ttf"))  # fmt: skip
_INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad")
_HEADING = re.compile(r"^(#{1,6}) +(.*)$")


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - started


# -- the articles and their renderings -------------------------------------------------------


@dataclass(frozen=True)
class Article:
    name: str  # the note's stem
    text: str  # the Markdown note exactly as Quire reads it
    blocks: tuple[tuple[int, str], ...]  # (heading level, or 0 for a paragraph; its text)

    @property
    def title(self) -> str:
        return next((t for level, t in self.blocks if level == 1), self.name.replace("_", " "))

    @property
    def paragraphs(self) -> list[str]:
        return [t for level, t in self.blocks if not level]


def read_article(path: Path) -> Article:
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    blocks: list[tuple[int, str]] = []
    for block in re.split(r"\n[ \t]*\n", text):
        if not block.strip():
            continue
        heading = _HEADING.match(block.strip())
        if heading and "\n" not in block.strip():
            blocks.append((len(heading.group(1)), heading.group(2).strip()))
        else:
            blocks.append((0, " ".join(block.split())))
    return Article(path.stem, text, tuple(blocks))


@dataclass(frozen=True)
class Font:
    regular: str
    bold: str


def find_font() -> Font:
    for regular, bold in FONT_FILES:
        for folder in FONT_DIRS:
            root = Path(folder).expanduser()
            if not root.is_dir():
                continue
            found = next(root.rglob(regular), None)
            if found is not None:
                heavy = next(found.parent.glob(bold), found)
                return Font(str(found), str(heavy))
    raise SystemExit("no Unicode TrueType font found (looked for DejaVu Sans, Noto Sans, "
                     "Liberation Sans, Arial under " + ", ".join(FONT_DIRS) + ")")  # fmt: skip


class _MissingGlyphs(logging.Handler):
    """fpdf2 logs the characters its font cannot draw (they are left out of the PDF)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.chars: Counter[str] = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "missing the following glyphs" in message:
            for char in re.findall(r"'(.)' \(", message.split(":", 1)[1]):
                self.chars[char] += 1


MISSING = _MissingGlyphs()
_fpdf_log = logging.getLogger("fpdf")
_fpdf_log.addHandler(MISSING)
_fpdf_log.propagate = False


def _new_pdf(font: Font, title: str) -> Any:
    from fpdf import FPDF

    class Paged(FPDF):
        def footer(self) -> None:  # the page number, as most documents print it
            self.set_y(-12)
            self.set_font("body", "", 8)
            self.cell(0, 5, str(self.page_no()), align="C")

    pdf = Paged(format="A4")
    pdf.add_font("body", "", font.regular)
    pdf.add_font("body", "B", font.bold)
    pdf.set_title(title)
    pdf.set_author("bench_formats")
    pdf.set_auto_page_break(True, margin=18)
    return pdf


def render_pdf(article: Article, path: Path, font: Font, per_page: int) -> None:
    from fpdf.enums import XPos, YPos

    pdf = _new_pdf(font, article.title)
    pdf.add_page()
    paragraphs = 0
    for level, text in article.blocks:
        if level:
            pdf.set_font("body", "B", 18 if level == 1 else 14)
            pdf.start_section(text, level - 1, strict=False)
            pdf.multi_cell(0, 9, text, align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
            pdf.ln(2)
            continue
        if paragraphs and paragraphs % per_page == 0:
            pdf.add_page()
        paragraphs += 1
        pdf.set_font("body", "", 11)
        pdf.multi_cell(0, 5.5, text, new_x=XPos.LMARGIN, new_y=YPos.NEXT)  # justified
        pdf.ln(3)
    pdf.output(str(path))


def render_docx(article: Article, path: Path) -> None:
    import docx

    document = docx.Document()
    document.core_properties.title = article.title
    for level, text in article.blocks:
        if level:
            document.add_heading(text, min(level, 9))
            continue
        paragraph = document.add_paragraph()
        cut = text.find(". ", 60) + 2  # two runs, the second italic, as edited text has
        if cut > 1:
            paragraph.add_run(text[:cut])
            paragraph.add_run(text[cut:]).italic = True
        else:
            paragraph.add_run(text)
    document.save(str(path))


def render_html(article: Article, path: Path, language: str) -> None:
    body = []
    for level, text in article.blocks:
        tag = f"h{min(level, 6)}" if level else "p"
        wrapped = textwrap.fill(html.escape(text, quote=False), 96, break_long_words=False,
                                break_on_hyphens=False)  # fmt: skip
        body.append(f"<{tag}>{wrapped}</{tag}>")
    title = html.escape(article.title)
    nav, script, style, footer = SENTINELS
    path.write_text(
        f'<!doctype html>\n<html lang="{language}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{title} – Wiki</title>\n<style>.{style} {{ color: #333 }}</style>\n"
        f'<script>var {script} = "menu";</script>\n</head>\n<body>\n'
        f'<nav><a href="/">Home</a> | <a href="/random">{nav}</a></nav>\n<main><article>\n'
        + "\n".join(body)
        + f"\n</article></main>\n<footer>{footer} · CC BY-SA</footer>\n</body>\n</html>\n",
        "utf-8",
    )


def render_all(articles: list[Article], folder: Path, font: Font, per_page: int,
               language: str) -> dict[str, Path]:  # fmt: skip
    folders = {fmt: folder / fmt for fmt in FORMATS}
    for target in folders.values():
        target.mkdir(parents=True)
    for article in articles:
        (folders["md"] / f"{article.name}.md").write_text(article.text, "utf-8", newline="")
        render_pdf(article, folders["pdf"] / f"{article.name}.pdf", font, per_page)
        render_docx(article, folders["docx"] / f"{article.name}.docx")
        render_html(article, folders["html"] / f"{article.name}.html", language)
    return folders


# -- whitespace-normalised text and the gold spans mapped into it --------------------------------


@dataclass(frozen=True)
class Squashed:
    """A text with invisible characters dropped and every whitespace run made one space (or
    dropped, `spaces=False`), and the offset in the original of each character kept."""

    text: str
    index: list[int]

    @classmethod
    def of(cls, text: str, spaces: bool = True) -> Squashed:
        chars: list[str] = []
        index: list[int] = []
        blank = -1
        for i, ch in enumerate(text):
            if ch in _INVISIBLE:
                continue
            if ch.isspace():
                blank = i
                continue
            if blank >= 0 and chars and spaces:
                chars.append(" ")
                index.append(blank)
            blank = -1
            chars.append(ch)
            index.append(i)
        return cls("".join(chars), index)

    def at(self, offset: int) -> int:
        """The squashed position of original `offset` (the next kept character)."""
        return bisect.bisect_left(self.index, offset)

    def span(self, pos: int, length: int) -> tuple[int, int]:
        return self.index[pos], self.index[pos + length - 1] + 1


def occurrences(text: str, needle: str) -> list[int]:
    out, pos = [], text.find(needle)
    while pos >= 0 and needle:
        out.append(pos)
        pos = text.find(needle, pos + 1)
    return out


def _common_suffix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def _common_prefix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def fit(text: str, at: int, length: int, before: str, after: str, expected: float
        ) -> tuple[int, float]:  # fmt: skip
    """How well an occurrence's surroundings match the source's (more is better, so negated),
    then how far it is from where it is expected."""
    context = _common_suffix(before, text[max(0, at - 40) : at])
    context += _common_prefix(after, text[at + length : at + length + 40])
    return -context, abs(at - expected)


@dataclass
class Gold:
    path: str
    start: int
    end: int
    how: str  # passage | context | no-spaces | markdown


def map_gold(q: dict[str, Any], source: str, target: str, path: str) -> Gold | None:
    """The gold answer's span in `target` (the extracted text of the rendered file): inside the
    gold passage where that survived whole, else the occurrence whose surroundings match the
    source's best (nearest the same relative position on a tie), else the same ignoring every
    space; None when the answer's characters are not in the extracted text at all."""
    for spaces, how in ((True, "passage"), (False, "no-spaces")):
        src, tgt = Squashed.of(source, spaces), Squashed.of(target, spaces)
        a = src.at(q["start"])
        answer = Squashed.of(source[q["start"] : q["end"]], spaces).text
        if not answer:
            return None
        expected = a / max(1, len(src.text)) * len(tgt.text)
        p0, p1 = src.at(q.get("passage_start", q["start"])), src.at(q.get("passage_end", q["end"]))
        passage = src.text[p0:p1].strip()
        p0 += len(src.text[p0:p1]) - len(src.text[p0:p1].lstrip())
        places = occurrences(tgt.text, passage) if len(passage) >= len(answer) else []
        if places:
            place = min(places, key=lambda p: abs(p - expected)) + (a - p0)
            if tgt.text[place : place + len(answer)] == answer:
                return Gold(path, *tgt.span(place, len(answer)), how)
        found = occurrences(tgt.text, answer)
        if found:
            before, after = src.text[max(0, a - 40) : a], src.text[a + len(answer) :][:40]
            best = min(found, key=lambda c: fit(tgt.text, c, len(answer), before, after, expected))
            return Gold(path, *tgt.span(best, len(answer)), how if how != "passage" else "context")
    return None


def paragraph_ends(article: Article, text: str) -> tuple[int, int]:
    """How many of the article's paragraphs are whole in `text`, and how many of those end with
    a blank line there (or the text's end): the paragraph breaks the chunker can see."""
    target = Squashed.of(text)
    intact = breaks = 0
    for paragraph in article.paragraphs:
        needle = Squashed.of(paragraph).text
        at = target.text.find(needle)
        if at < 0 or not needle:
            continue
        intact += 1
        end = target.index[at + len(needle) - 1] + 1
        breaks += bool(re.match(r"[ \t]*(?:\r?\n[ \t]*){2,}|\s*$", text[end:]))
    return intact, breaks


def first_hit(results: list[SearchResult], gold: Gold | None) -> int | None:
    """score.py's rule (`quire eval`'s), on the top 10."""
    if gold is None:
        return None
    spans = ({"path": r.path, "start": r.start, "end": r.end} for r in results[:10])
    return evaluate.first_hit(spans, {"path": gold.path, "start": gold.start, "end": gold.end})


# -- what extraction changed: a word-level diff against the Markdown -----------------------------


def plain_words(text: str, markdown: bool) -> list[str]:
    """The words of a text, Markdown heading marks and paragraph escapes left out."""
    if markdown:
        text = re.sub(r"(?m)^(?:#{1,6} +|\\)", "", text)
    return Squashed.of(text).text.split(" ")


@dataclass
class Diff:
    words: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, example: str, keep: int) -> None:
        self.kinds[kind] += 1
        shown = self.examples.setdefault(kind, [])
        if len(shown) < keep and example not in shown:
            shown.append(example)


def diff_words(source: list[str], target: list[str], name: str, diff: Diff, keep: int) -> None:
    diff.words += len(source)
    matcher = difflib.SequenceMatcher(None, source, target, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        a, b = source[i1:i2], target[j1:j2]
        before = " ".join(source[max(0, i1 - 3) : i1])
        example = f"{name}: …{before} [{' '.join(a)}] → [{' '.join(b)}]"
        if op == "insert":
            kind = "page numbers" if all(w.isdigit() for w in b) else "inserted"
        elif op == "delete":
            kind = "dropped"
        elif "".join(a) == "".join(b):
            kind = "glued" if len(b) < len(a) else "split"
        elif "".join(a).replace("-", "") == "".join(b).replace("-", ""):
            kind = "hyphenation"
        elif all(w.isdigit() for w in b if w not in a) and len(b) > len(a):
            kind = "page numbers"
        else:
            kind = "changed"
        diff.add(kind, example, keep)


# -- the query vectors, encoded once -------------------------------------------------------------


class QueryVectors:
    """The default embedder, with the questions' vectors encoded once (in batches) and handed to
    every format's index: the same vectors for the same question, four times fewer encodes."""

    def __init__(self, inner: TextEmbedder) -> None:
        self.inner = inner
        self.vectors: dict[str, np.ndarray] = {}

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    @property
    def max_tokens(self) -> int:
        return self.inner.max_tokens

    @property
    def languages(self) -> frozenset[str] | None:
        return self.inner.languages

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return self.inner.token_offsets(text)

    @property
    def multilingual(self) -> bool:
        return self.inner.multilingual

    @property
    def cosine_range(self) -> tuple[float, float]:
        return self.inner.cosine_range

    @property
    def crossed_shift(self) -> float:
        return self.inner.crossed_shift

    def encode_query(self, texts: list[str]) -> np.ndarray:
        if len(texts) == 1 and texts[0] in self.vectors:
            return self.vectors[texts[0]][None, :]
        return self.inner.encode_query(texts)

    def encode(self, texts: list[str]) -> np.ndarray:
        return self.inner.encode(texts)

    def encode_few(self, texts: list[str]) -> np.ndarray:
        return self.inner.encode_few(texts)

    def prime(self, questions: list[str]) -> float:
        """Encode the questions; the largest difference to encoding a few of them one by one."""
        todo = sorted({q for q in questions if q not in self.vectors}, key=len)
        if todo:
            for q, v in zip(todo, self.inner.encode_query(todo), strict=True):
                self.vectors[q] = v
        probe = todo[:: max(1, len(todo) // 8)][:8]
        single = [self.inner.encode_query([q])[0] for q in probe]
        return max((float(np.abs(s - self.vectors[q]).max()) for q, s in zip(probe, single,
                                                                             strict=True)),
                   default=0.0)  # fmt: skip


# -- part 1 and 2: one set ---------------------------------------------------------------------


@dataclass
class FormatRun:
    set_name: str
    fmt: str
    questions: int = 0
    ranks: dict[str, int | None] = field(default_factory=dict)
    details: dict[str, dict[str, Any]] = field(default_factory=dict)
    mapped: Counter[str] = field(default_factory=Counter)
    unmapped: list[str] = field(default_factory=list)
    paragraphs: int = 0
    intact: int = 0
    breaks: int = 0  # intact paragraphs followed by a blank line (or the end) in the extraction
    chunks: int = 0
    index_seconds: float = 0.0
    search_seconds: float = 0.0
    files: int = 0
    pages: int = 0
    leaks: int = 0
    diff: Diff = field(default_factory=Diff)

    def hit(self, k: int) -> float:
        return evaluate.score(list(self.ranks.values()))[f"Hit@{k}"]

    def mrr(self) -> float:
        return evaluate.score(list(self.ranks.values()))["MRR@10"]


@dataclass
class SpanCheck:
    """One PDF span to check against pdfium's boxes."""

    path: Path
    document: Document
    start: int
    end: int
    page: int | None
    page_end: int | None
    source: str  # top-1 | result | evidence
    label: str


@dataclass
class BoxReport:
    spans: int = 0
    top1: int = 0
    evidence: int = 0
    characters: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)


def load_questions(set_dir: Path, limit: int | None) -> list[dict[str, Any]]:
    lines = (set_dir / "questions.jsonl").read_text("utf-8").splitlines()
    qs = [json.loads(line) for line in lines if line.strip()]
    if limit is not None and limit < len(qs):
        keep = set(random.Random(0).sample(range(len(qs)), limit))
        qs = [q for i, q in enumerate(qs) if i in keep]
    return qs


SetRun = tuple[list["FormatRun"], list["SpanCheck"], dict[str, Any]]


def run_set(set_name: str, work: Path, args: argparse.Namespace, font: Font,
            vectors: QueryVectors) -> SetRun:  # fmt: skip
    set_dir = args.eval / set_name
    language = set_name.rsplit("-", 1)[-1]
    articles = [read_article(p) for p in sorted((set_dir / "notes").glob("*.md"))]
    by_name = {a.name: a for a in articles}
    questions = load_questions(set_dir, args.questions)
    started = time.perf_counter()
    missing_before = sum(MISSING.chars.values())
    folders = render_all(articles, work / set_name, font, args.paragraphs_per_page, language)
    render_seconds = time.perf_counter() - started
    missing = sum(MISSING.chars.values()) - missing_before
    drift = vectors.prime([q["question"] for q in questions])
    info = {"render_seconds": render_seconds, "query_vector_drift": drift,
            "fpdf_missing_glyph_warnings": missing}  # fmt: skip
    runs: list[FormatRun] = []
    spans: list[SpanCheck] = []
    for fmt in FORMATS:
        run = FormatRun(set_name, fmt, questions=len(questions), files=len(articles))
        documents = {a.name: formats.load(folders[fmt] / f"{a.name}.{fmt}", MAX_BYTES)
                     for a in articles}  # fmt: skip
        run.pages = sum(len(d.pages) for d in documents.values())
        for article in articles:
            text = documents[article.name].text
            run.paragraphs += len(article.paragraphs)
            intact, breaks = paragraph_ends(article, text)
            run.intact += intact
            run.breaks += breaks
            if fmt != "md":
                diff_words(plain_words(article.text, True), plain_words(text, fmt != "pdf"),
                           f"{article.name}.{fmt}", run.diff, args.show)  # fmt: skip
            if fmt == "html":
                run.leaks += sum(s in text for s in SENTINELS)
        quire = Quire.open(work / "homes" / f"{set_name}-{fmt}", embedder=vectors)
        try:
            started = time.perf_counter()
            reports = quire.index([folders[fmt]])
            run.index_seconds = time.perf_counter() - started
            report = reports[0].report
            run.chunks = quire.database.query("SELECT count(*) FROM chunks")[0][0]
            if report.problems:
                print(f"  {set_name} {fmt}: {report.problems}", flush=True)
            t0 = time.perf_counter()
            for q in questions:
                name = Path(q["path"]).stem
                path = f"{name}.{fmt}"
                results = quire.search(q["question"], top_k=10)
                gold: Gold | None
                if fmt == "md":
                    gold = Gold(q["path"], q["start"], q["end"], "markdown")
                else:
                    gold = map_gold(q, by_name[name].text, documents[name].text, path)
                if gold is None:
                    run.unmapped.append(f"{q['id']} {path}: {q['answer']!r}")
                else:
                    run.mapped[gold.how] += 1
                run.ranks[q["id"]] = first_hit(results, gold)
                run.details[q["id"]] = {
                    "rank": run.ranks[q["id"]], "question": q["question"], "answer": q["answer"],
                    "gold": None if gold is None else [gold.path, gold.start, gold.end, gold.how],
                    "top3": [[r.path, r.start, r.end, r.page, r.text[:160]] for r in results[:3]],
                }  # fmt: skip
                if fmt == "pdf":
                    for rank, r in enumerate(results):
                        name_r = Path(r.path).stem
                        spans.append(SpanCheck(folders["pdf"] / r.path, documents[name_r],
                                               r.start, r.end, r.page, r.page_end,
                                               "top-1" if rank == 0 else "result",
                                               f"{q['id']} rank {rank + 1}"))  # fmt: skip
            if fmt == "pdf" and args.evidence:
                spans.extend(evidence_spans(quire, questions[: args.evidence], folders["pdf"],
                                            documents))  # fmt: skip
            if fmt == "html":
                run.leaks += sum(r.lexical_rank is not None
                                 for s in SENTINELS for r in quire.search(s, top_k=3))  # fmt: skip
            run.search_seconds = time.perf_counter() - t0
        finally:
            quire.close()
        runs.append(run)
        print(f"  {set_name} {fmt:<4} indexed in {run.index_seconds:5.1f} s, "
              f"{len(questions)} questions in {run.search_seconds:5.1f} s: "
              f"Hit@5 {run.hit(5):.3f} MRR@10 {run.mrr():.3f}", flush=True)  # fmt: skip
    return runs, spans, info


def evidence_spans(quire: Quire, questions: list[dict[str, Any]], folder: Path,
                   documents: dict[str, Document]) -> list[SpanCheck]:  # fmt: skip
    retrieval = quire.answers.retrieval()
    out = []
    for q in questions:
        results = quire.search(q["question"], top_k=8)
        _, found, _ = decide(retrieval, retrieval.read(q["question"]), results)
        for e in found:
            document = documents[Path(e.path).stem]
            out.append(SpanCheck(folder / e.path, document, e.start, e.end, e.page,  # Quire's
                                 document.page_at(max(e.start, e.end - 1)), "evidence",
                                 f"{q['id']} evidence {e.text[:40]!r}"))  # fmt: skip
    return out


# -- part 2: spans to boxes ----------------------------------------------------------------------


def check_spans(spans: list[SpanCheck], keep: int) -> BoxReport:
    import pypdfium2 as pdfium

    report = BoxReport()
    seen: set[tuple[str, int, int, str]] = set()
    top1_keys = {(str(s.path), s.start, s.end) for s in spans if s.source == "top-1"}
    for span in spans:
        key = (str(span.path), span.start, span.end, "e" if span.source == "evidence" else "r")
        if key in seen:
            continue
        seen.add(key)
        report.spans += 1
        report.evidence += span.source == "evidence"
        report.top1 += span.source != "evidence" and key[:3] in top1_keys
        problems = span_problems(span, pdfium)
        report.characters += sum(not c.isspace() for c in span.document.text[span.start : span.end])
        for kind, detail in problems:
            report.failures[kind] += 1
            if len(report.examples) < keep:
                report.examples.append(f"{kind}: {span.path.name} p{span.page} {span.label}: "
                                       f"{detail}")  # fmt: skip
    return report


def span_problems(span: SpanCheck, pdfium: Any) -> list[tuple[str, str]]:
    """A span (a passage may continue on the next page) checked page by page: the pages the
    result names, then each page's part of the span against pdfium's boxes and text."""
    document = span.document
    page = document.page_at(span.start)
    last = document.page_at(max(span.start, span.end - 1))
    if page is None or (span.page, span.page_end) != (page, last):
        return [("page", f"result says {span.page}–{span.page_end}, the text's pages are "
                         f"{page}–{last}")]  # fmt: skip
    problems: list[tuple[str, str]] = []
    for number in range(page, (last or page) + 1):
        first = document.pages[number - 1]
        after = document.pages[number] if number < len(document.pages) else len(document.text)
        start, end = max(span.start, first), min(span.end, after)
        if document.text[start:end].strip():
            problems += _page_part_problems(span, pdfium, number, start, end)
    return problems


def _page_part_problems(span: SpanCheck, pdfium: Any, page: int, start: int, end: int
                        ) -> list[tuple[str, str]]:  # fmt: skip
    document = span.document
    text = document.text[start:end]
    page_start = document.pages[page - 1]
    boxes = pdf_format.char_boxes(span.path, page, start - page_start, end - page_start)
    expected = [c for c in text if not c.isspace()]
    problems: list[tuple[str, str]] = []
    if len(boxes) != len(expected):
        problems.append(("box count", f"{len(boxes)} boxes for {len(expected)} characters "
                                      f"of {text[:50]!r}"))  # fmt: skip
    pdf = pdfium.PdfDocument(span.path)
    try:
        pdf_page = pdf[page - 1]
        left, bottom, right, top = pdf_page.get_bbox()  # the page as shown (inherited boxes)
        outside = [b for b in boxes if b[0] < left - 1 or b[2] > right + 1 or b[1] < bottom - 1
                   or b[3] > top + 1 or b[2] < b[0] or b[3] < b[1]]  # fmt: skip
        if outside:
            problems.append(("outside page", f"{len(outside)} boxes, e.g. {outside[0]}"))
        textpage = pdf_page.get_textpage()
        try:
            raw = pdf_format.visible_raw(pdf_format.page_text(pdf, page - 1))
            wrong = []
            for box, char in zip(boxes, expected, strict=False):
                x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
                i = textpage.get_index(x, y, 1.0, 1.0)
                if i is None or i < 0 or i >= len(raw) or raw[i] != char:
                    wrong.append((char, raw[i] if i is not None and 0 <= i < len(raw) else None))
            if wrong:
                problems.append(("char at box", f"{len(wrong)} of {len(boxes)}, e.g. {wrong[:3]}"))
            # pdfium's bounded text spells the printed line-end hyphen (U+FFFE in the page's
            # text) as U+0002
            inside = " ".join(pdf_format.visible_raw(textpage.get_text_bounded(*rect))
                              .replace("\x02", "-") for rect in line_rects(boxes))  # fmt: skip
            flat = Squashed.of(inside, spaces=False).text
            lost = [w for w in Squashed.of(text).text.split(" ")
                    if w and Squashed.of(w, spaces=False).text not in flat]  # fmt: skip
            if lost:
                problems.append(("words not in boxes", f"{lost[:5]} of {text[:50]!r}"))
        finally:
            textpage.close()
    finally:
        pdf.close()
    return problems


def line_rects(boxes: Iterable[tuple[float, ...]]) -> list[tuple[float, float, float, float]]:
    """The boxes grouped into lines (a line ends where the next box starts left of the last one
    or does not overlap it vertically), each line's bounding rectangle."""
    lines: list[list[tuple[float, ...]]] = []
    for box in boxes:
        last = lines[-1][-1] if lines else None
        if last is None or box[0] < last[0] - 0.5 or box[3] < last[1] or box[1] > last[3]:
            lines.append([box])
        else:
            lines[-1].append(box)
    return [(min(b[0] for b in line), min(b[1] for b in line), max(b[2] for b in line),
             max(b[3] for b in line)) for line in lines]  # fmt: skip


# -- part 3: speed -------------------------------------------------------------------------------


def quire_index_seconds(folder: Path, home: Path, runs: int) -> float:
    """Median seconds of `runs` first keyword-only indexings of `folder`, each in a new home."""
    times = []
    for run in range(runs):
        quire = Quire.open(home / f"run{run}")
        started = time.perf_counter()
        quire.index([folder], embed=False)
        times.append(time.perf_counter() - started)
        quire.close()
    return statistics.median(times)


def raw_pdf_seconds(files: list[Path], runs: int) -> tuple[float, int]:
    import pypdfium2 as pdfium

    def once() -> int:
        pages = 0
        for path in files:
            pdf = pdfium.PdfDocument(path)
            for i in range(len(pdf)):
                page = pdf[i]
                textpage = page.get_textpage()
                textpage.get_text_range()
                textpage.close()
                page.close()
                pages += 1
            pdf.close()
        return pages

    results = [timed(once) for _ in range(runs)]
    return statistics.median(t for _, t in results), results[0][0]


def raw_docx_seconds(files: list[Path], runs: int) -> float:
    import docx

    def once() -> None:
        for path in files:
            document = docx.Document(str(path))
            "\n".join(p.text for p in document.paragraphs)

    return statistics.median(timed(once)[1] for _ in range(runs))


class _Texts(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def raw_html_seconds(files: list[Path], runs: int) -> float:
    def once() -> None:
        for path in files:
            parser = _Texts()
            parser.feed(path.read_text("utf-8"))
            parser.close()

    return statistics.median(timed(once)[1] for _ in range(runs))


def loader_seconds(files: list[Path], runs: int) -> float:
    """Quire's own loader in this process (no worker, no chunking, no writes)."""

    def once() -> None:
        for path in files:
            formats.load(path, MAX_BYTES)

    return statistics.median(timed(once)[1] for _ in range(runs))


def worker_start_seconds(sample: Path) -> float:
    """The first file through a new extractor minus the second: the worker's start (on Linux
    and macOS a fork of the fork server, which an earlier run of this process started)."""
    from desktop_app.core.ingest.extractor import Extractor

    with Extractor() as extractor:
        _, first = timed(lambda: extractor.load(sample, MAX_BYTES))
        _, second = timed(lambda: extractor.load(sample, MAX_BYTES))
    return first - second


def cold_worker_start_seconds(sample: Path) -> float:
    """`worker_start_seconds` in a new process: the first index run of a `quire index` pays
    this once (the fork server's start, where there is one, and its imports)."""
    code = ("import sys; sys.path.insert(0, sys.argv[2]); from pathlib import Path; "
            "from tests.bench.bench_formats import worker_start_seconds; "
            "print(worker_start_seconds(Path(sys.argv[1])))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code, str(sample), str(ROOT)],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return float(done.stdout.split()[-1])


def long_pdf(path: Path, articles: list[Article], font: Font, pages: int) -> str:
    """A `pages`-page PDF of the articles' paragraphs, about 2.5 KB of text a page; the last page
    ends with a codeword (returned) that a keyword search must find there."""
    from fpdf.enums import XPos, YPos

    pdf = _new_pdf(font, "Collected articles")
    stream = [p for a in articles for p in a.paragraphs]
    codeword = "zanzibarquirecodeword"
    position = 0
    pending = ""
    for number in range(pages):
        pdf.add_page()
        pdf.set_font("body", "", 9.5)
        budget = 2500
        while budget > 200:
            if not pending:
                pending = stream[position % len(stream)]
                position += 1
            if len(pending) <= budget:
                piece, pending = pending, ""
            else:
                cut = pending.rfind(". ", 0, budget) + 1 or pending.rfind(" ", 0, budget)
                cut = cut if cut > 0 else budget
                piece, pending = pending[:cut], pending[cut:].lstrip()
            if number == pages - 1 and budget - len(piece) <= 200:
                piece += f" The archive ends with the word {codeword}."
            pdf.multi_cell(0, 4.6, piece, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
            pdf.ln(2)
            budget -= len(piece)
    pdf.output(str(path))
    return codeword


def bench_speed(work: Path, folders: dict[str, list[Path]], articles: list[Article], font: Font,
                args: argparse.Namespace) -> dict[str, Any]:  # fmt: skip
    import pypdfium2 as pdfium

    home = work / "speed"
    warm = Quire.open(home / "warm")  # one-time loads: tiktoken, language model, stemmers
    warm.index([folders["warm"][0]], embed=False)
    warm.close()
    out: dict[str, Any] = {}
    rows: list[tuple[str, int, float, float, float | None, float, str]] = []
    out["worker_start_seconds"] = worker_start_seconds(folders["html"][0])
    out["cold_worker_start_seconds"] = cold_worker_start_seconds(folders["html"][0])
    for fmt, unit in (("pdf", "pages"), ("docx", "files"), ("html", "files")):
        staged = work / "speed-in" / fmt
        staged.mkdir(parents=True)
        for path in folders[fmt]:
            shutil.copy(path, staged / f"{path.parent.parent.name}-{path.name}")
        files = sorted(staged.iterdir())
        quire_s = quire_index_seconds(staged, home / fmt, args.runs)
        if fmt == "pdf":
            raw_s, count = raw_pdf_seconds(files, args.runs)
        else:
            raw_s = (raw_docx_seconds if fmt == "docx" else raw_html_seconds)(files, args.runs)
            count = len(files)
        loader_s = loader_seconds(files, args.runs)
        as_md = work / "speed-in" / f"{fmt}-as-md"
        as_md.mkdir()
        for path in files:
            (as_md / f"{path.stem}.md").write_text(formats.load(path, MAX_BYTES).text, "utf-8")
        same_text_s = quire_index_seconds(as_md, home / f"{fmt}-as-md", args.runs)
        out[fmt] = {"unit": unit, "count": count, "quire_seconds": quire_s, "raw_seconds": raw_s,
                    "loader_seconds": loader_s, "quire_per_s": count / quire_s,
                    "raw_per_s": count / raw_s, "ratio": raw_s / quire_s,
                    "same_text_as_md_seconds": same_text_s}  # fmt: skip
        rows.append((f"{fmt.upper()} {unit}/s to keyword-searchable", count, quire_s, raw_s,
                     loader_s, raw_s / quire_s, "≥ 0.5×" if fmt == "pdf" else "–"))  # fmt: skip
    big_dir = work / "speed-in" / "long"
    big_dir.mkdir()
    big = big_dir / "collected.pdf"
    codeword, gen_s = timed(lambda: long_pdf(big, articles, font, args.pages))
    pdf = pdfium.PdfDocument(big)
    page_count = len(pdf)
    pdf.close()
    chars = len(formats.load(big, MAX_BYTES).text)
    quire = Quire.open(home / "long")
    reports, long_s = timed(lambda: quire.index([big_dir], embed=False))
    hits = quire.search(codeword, top_k=3)
    found_page = hits[0].page if hits else None
    chunks = quire.database.query("SELECT count(*) FROM chunks")[0][0]
    quire.close()
    raw_long, _ = raw_pdf_seconds([big], 1)
    out["long_pdf"] = {"pages": page_count, "chars": chars, "mb": big.stat().st_size / 1e6,
                       "generate_seconds": gen_s, "quire_seconds": long_s,
                       "raw_seconds": raw_long, "chunks": chunks,
                       "problems": reports[0].report.problems,
                       "codeword_page": found_page, "goal_seconds": 10}  # fmt: skip
    rows.append((f"one {page_count}-page PDF ({chars / page_count / 1000:.1f} KB/page) "
                 "to keyword-searchable, s", page_count, long_s, raw_long, None,
                 raw_long / long_s, "≤ 10 s"))  # fmt: skip
    print("\n## 3. Speed to keyword-searchable (embedder off; median of "
          f"{args.runs} fresh indexes)\n")  # fmt: skip
    print("| what | items | Quire s | raw s | Quire loader in-process s | ratio raw/Quire | goal |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for what, items, q_s, r_s, l_s, ratio, goal in rows:
        loader = f"{l_s:.2f}" if l_s is not None else "–"
        print(f"| {what} | {items} | {q_s:.2f} | {r_s:.2f} | {loader} | {ratio:.2f}× | {goal} |")
    print()
    for fmt in ("pdf", "docx", "html"):
        r = out[fmt]
        print(f"- {fmt.upper()}: Quire {r['quire_per_s']:.0f} {r['unit']}/s, raw "
              f"{r['raw_per_s']:.0f} {r['unit']}/s; Quire indexing the same extracted texts saved "
              f"as .md files takes {r['same_text_as_md_seconds']:.2f} s")  # fmt: skip
    print(f"- starting the extractor's worker process, paid once per index run: "
          f"{out['worker_start_seconds']:.3f} s; the first run of a new process (the fork "
          f"server's start where there is one, and the readers' imports): "
          f"{out['cold_worker_start_seconds']:.3f} s")  # fmt: skip
    lp = out["long_pdf"]
    print(f"- {lp['pages']}-page PDF ({lp['mb']:.1f} MB, {lp['chars']} characters, generated in "
          f"{lp['generate_seconds']:.0f} s): keyword-searchable in {lp['quire_seconds']:.1f} s "
          f"({lp['chunks']} chunks); raw pypdfium2 text {lp['raw_seconds']:.1f} s; its codeword "
          f"found on page {lp['codeword_page']} (expected {lp['pages']})")  # fmt: skip
    return out


# -- the report ------------------------------------------------------------------------------------


def print_fidelity(runs: list[FormatRun], show: int) -> dict[str, Any]:
    print("\n## 1. Extraction fidelity (Hit@5 / MRR@10 per format; Δ against Markdown)\n")
    print("| set | format | files | pages | questions | gold mapped: in passage / by context / "
          "ignoring spaces / **unmapped** | paragraphs intact | of them ending in a blank line | "
          "chunks | Hit@5 | MRR@10 | ΔHit@5 | ΔMRR@10 | index s (with embeddings) |")  # fmt: skip
    print("|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    out: dict[str, Any] = {}
    base: dict[str, FormatRun] = {r.set_name: r for r in runs if r.fmt == "md"}
    for r in runs:
        md = base[r.set_name]
        d_hit, d_mrr = r.hit(5) - md.hit(5), r.mrr() - md.mrr()
        mapped = ("(original)" if r.fmt == "md" else
                  f"{r.mapped['passage']} / {r.mapped['context']} / {r.mapped['no-spaces']} / "
                  f"**{len(r.unmapped)}**")  # fmt: skip
        print(f"| {r.set_name} | {r.fmt} | {r.files} | {r.pages or '–'} | {r.questions} | "
              f"{mapped} | {r.intact}/{r.paragraphs} | {r.breaks} | {r.chunks} | "
              f"{r.hit(5):.3f} | {r.mrr():.3f} | "
              f"{d_hit:+.3f} | {d_mrr:+.3f} | {r.index_seconds:.1f} |")  # fmt: skip
        out[f"{r.set_name}/{r.fmt}"] = {
            "hit1": r.hit(1), "hit5": r.hit(5), "hit10": r.hit(10), "mrr10": r.mrr(),
            "delta_hit5": d_hit, "delta_mrr10": d_mrr, "questions": r.questions,
            "mapped": dict(r.mapped), "unmapped": len(r.unmapped), "intact": r.intact,
            "paragraphs": r.paragraphs, "paragraph_breaks": r.breaks, "chunks": r.chunks,
            "pages": r.pages, "index_seconds": r.index_seconds,
            "within_0_01": d_hit >= -0.01 and d_mrr >= -0.01, "diff": dict(r.diff.kinds),
            "diff_words": r.diff.words, "html_leaks": r.leaks,
        }  # fmt: skip
    print("\nWhat extraction changed, word-level diff against the Markdown (counts of differing "
          "runs of words):\n")  # fmt: skip
    kinds = ("glued", "split", "hyphenation", "changed", "dropped", "inserted", "page numbers")
    print("| set | format | source words | " + " | ".join(kinds) + " | HTML sentinels leaked |")
    print("|---|---|---:|" + "---:|" * len(kinds) + "---:|")
    for r in runs:
        if r.fmt == "md":
            continue
        leaks = str(r.leaks) if r.fmt == "html" else "–"
        print(f"| {r.set_name} | {r.fmt} | {r.diff.words} | "
              + " | ".join(str(r.diff.kinds[k]) for k in kinds) + f" | {leaks} |")  # fmt: skip
    for r in runs:
        shown = [(k, e) for k in kinds if k != "page numbers" for e in r.diff.examples.get(k, [])]
        if shown or r.unmapped:
            print(f"\n{r.set_name} {r.fmt}:")
        for kind, example in shown:
            print(f"- {kind}: {example}")
        for u in r.unmapped[:show]:
            print(f"- unmapped gold: {u}")
    print_regressions(runs, show)
    return out


def print_regressions(runs: list[FormatRun], show: int) -> None:
    """Per question, the format's first hitting rank against Markdown's (11: none in the top 10)."""
    print("\nRanks against Markdown's, question by question:\n")
    base = {r.set_name: r for r in runs if r.fmt == "md"}
    for r in runs:
        if r.fmt == "md":
            continue
        md = base[r.set_name]
        pairs = {q: (md.ranks[q] or 11, r.ranks.get(q) or 11) for q in md.ranks}
        worse = sorted((q for q, (a, b) in pairs.items() if b > a), key=lambda q: pairs[q])
        better = [q for q, (a, b) in pairs.items() if b < a]
        lost = [q for q, (a, b) in pairs.items() if a <= 5 < b]
        gained = [q for q, (a, b) in pairs.items() if b <= 5 < a]
        examples = ", ".join(f"{q} {pairs[q][0]}→{pairs[q][1]}" for q in worse[:show])
        print(f"- {r.set_name} {r.fmt}: {len(worse)} worse, {len(better)} better, "
              f"{len(pairs) - len(worse) - len(better)} same; top 5 lost {len(lost)}, gained "
              f"{len(gained)}; worse e.g. {examples or '–'}")  # fmt: skip


def print_boxes(report: BoxReport, show: int) -> dict[str, Any]:
    print("\n## 2. PDF span → boxes round trip\n")
    kinds = ("page", "box count", "outside page", "char at box", "words not in boxes")
    print("| spans checked | of them top-1 | evidence sentences | characters | "
          + " | ".join(f"fail: {k}" for k in kinds) + " |")  # fmt: skip
    print("|" + "---:|" * (4 + len(kinds)))
    print(f"| {report.spans} | {report.top1} | {report.evidence} | {report.characters} | "
          + " | ".join(str(report.failures[k]) for k in kinds) + " |")  # fmt: skip
    for example in report.examples[:show]:
        print(f"- {example}")
    return {"spans": report.spans, "top1": report.top1, "evidence": report.evidence,
            "characters": report.characters, "failures": dict(report.failures)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--questions", type=int, default=None,
                        help="questions per set, a fixed-seed sample (default: all)")  # fmt: skip
    parser.add_argument("--sets", default="xquad-en,xquad-de")
    parser.add_argument("--paragraphs-per-page", type=int, default=2)
    parser.add_argument("--pages", type=int, default=1000, help="pages of the long PDF")
    parser.add_argument("--runs", type=int, default=3, help="speed runs (median)")
    parser.add_argument("--evidence", type=int, default=60,
                        help="questions per set whose evidence sentences become boxes")  # fmt: skip
    parser.add_argument("--show", type=int, default=6, help="examples shown per kind")
    parser.add_argument("--only", choices=["fidelity", "speed"])
    parser.add_argument("--details", type=Path, help="write every question's ranks here (JSON)")
    parser.add_argument("--eval", type=Path, default=EVAL, help="the eval sets' folder")
    args = parser.parse_args(argv)
    sets = [s for s in args.sets.split(",") if s]
    font = find_font()
    numbers: dict[str, Any] = {"font": font.regular}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-formats-") as tmp:
        work = Path(tmp)
        os.environ["QUIRE_HOME"] = str(work / "quire-home")
        print(f"font {font.regular}; sets {', '.join(sets)}; "
              f"{args.questions or 'all'} questions per set", flush=True)  # fmt: skip
        articles = {s: [read_article(p) for p in sorted((args.eval / s / "notes").glob("*.md"))]
                    for s in sets}  # fmt: skip
        if args.only in (None, "fidelity"):
            vectors = QueryVectors(Embedder())
            runs: list[FormatRun] = []
            spans: list[SpanCheck] = []
            for set_name in sets:
                set_runs, set_spans, info = run_set(set_name, work / "fidelity", args, font,
                                                    vectors)  # fmt: skip
                runs += set_runs
                spans += set_spans
                numbers[f"{set_name}/setup"] = info
            numbers["fidelity"] = print_fidelity(runs, args.show)
            if args.details:
                details = {f"{r.set_name}/{r.fmt}": r.details for r in runs}
                args.details.write_text(json.dumps(details, ensure_ascii=False), "utf-8")
            if MISSING.chars:
                print(f"\nfpdf2 left out characters its font lacks: {dict(MISSING.chars)}")
            numbers["fpdf_missing_glyphs"] = dict(MISSING.chars)
            numbers["boxes"] = print_boxes(check_spans(spans, 40), 40)
        if args.only in (None, "speed"):
            rendered = work / "speed-src"
            per_fmt: dict[str, list[Path]] = {"pdf": [], "docx": [], "html": [], "warm": []}
            for set_name in sets:
                language = set_name.rsplit("-", 1)[-1]
                folders = render_all(articles[set_name], rendered / set_name, font,
                                     args.paragraphs_per_page, language)  # fmt: skip
                for fmt in ("pdf", "docx", "html"):
                    per_fmt[fmt] += sorted(folders[fmt].iterdir())
            warm = rendered / "warm"
            warm.mkdir()
            for fmt in ("pdf", "docx", "html"):
                shutil.copy(per_fmt[fmt][0], warm / per_fmt[fmt][0].name)
            per_fmt["warm"] = [warm]
            every = [a for s in sets for a in articles[s]]
            numbers["speed"] = bench_speed(work, per_fmt, every, font, args)
    numbers["seconds"] = time.perf_counter() - started
    print(f"\n(total {numbers['seconds']:.0f} s)")
    print(json.dumps(numbers, ensure_ascii=False, default=str))
    return 0


if __name__ == "__main__":
    from tests.bench.page import record

    raise SystemExit(record(main, "bench_formats"))
