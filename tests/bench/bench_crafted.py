"""Crafted notes benchmark (issue 36): what one hostile note costs the indexer, beside a raw
baseline, and how that cost grows with the note.

usage: python tests/bench/bench_crafted.py [--skip-growth | --growth-only]

1. Each crafted note (tests/support/crafted.py: a YAML alias bomb, 200,000 headings, 3 MB without
   white space, a 2 MB data: URI, 3,000 nested list levels) and a few more (a deep table, one
   very long line, many small notes) indexed alone with `quire index --no-embed`'s code in a
   fresh process: seconds, the process's peak resident memory growth, and the note's status;
   beside it the raw baseline in the same kind of process (read the file, `str.split`).
   goal: every note has a status, growth < the per-note cap, time < its budget
2. All of them with 12 good notes in one run: seconds, peak resident memory.   goal: < 1.5 GB
3. Growth: the time to read a note of N and 10·N headings / list items / characters without
   spaces, and the ratio.                                                       goal: ≤ 12×
Prints Markdown tables, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(ROOT))

from desktop_app.core.ingest import budget  # noqa: E402
from desktop_app.core.ingest.document import Document  # noqa: E402
from desktop_app.core.ingest.note_analysis import analyze_note  # noqa: E402
from desktop_app.core.tokens import count_tokens  # noqa: E402
from tests.support.crafted import many_headings, nested_list, unbroken, write_crafted  # noqa: E402

_INDEX_ONE = """
import resource, sys, time
from pathlib import Path
from desktop_app.core.ingest import indexer
from desktop_app.core.store.db import Database
from desktop_app.core.tokens import count_tokens
from desktop_app.core.retrieval import analyzer
count_tokens("warm"); analyzer.detect_language("warm up the language model")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
folder = Path(sys.argv[1])
t = time.perf_counter()
report = indexer.index_folder(Database(folder.parent / "q.sqlite"), folder, indexer.IndexOptions())
seconds = time.perf_counter() - t
grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
status = "; ".join(f"{p.status}: {p.reason}" for p in report.problems) or "indexed"
print(seconds, grown, report.indexed, status, sep="\\t")
"""

_RAW = """
import resource, sys, time
from pathlib import Path
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
words = 0
for path in Path(sys.argv[1]).iterdir():
    words += len(path.read_text(encoding="utf-8", errors="replace").split())
seconds = time.perf_counter() - t
print(seconds, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024, sep="\\t")
"""


def _extra(folder: Path) -> dict[str, Path]:
    """More hostile shapes beside the crafted notes."""
    table = "| a | b |\n|---|---|\n" + "".join(f"| {n} | {'x' * 40} |\n" for n in range(100_000))
    files = {
        "deep-table.md": f"# Table\n\n{table}",
        "long-line.txt": " ".join(f"word{n % 977}" for n in range(600_000)),
        "flow-yaml.md": "---\na: " + "[" * 5000 + "]" * 5000 + "\n---\n# Body\n\ntext\n",
    }
    out = {}
    for name, text in files.items():
        out[name] = folder / name
        out[name].write_text(text, encoding="utf-8")
    small = folder / "small"
    small.mkdir()
    for n in range(2_000):
        (small / f"n{n}.md").write_text(f"# Small {n}\n\nA short note {n}.\n", encoding="utf-8")
    out["small/ (2,000 notes)"] = small
    return out


def _run(script: str, folder: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", script, str(folder)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return done.stdout.strip().split("\t")


_TOGETHER = """
import resource, sys, time
from pathlib import Path
from desktop_app.core.ingest import indexer
from desktop_app.core.store.db import Database
folder = Path(sys.argv[1])
t = time.perf_counter()
report = indexer.index_folder(Database(folder.parent / "q.sqlite"), folder, indexer.IndexOptions())
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(time.perf_counter() - t, peak, report.indexed, report.failed, sep="\t")
"""


def together(work: Path) -> dict[str, object]:
    """Every crafted and hostile note with 12 good ones, indexed in one run: `quire index`
    finishes, and the indexer's peak resident memory (absolute, not growth)."""
    folder = work / "together" / "notes"
    write_crafted(folder)
    _extra(folder)
    for n in range(12):
        (folder / f"good{n}.md").write_text(f"# Good {n}\n\nSays goodword{n}.\n", "utf-8")
    seconds, peak, indexed, failed = _run(_TOGETHER, folder)
    return {
        "seconds": round(float(seconds), 1),
        "peak_rss_mb": round(int(peak) / 1024**2),
        "indexed": int(indexed),
        "failed": int(failed),
    }


