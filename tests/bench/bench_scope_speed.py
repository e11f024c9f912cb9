"""Scope speed benchmark at ~100,000 passages, side by side in one run.

usage: python tests/bench/bench_scope_speed.py [--passages 100000] [--cli-runs 5] [--set DIR]

The journal test set (tests/data/journal) is copied until the index holds `--passages`
passages (each copy a folder of its own, same days and tags), indexed with the default embedder
(identical texts are embedded once), QUIRE_TODAY at the set's today.

1. Filtered vs unfiltered hybrid search: every journal question searched as Quire reads it
   (time phrase or `tag:` applied inside the FTS query and on the vector matrix) and the same
   words without the scope; p50 / p95 of each.                 goal: filtered p95 ≤ unfiltered p95
2. The Search tab while typing: each question typed a character at a time; every prefix that
   ends a word (what a 150 ms typing pause lets through) is searched the way the tab does
   (`Quire.browse`); p50 / p95 per search.                                   goal: p95 ≤ 100 ms
3. One-off `quire search QUERY` from the command line (a new process: imports, open, query
   vector, search, print): wall seconds over `--cli-runs`.                        goal: ≤ 1 s
Prints a Markdown table, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SET = ROOT / "tests" / "data" / "journal"
TODAY = "2026-12-02"
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from desktop_app.core.api import Quire  # noqa: E402
from desktop_app.core.retrieval.search import SearchOptions  # noqa: E402

_TAG_WORD = re.compile(r"(?<!\S)tag:\S+\s*")
OLD_MTIME = 1_590_969_600  # 2020-06-01


def percentile(values: list[float], p: float) -> float:
    return float(np.percentile(np.array(values) * 1000, p))


def build(work: Path, passages: int, set_dir: Path = SET) -> tuple[Quire, Path, float]:
    folder = work / "notes"
    per_copy = sum(1 for p in (set_dir / "notes").rglob("*.md"))
    copies = max(1, round(passages / per_copy))
    for n in range(copies):
        shutil.copytree(set_dir / "notes", folder / f"copy{n:03d}")
    for path in folder.rglob("*.md"):
        os.utime(path, (OLD_MTIME, OLD_MTIME))
    home = work / "home"
    quire = Quire.open(home)
    started = time.perf_counter()
    quire.index([folder])
    return quire, home, time.perf_counter() - started


def prefixes(question: str) -> list[str]:
    """What the tab searches while `question` is typed: the text at each word's end."""
    return [question[: m.end()] for m in re.finditer(r"\S+", question)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--passages", type=int, default=100_000)
    parser.add_argument("--cli-runs", type=int, default=5)
    parser.add_argument("--set", type=Path, default=SET, help="a set of the journal's layout")
    args = parser.parse_args(argv)
    os.environ["QUIRE_TODAY"] = TODAY  # the set's today: its time phrases are read from it
    lines = (args.set / "questions.jsonl").read_text("utf-8").splitlines()
    questions = [json.loads(x)["question"] for x in lines]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        quire, home, index_s = build(work, args.passages, args.set)
        count = quire.database.query("SELECT count(*) FROM chunks")[0][0]
        for q in questions[:5]:  # warm-up: the vector matrix, the encoder, SQLite's cache
            quire.search(q)
        filtered, unfiltered = [], []
        for q in questions:
            started = time.perf_counter()
            quire.search(q, top_k=10)
            filtered.append(time.perf_counter() - started)
            plain = _TAG_WORD.sub("", q)
            started = time.perf_counter()
            quire.searcher.search(plain, _options(quire))
            unfiltered.append(time.perf_counter() - started)
        typing = []
        for q in questions:
            for prefix in prefixes(q):
                started = time.perf_counter()
                quire.browse(prefix)
                typing.append(time.perf_counter() - started)
        quire.close()
        cli = []
        env = {**os.environ, "QUIRE_HOME": str(home)}
        for q in questions[: args.cli_runs]:
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "desktop_app.cli", "search", q], env=env,
                           check=True, capture_output=True, cwd=ROOT)  # fmt: skip
            cli.append(time.perf_counter() - started)
    out = {
        "passages": count, "index_seconds": index_s,
        "filtered_ms": {"p50": percentile(filtered, 50), "p95": percentile(filtered, 95)},
        "unfiltered_ms": {"p50": percentile(unfiltered, 50), "p95": percentile(unfiltered, 95)},
        "typing_ms": {"p50": percentile(typing, 50), "p95": percentile(typing, 95),
                      "searches": len(typing)},
        "cli_seconds": {"median": statistics.median(cli), "max": max(cli), "runs": len(cli)},
    }  # fmt: skip
    print(f"{count} passages ({index_s:.0f} s to index), {len(questions)} questions\n")
    print("| what | p50 | p95 | goal |")
    print("|---|---:|---:|---|")
    f, u, t = out["filtered_ms"], out["unfiltered_ms"], out["typing_ms"]
    print(f"| hybrid search, scope applied (time phrase / tag) | {f['p50']:.0f} ms | "
          f"{f['p95']:.0f} ms | p95 ≤ unfiltered |")  # fmt: skip
    print(f"| the same words, no scope | {u['p50']:.0f} ms | {u['p95']:.0f} ms | |")
    print(f"| Search tab, one search per typed word ({t['searches']}) | {t['p50']:.0f} ms | "
          f"{t['p95']:.0f} ms | p95 ≤ 100 ms |")  # fmt: skip
    c = out["cli_seconds"]
    print(f"| one-off `quire search` (new process), wall | median {c['median']:.2f} s | "
          f"max {c['max']:.2f} s | ≤ 1 s |")  # fmt: skip
    print(json.dumps(out))
    return 0


def _options(quire: Quire) -> SearchOptions:
    s = quire.settings
    return SearchOptions(candidates=s.candidates, min_relevance=s.min_relevance, top_k=10)


if __name__ == "__main__":
    from tests.bench.page import record

    raise SystemExit(record(main, "bench_scope_speed"))
