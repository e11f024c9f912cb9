"""Retrieval on real, published PDF and HTML documents that Quire was never tuned on.

Fetches the pinned documents (tests/bench/real_docs.py: Debian packages' manuals, papers,
reference cards and web pages, in English, German and Czech), indexes them with Quire (the
real embedder, offline) and runs tests/data/real_docs_questions.jsonl: questions written from
reading the documents, each with a gold span of the document's extracted text
(`formats.load(path, 10**9).text`), without looking at Quire's results.

Next to Quire, a naive baseline: every PDF page is one passage, every HTML file is cut on blank
lines of the same extracted text into passages of about 120 words (blocks joined until they
pass 120 words; a longer block stays whole), all ranked together by plain BM25 (k1=1.2, b=0.75,
lowercased `\\w+` tokens, no stemming). A passage of either system hits when it is from the
gold file and covers at least half of the gold span's characters (../shared/eval/score.py's
rule). Prints Hit@1 / Hit@5 / Hit@10 / MRR@10 by format as a Markdown table, the questions that
either system misses at 5, and a final JSON line.

Then the same manuals as PDF and as web pages (real_docs.PAIR_DOCS: the Debian FAQ, the New
Maintainers' Guide, the Developer's Reference, the FHS 3.0), each form indexed on its own, with
tests/bench/pdf_html_questions.jsonl: questions written from reading the web pages before any
tuning, each with a quote of the passage that answers it. The quote is found in each form's
extracted text (letters and digits compared, so line breaks and hyphenation do not matter);
that span is the gold, and for the PDF its page. Prints MRR@10 of PDF vs HTML per document,
Hit@1 / Hit@5 / MRR@10 of each form and of the naive baseline (PDF pages / HTML passages, BM25).

usage: python tests/bench/bench_real_docs.py [--cache DIR] [--no-embed] [--questions FILE]
                                             [--only all|pairs]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from desktop_app.core import evaluate  # noqa: E402
from desktop_app.core.api import Quire  # noqa: E402
from desktop_app.core.ingest import formats  # noqa: E402
from desktop_app.core.ingest.document import page_at  # noqa: E402
from tests.bench import real_docs  # noqa: E402

QUESTIONS = ROOT / "tests" / "data" / "real_docs_questions.jsonl"
RANKED = (("pdf", "quire"), ("html", "quire"), ("pdf", "naive"))
PAIR_QUESTIONS = ROOT / "tests" / "bench" / "pdf_html_questions.jsonl"
TOP_K = 10
K1, B = 1.2, 0.75
HTML_PASSAGE_WORDS = 120
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Passage:
    path: str
    start: int
    end: int


def first_hit(ranked: list[tuple[str, int, int]], gold: dict[str, Any]) -> int | None:
    """score.py's rule (`quire eval`'s): from the gold file, covering half the gold span."""
    spans = ({"path": path, "start": start, "end": end} for path, start, end in ranked[:TOP_K])
    return evaluate.first_hit(spans, gold)


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def pdf_pages(rel: str, text: str, pages: tuple[int, ...]) -> list[Passage]:
    ends = [p - len("\n\n") for p in pages[1:]] + [len(text)]
    return [Passage(rel, s, e) for s, e in zip(pages, ends, strict=True) if text[s:e].strip()]


def html_passages(rel: str, text: str) -> list[Passage]:
    """Blank-line blocks of the extracted text, joined until a passage passes ~120 words."""
    out: list[Passage] = []
    start = end = count = 0
    for m in re.finditer(r"\S(?:.|\n(?!\s*\n))*", text):  # runs of text between blank lines
        if count and count >= HTML_PASSAGE_WORDS:
            out.append(Passage(rel, start, end))
            count = 0
        if not count:
            start = m.start()
        end, count = m.end(), count + max(1, len(words(m.group(0))))
    if count:
        out.append(Passage(rel, start, end))
    return out


class BM25:
    """Plain Okapi BM25 over lowercased word tokens; idf = ln(1 + (N - df + .5) / (df + .5))."""

    def __init__(self, passages: list[Passage], texts: dict[str, str]) -> None:
        self.passages = passages
        self.tfs = [Counter(words(texts[p.path][p.start : p.end])) for p in passages]
        self.lengths = [sum(tf.values()) for tf in self.tfs]
        self.avg = sum(self.lengths) / max(1, len(self.lengths))
        df: Counter[str] = Counter()
        for tf in self.tfs:
            df.update(tf.keys())
        n = len(passages)
        self.idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}

    def rank(self, query: str) -> list[Passage]:
        terms = [w for w in set(words(query)) if w in self.idf]
        scores: list[tuple[float, int]] = []
        for i, tf in enumerate(self.tfs):
            norm = K1 * (1 - B + B * self.lengths[i] / self.avg)
            s = sum(self.idf[w] * tf[w] * (K1 + 1) / (tf[w] + norm) for w in terms if w in tf)
            if s > 0:
                scores.append((s, i))
        scores.sort(key=lambda si: (-si[0], si[1]))  # ties: the earlier passage first
        return [self.passages[i] for _, i in scores[:TOP_K]]


def metrics(ranks: list[int | None]) -> dict[str, float]:
    scored = evaluate.score(ranks)
    return {"n": len(ranks), "hit@1": scored["Hit@1"], "hit@5": scored["Hit@5"],
            "hit@10": scored["Hit@10"], "mrr@10": scored["MRR@10"]}  # fmt: skip


def load_questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    lines = path.read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=real_docs.CACHE)
    parser.add_argument("--no-embed", action="store_true", help="Quire keyword-only")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--only", choices=("all", "pairs"), default=None)
    args = parser.parse_args(argv)
    code = 0 if args.only == "pairs" else real_docs_set(args)
    if code == 0 and args.only != "all":
        code = paired(args.cache, args.no_embed)
    return code


def real_docs_set(args: argparse.Namespace) -> int:
    notes = real_docs.fetch(cache=args.cache)
    questions = load_questions(args.questions)

    texts: dict[str, str] = {}
    passages: list[Passage] = []
    pages = 0
    for doc in real_docs.DOCS:
        document = formats.load(notes / doc.dest, 10**9)
        texts[doc.dest] = document.text
        if document.pages:
            passages += pdf_pages(doc.dest, document.text, document.pages)
            pages += len(document.pages)
        else:
            passages += html_passages(doc.dest, document.text)
    stale = [q["id"] for q in questions if texts[q["path"]][q["start"] : q["end"]] != q["answer"]]
    if stale:
        print(f"error: gold spans no longer match the extracted text: {stale}", file=sys.stderr)
        return 1

    naive = BM25(passages, texts)
    naive_ranks = {}
    for q in questions:
        ranked = [(p.path, p.start, p.end) for p in naive.rank(q["question"])]
        naive_ranks[q["id"]] = first_hit(ranked, q)

    with tempfile.TemporaryDirectory() as tmp:
        quire = Quire.open(Path(tmp) / "home")
        try:
            problem = None if args.no_embed else quire.embedder_problem()
            if problem:
                print(
                    f"error: no embedder ({problem}); use --no-embed for keyword only",
                    file=sys.stderr,
                )
                return 1
            model = "keyword only" if args.no_embed else quire.embedder.model_id
            started = time.perf_counter()
            report = quire.index([notes], embed=not args.no_embed)[0].report
            index_seconds = time.perf_counter() - started
            if report.failed:
                print(f"warning: Quire failed on {report.failed}", file=sys.stderr)
            quire_ranks = {}
            started = time.perf_counter()
            for q in questions:
                results = quire.search(q["question"], top_k=TOP_K)
                for r in results:  # every shown span must be the extracted text's own
                    assert texts[r.path][r.start : r.end] == r.text, (q["id"], r.path, r.start)
                quire_ranks[q["id"]] = first_hit([(r.path, r.start, r.end) for r in results], q)
            search_ms = (time.perf_counter() - started) * 1000 / max(1, len(questions))
        finally:
            quire.close()

    rows: dict[str, dict[str, dict[str, float]]] = {}
    for fmt in ("pdf", "html", "all"):
        chosen = [q for q in questions if fmt == "all" or q["format"] == fmt]
        rows[fmt] = {
            "quire": metrics([quire_ranks[q["id"]] for q in chosen]),
            "naive": metrics([naive_ranks[q["id"]] for q in chosen]),
        }
    n_pdf = sum(1 for d in real_docs.DOCS if d.dest.endswith(".pdf"))
    n_html = len(real_docs.DOCS) - n_pdf
    print(
        f"real documents: {n_pdf} PDF ({pages} pages), {n_html} HTML; {len(questions)} "
        f"questions; Quire indexed in {index_seconds:.1f} s with {model}, "
        f"{search_ms:.0f} ms/search"
    )
    naive_html = sum(1 for p in passages if p.path.endswith(".html"))
    print(
        f"naive baseline: {len(passages) - naive_html} PDF pages + {naive_html} HTML passages "
        f"(~{HTML_PASSAGE_WORDS} words on blank lines), BM25 k1={K1} b={B}\n"
    )
    print("| format | questions | system | Hit@1 | Hit@5 | Hit@10 | MRR@10 |")
    print("|---|---|---|---|---|---|---|")
    for fmt, by_system in rows.items():
        for system, m in by_system.items():
            label = "Quire" if system == "quire" else "naive (pages / passages, BM25)"
            print(
                f"| {fmt} | {int(m['n'])} | {label} | {m['hit@1']:.3f} | {m['hit@5']:.3f} | "
                f"{m['hit@10']:.3f} | {m['mrr@10']:.3f} |"
            )
    missed = [q for q in questions if not (quire_ranks[q["id"]] or 99) <= 5
              or not (naive_ranks[q["id"]] or 99) <= 5]  # fmt: skip
    if missed:
        print("\nmissed at 5 by either (rank in top 10, - for none):")
        for q in missed:
            print(
                f"  {q['id']} quire={quire_ranks[q['id']] or '-'} "
                f"naive={naive_ranks[q['id']] or '-'}  {q['path']}: {q['question']}"
            )
    print(
        json.dumps(
            {
                "bench": "real_docs",
                "model": model,
                "index_seconds": round(index_seconds, 1),
                "search_ms": round(search_ms, 1),
                "results": rows,
                "ranks": {"quire": quire_ranks, "naive": naive_ranks},
            }
        )
    )
    return 0


def _letters(text: str) -> tuple[str, list[int]]:
    """`text`'s letters and digits, lowercased (compatibility forms: ligatures split), with the
    offset each comes from."""
    out: list[str] = []
    at: list[int] = []
    for i, ch in enumerate(text):
        if ch.isalnum():
            for c in unicodedata.normalize("NFKC", ch).lower():
                out.append(c)
                at.append(i)
    return "".join(out), at


def locate(quote: str, texts: dict[str, str]) -> tuple[str, int, int] | None:
    """Where `quote` stands in one of `texts` (the first file holding it), letters compared."""
    needle, _ = _letters(quote)
    for path, text in texts.items():
        flat, at = _letters(text)
        found = flat.find(needle)
        if found >= 0:
            return path, at[found], at[found + len(needle) - 1] + 1
    return None


def _load_form(folder: Path) -> tuple[dict[str, str], list[Passage], dict[str, tuple[int, ...]]]:
    texts: dict[str, str] = {}
    passages: list[Passage] = []
    pages: dict[str, tuple[int, ...]] = {}
    for path in sorted(folder.rglob("*.*")):
        rel = path.relative_to(folder).as_posix()
        document = formats.load(path, 10**9)
        texts[rel] = document.text
        if document.pages:
            pages[rel] = document.pages
            passages += pdf_pages(rel, document.text, document.pages)
        else:
            passages += html_passages(rel, document.text)
    return texts, passages, pages


def _quire_ranks(
    folder: Path, questions: list[dict[str, Any]], gold: dict[str, dict[str, Any]], embed: bool
) -> tuple[dict[str, int | None], float, str]:
    """Each question's first hitting rank in a fresh index of `folder`; the seconds indexing
    took; the model."""
    with tempfile.TemporaryDirectory() as tmp:
        quire = Quire.open(Path(tmp) / "home")
        try:
            problem = quire.embedder_problem() if embed else None
            if problem:
                raise SystemExit(f"error: no embedder ({problem}); use --no-embed")
            model = quire.embedder.model_id if embed else "keyword only"
            started = time.perf_counter()
            quire.index([folder], embed=embed)
            seconds = time.perf_counter() - started
            ranks = {}
            for q in questions:
                results = quire.search(q["question"], top_k=TOP_K)
                spans = [(r.path, r.start, r.end) for r in results]
                ranks[q["id"]] = first_hit(spans, gold[q["id"]])
        finally:
            quire.close()
    return ranks, seconds, model


def paired(cache: Path, no_embed: bool) -> int:
    """The paired documents: each question in the PDF form and in the HTML form."""
    root = real_docs.fetch_pairs(cache)
    questions = load_questions(PAIR_QUESTIONS)
    ranks: dict[str, dict[str, dict[str, int | None]]] = {}
    gold_pages: dict[str, int | None] = {}
    info = []
    for form in ("pdf", "html"):
        texts, passages, pages = _load_form(root / form)
        gold = {}
        for q in questions:
            docs = {p: t for p, t in texts.items() if p.startswith(q["doc"] + "/")}
            found = locate(q["quote"], docs)
            if found is None:
                print(f"error: {q['id']}'s quote is not in the {form} form", file=sys.stderr)
                return 1
            path, start, end = found
            gold[q["id"]] = {"path": path, "start": start, "end": end}
            if form == "pdf":
                gold_pages[q["id"]] = page_at(pages[path], start)
        naive = BM25(passages, texts)
        ranks[form] = {
            "quire": _quire_ranks(root / form, questions, gold, not no_embed)[0],
            "naive": {
                q["id"]: first_hit(
                    [(p.path, p.start, p.end) for p in naive.rank(q["question"])], gold[q["id"]]
                )
                for q in questions
            },
        }
        info.append(f"{form}: {len(texts)} files, {len(passages)} naive passages")
    _print_pairs(questions, ranks, gold_pages, info)
    return 0


def _print_pairs(
    questions: list[dict[str, Any]],
    ranks: dict[str, dict[str, dict[str, int | None]]],
    gold_pages: dict[str, int | None],
    info: list[str],
) -> None:
    print(f"\n## The same manuals as PDF and as web pages ({len(questions)} questions; "
          f"{'; '.join(info)})\n")  # fmt: skip
    print("| document | questions | PDF MRR@10 | HTML MRR@10 | PDF − HTML | naive PDF pages |")
    print("|---|---|---|---|---|---|")
    rows: dict[str, Any] = {}
    for doc in [*real_docs.PAIRED, "all"]:
        chosen = [q["id"] for q in questions if doc in ("all", q["doc"])]
        m = {f"{form} {system}": metrics([ranks[form][system][i] for i in chosen])
             for form in ranks for system in ranks[form]}  # fmt: skip
        rows[doc] = m
        pdf, html, naive = m["pdf quire"]["mrr@10"], m["html quire"]["mrr@10"], m["pdf naive"]
        print(f"| {doc} | {len(chosen)} | {pdf:.3f} | {html:.3f} | {pdf - html:+.3f} | "
              f"{naive['mrr@10']:.3f} |")  # fmt: skip
    print("\n| form | system | Hit@1 | Hit@5 | Hit@10 | MRR@10 |")
    print("|---|---|---|---|---|---|")
    for key, m in rows["all"].items():
        form, system = key.split()
        label = "Quire" if system == "quire" else "naive (pages / passages, BM25)"
        print(f"| {form} | {label} | {m['hit@1']:.3f} | {m['hit@5']:.3f} | {m['hit@10']:.3f} | "
              f"{m['mrr@10']:.3f} |")  # fmt: skip
    missed = [q for q in questions if (ranks["pdf"]["quire"][q["id"]] or 99) > 1]
    if missed:
        print("\nPDF not at rank 1 (Quire PDF / HTML / naive PDF rank, gold page):")
        for q in missed:
            i = q["id"]
            seen = " / ".join(str(ranks[f][s][i] or "-") for f, s in RANKED)
            print(f"  {i} {seen} p{gold_pages[i]}: {q['question']}")
    print(json.dumps({"bench": "real_docs_pairs", "results": rows, "ranks": ranks}))


if __name__ == "__main__":
    from tests.bench.page import record

    raise SystemExit(record(main, "bench_real_docs"))