def per_file(work: Path) -> list[dict[str, object]]:
    source = work / "source"
    files = {**write_crafted(source), **_extra(source)}
    rows: list[dict[str, object]] = []
    for n, (name, path) in enumerate(files.items()):
        alone = work / f"alone{n}" / "notes"
        alone.parent.mkdir()
        if path.is_dir():
            path.rename(alone)
        else:
            alone.mkdir()
            path.rename(alone / path.name)
        seconds, grown, indexed, status = _run(_INDEX_ONE, alone)
        raw_seconds, raw_grown = _run(_RAW, alone)
        size = sum(p.stat().st_size for p in alone.rglob("*") if p.is_file())
        rows.append(
            {
                "file": name,
                "mb": round(size / 1e6, 2),
                "indexed": int(indexed),
                "seconds": round(float(seconds), 2),
                "budget_s": round(budget.seconds_for(size), 0),
                "peak_growth_mb": round(int(grown) / 1024**2, 1),
                "raw_seconds": round(float(raw_seconds), 3),
                "raw_growth_mb": round(int(raw_grown) / 1024**2, 1),
                "status": status,
            }
        )
    return rows


def _read_seconds(text: str, markdown: bool) -> float:
    """The best of three reads (a shared machine's noise only ever adds time)."""
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        analyze_note("note.md", Document(text, markdown=markdown, headings=""), 200)
        best = min(best, time.perf_counter() - t)
    return best


def _cycling_list(n: int) -> str:
    """N list items nested up to 100 levels deep, again and again: size linear in N."""
    return "# List\n\n" + "".join(f"{'  ' * (k % 100)}- item {k}\n" for k in range(n))


def growth() -> list[dict[str, object]]:
    count_tokens("warm")
    _read_seconds("warm up the language model", True)
    shapes: list[tuple[str, Callable[[int], str], int, bool]] = [
        ("headings", many_headings, 20_000, True),
        ("list items (nesting cycles to 100 levels)", _cycling_list, 20_000, True),
        ("list levels (size grows as N²)", nested_list, 300, True),
        ("chars without spaces", unbroken, 300_000, False),
    ]
    rows: list[dict[str, object]] = []
    for name, make, n, markdown in shapes:
        texts = make(n), make(10 * n)
        small, large = (_read_seconds(t, markdown) for t in texts)
        rows.append(
            {
                "shape": name,
                "N": n,
                "size_ratio": round(len(texts[1]) / len(texts[0]), 1),
                "seconds_N": round(small, 3),
                "seconds_10N": round(large, 3),
                "ratio": round(large / small, 1),
            }
        )
    return rows


def _table(rows: list[dict[str, object]]) -> str:
    head = list(rows[0])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(r[k]) for k in head) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-growth", action="store_true")
    parser.add_argument("--growth-only", action="store_true")
    args = parser.parse_args(argv)
    files: list[dict[str, object]] = []
    all_in_one: dict[str, object] = {}
    if not args.growth_only:
        with tempfile.TemporaryDirectory() as tmp:
            files = per_file(Path(tmp))
            all_in_one = together(Path(tmp))
        files.sort(key=lambda r: -float(str(r["seconds"])))
        cap = budget.MEMORY_GROWTH_BYTES // 1024**2
        print(f"## Each note alone (slowest first; cap {cap} MB)\n")
        print(_table(files))
        print("\n## All together with 12 good notes, one run\n")
        print(_table([all_in_one]))
    grown = [] if args.skip_growth else growth()
    if grown:
        print("\n## Time for N and 10·N\n")
        print(_table(grown))
    print(json.dumps({"files": files, "together": all_in_one, "growth": grown}))
    return 0


if __name__ == "__main__":
    from tests.bench.page import record

    raise SystemExit(record(main, "bench_crafted"))
