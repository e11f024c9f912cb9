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

usage: python tests/bench/bench_real_docs.py [--cache DIR] [--no-embed] [--questions FILE]
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
from tests.bench import real_docs  # noqa: E402

QUESTIONS = ROOT / "tests" / "data" / "real_docs_questions.jsonl"
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
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    from tests.bench.page import record

    raise SystemExit(record(main, "bench_real_docs"))
