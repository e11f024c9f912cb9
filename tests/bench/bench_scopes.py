"""Scopes benchmark: the journal test set answered with and without scopes, side by side.

usage: python tests/bench/bench_scopes.py [--no-embed] [--details FILE] [--set DIR] [--page FILE]

tests/data/journal (made by its make_journal.py: 731 daily notes over two years in English,
German and Czech, dated by file name, folders or front matter, tagged inline, plus undated topic
notes on the same subjects; 76 questions scoped by a time phrase or a `tag:`) is indexed with
Quire's default embedder, QUIRE_TODAY set to the set's today (2026-12-02) and every file's
modification time set to 2020-06-01 (so only what the notes say dates them).

Each question is searched twice:
  scoped   — as Quire reads it: the time phrase and `tag:` resolved to a scope, the rest searched
             inside it;
  unscoped — the same words searched everywhere (`tag:x` left out), as before scopes existed.
Hit@1 / Hit@5 / MRR@10 against the gold note, per kind (time, tag) and language.
Goal: scoped Hit@1 ≥ 0.85 and ≥ 30 points above unscoped.
Prints a Markdown table, then one JSON line; --page docs/benchmarks.md also writes the table
into that page's bench_scopes section.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SET = ROOT / "tests" / "data" / "journal"
TODAY = "2026-12-02"
OLD_MTIME = 1_590_969_600  # 2020-06-01
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(ROOT))

from desktop_app.core.api import Quire  # noqa: E402
from desktop_app.core.retrieval.search import SearchOptions  # noqa: E402

_TAG_WORD = re.compile(r"(?<!\S)tag:\S+\s*")


def stage(work: Path, set_dir: Path = SET) -> Path:
    notes = work / "notes"
    shutil.copytree(set_dir / "notes", notes)
    for path in notes.rglob("*"):
        os.utime(path, (OLD_MTIME, OLD_MTIME))
    return notes


def ranks(paths: list[str], gold: str) -> int | None:
    return next((n for n, p in enumerate(paths, start=1) if p == gold), None)


def score(found: list[int | None]) -> dict[str, float]:
    count = len(found) or 1
    return {
        "hit1": sum(r == 1 for r in found) / count,
        "hit5": sum(r is not None and r <= 5 for r in found) / count,
        "mrr10": sum(1 / r for r in found if r is not None and r <= 10) / count,
        "questions": len(found),
    }


def _three(scores: dict[str, float]) -> str:
    return f"{scores['hit1']:.2f} / {scores['hit5']:.2f} / {scores['mrr10']:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-embed", action="store_true", help="keyword search only")
    parser.add_argument("--details", type=Path, help="write every question's ranks here")
    parser.add_argument("--set", type=Path, default=SET, help="a set of the journal's layout")
    parser.add_argument("--page", type=Path, help="write the table into this benchmarks page")
    args = parser.parse_args(argv)
    os.environ["QUIRE_TODAY"] = TODAY  # the set's today: its time phrases are read from it
    lines = (args.set / "questions.jsonl").read_text("utf-8").splitlines()
    questions = [json.loads(line) for line in lines if line]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        notes = stage(work, args.set)
        quire = Quire.open(work / "home")
        started = time.perf_counter()
        quire.index([notes], embed=not args.no_embed)
        index_s = time.perf_counter() - started
        found: dict[str, dict[str, list[int | None]]] = defaultdict(lambda: defaultdict(list))
        details = []
        for q in questions:
            scoped = quire.search_in(q["question"], top_k=10)
            scoped_paths = [r.path for r in scoped.results]
            options = SearchOptions(top_k=10, candidates=quire.settings.candidates)
            plain = quire.searcher.search(_TAG_WORD.sub("", q["question"]), options)
            plain_paths = [r.path for r in plain]
            rs, ru = ranks(scoped_paths, q["gold"]), ranks(plain_paths, q["gold"])
            for group in ("all", q["kind"], q["lang"]):
                found["scoped"][group].append(rs)
                found["unscoped"][group].append(ru)
            details.append({"id": q["id"], "question": q["question"], "gold": q["gold"],
                            "scoped_rank": rs, "unscoped_rank": ru,
                            "scope": [c.label for c in scoped.query.scope.chips()],
                            "searched": scoped.query.text, "scoped_top": scoped_paths[:3],
                            "unscoped_top": plain_paths[:3]})  # fmt: skip
        quire.close()
    report = {
        way: {group: score(values) for group, values in groups.items()}
        for way, groups in found.items()
    }
    lines = [
        f"journal set: {len(questions)} questions, indexed in {index_s:.1f} s "
        f"({'keywords only' if args.no_embed else 'with embeddings'})\n",
        "| questions | n | scoped Hit@1 / Hit@5 / MRR@10 | unscoped Hit@1 / Hit@5 / MRR@10 |"
        " Δ Hit@1 |",
        "|---|---:|---|---|---:|",
    ]
    for group in ("all", "time", "tag", "en", "de", "cs"):
        s, u = report["scoped"].get(group), report["unscoped"].get(group)
        if not s or not u:
            continue
        lines.append(f"| {group} | {s['questions']} | {_three(s)} | {_three(u)} |"
                     f" {100 * (s['hit1'] - u['hit1']):+.0f} pts |")  # fmt: skip
    overall = report["scoped"]["all"]["hit1"], report["unscoped"]["all"]["hit1"]
    goal = overall[0] >= 0.85 and overall[0] - overall[1] >= 0.30
    lines.append(f"\ngoal: scoped Hit@1 ≥ 0.85 and ≥ 30 points above unscoped: "
                 f"{'met' if goal else 'not met'}")  # fmt: skip
    print("\n".join(lines))
    if args.page:
        from tests.bench.page import write_section

        flags = " --no-embed" if args.no_embed else ""
        command = f"python tests/bench/bench_scopes.py{flags} --page {args.page}"
        write_section(args.page, "bench_scopes", "\n".join(lines), command)
    misses = [d for d in details if d["scoped_rank"] != 1]
    for d in misses[:8]:
        print(
            f"- miss {d['id']}: {d['question']!r} scope {d['scope']} searched "
            f"{d['searched']!r}: gold {d['gold']} at {d['scoped_rank']}, top {d['scoped_top']}"
        )
    if args.details:
        args.details.write_text(json.dumps(details, ensure_ascii=False, indent=1), "utf-8")
    print(json.dumps({"report": report, "index_seconds": index_s, "goal_met": goal}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
