"""Crafted notes benchmark (issue 36): what one hostile note costs the indexer, beside a raw
baseline, and how that cost grows with the note.

usage: python tests/bench/bench_crafted.py [--skip-growth | --growth-only] [--page FILE]

The corpus is tests/support/crafted.py's `write_corpus`: YAML alias bomb, YAML nested deep (flow
and block style) and too large, 200,000 headings, 3 MB without white space, a 2 MB data: URI,
3,000 nested list levels, deep and wide tables, deep block quotes, very long lines, 100,000
links, 2,000 small notes and 12 good ones.
1. Each hostile note indexed alone with `quire index --no-embed`'s code in a fresh process:
   seconds, the process's peak resident memory growth, and the note's status; beside it the raw
   baseline in the same kind of process (read the file, `str.split`).
   goal: every note has a status, growth < the per-note cap, time < its budget
2. All of it in one `quire index --no-embed` run (Quire.index, as the command runs it, in a
   fresh process): it finishes, the peak resident memory, every good note found by its word,
   each hostile file's status and reason, the slowest ten files with their time and budget.
   goal: < 1.5 GB, every good note found, every file indexed or with a reason, none over budget
3. Growth: the time to index a note of N and 10·N headings / list items / characters without
   spaces (a folder of that one note, `index_folder`, keyword index, cold stem caches), and
   the ratio; CPU seconds of the process (a shared machine's load does not leak in) and wall
   seconds, best of three each.                                                 goal: ≤ 12×
Prints Markdown tables, then one JSON line; --page docs/benchmarks.md also writes the tables
into that page's bench_crafted section.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(ROOT))

from desktop_app.core.ingest import budget, indexer  # noqa: E402
from desktop_app.core.retrieval import analyzer  # noqa: E402
from desktop_app.core.store.db import Database  # noqa: E402
from desktop_app.core.tokens import count_tokens  # noqa: E402
from tests.support.crafted import (  # noqa: E402
    GOOD_NOTES,
    many_headings,
    nested_list,
    unbroken,
    write_corpus,
)

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
for path in Path(sys.argv[1]).rglob("*"):
    if path.is_file():
        words += len(path.read_text(encoding="utf-8", errors="replace").split())
seconds = time.perf_counter() - t
print(seconds, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024, sep="\\t")
"""

# `quire index --no-embed` as cmd_index runs it (Quire.index), with a progress callback that
# notes when each file starts: a file's time runs to the next one's start (a commit included).
_TOGETHER = """
import json, os, resource, sys, time
from pathlib import Path
from desktop_app.core.api import Quire
folder, home, good = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
starts = []
def progress(p):
    if p.phase == "index":
        starts.append((time.perf_counter(), p.detail))
quire = Quire.open(home)
t = time.perf_counter()
reports = quire.index([folder], progress=progress, embed=False)
end = time.perf_counter()
times = [(rel, b[0] - a[0]) for (a, b), rel in zip(zip(starts, starts[1:] + [(end, "")]),
                                                  (d for _, d in starts))]
found = {}
for n in range(good):
    paths = [r.path for r in quire.search(f"goodword{n}", top_k=3)]
    found[f"good{n}.md"] = bool(paths) and paths[0] == f"good{n}.md"
status = quire.status(check_integrity=False)
files = {f.path: (f.status.value, f.reason or "") for f in status.files}
quire.close()
print(json.dumps({
    "seconds": end - t,
    "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    "indexed": sum(r.report.indexed for r in reports),
    "problems": [(p.path, p.status.value, p.reason) for r in reports for p in r.report.problems],
    "times": times, "found": found, "files": files,
}))
"""


def _run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    return done.stdout.strip()


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def together(work: Path) -> tuple[dict[str, object], list[dict[str, object]]]:
    """The whole corpus indexed in one run; the summary and the slowest ten files."""
    folder = work / "together" / "notes"
    hostile = write_corpus(folder)
    out = json.loads(_run(_TOGETHER, str(folder), str(work / "together" / "home"), str(GOOD_NOTES)))
    files: dict[str, list[str]] = out["files"]
    sizes = {p.relative_to(folder).as_posix(): p.stat().st_size for p in folder.rglob("*.*")}
    over = [rel for rel, sec in out["times"] if sec > budget.seconds_for(sizes.get(rel, 0))]
    unexplained = [  # a hostile file not indexed, and without a reason
        name
        for name, path in hostile.items()
        if path.is_file()
        and (name not in files or (files[name][0] in ("failed", "skipped") and not files[name][1]))
    ]
    summary = {
        "seconds": round(out["seconds"], 1),
        "peak_rss_mb": round(out["peak_rss"] / 1024**2),
        "files": len(files),
        "indexed": out["indexed"],
        "good_found": f"{sum(out['found'].values())} of {GOOD_NOTES}",
        "hostile_without_reason": len(unexplained),
        "over_budget": len(over),
    }  # fmt: skip
    slowest = sorted(out["times"], key=lambda item: -item[1])[:10]
    rows = [
        {
            "file": rel,
            "mb": round(sizes.get(rel, 0) / 1e6, 2),
            "seconds": round(sec, 2),
            "budget_s": round(budget.seconds_for(sizes.get(rel, 0))),
            "status": ": ".join(x for x in files.get(rel, ["?", ""]) if x)[:90],
        }
        for rel, sec in slowest
    ]
    return summary, rows


def per_file(work: Path) -> list[dict[str, object]]:
    source = work / "source"
    files = write_corpus(source)
    rows: list[dict[str, object]] = []
    for n, (name, path) in enumerate(files.items()):
        alone = work / f"alone{n}" / "notes"
        alone.parent.mkdir()
        if path.is_dir():
            path.rename(alone)
        else:
            alone.mkdir()
            path.rename(alone / path.name)
        seconds, grown, indexed, status = _run(_INDEX_ONE, str(alone)).split("\t")
        raw_seconds, raw_grown = _run(_RAW, str(alone)).split("\t")
        size = _size(alone)
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
                "status": status[:120],
            }
        )
    return rows


def _index_seconds(work: Path, name: str, text: str) -> tuple[float, float]:
    """The best of three keyword indexings of a folder holding only this note, each into a
    fresh database and from cold stem caches (a note of N headings fits the cache and one of
    10·N does not: warm runs of the small one only would skew the ratio): (CPU seconds of the
    process, wall seconds)."""
    folder = work / "growth"
    best_cpu = best_wall = float("inf")
    for n in range(3):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        (folder / name).write_text(text, "utf-8")
        database = Database(work / f"growth{n}.sqlite")
        analyzer.clear_caches()
        cpu, wall = time.process_time(), time.perf_counter()
        report = indexer.index_folder(database, folder, indexer.IndexOptions())
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
        database.close()
        assert report.indexed == 1, report.problems
    return best_cpu, best_wall


def _cycling_list(n: int) -> str:
    """N list items nested up to 100 levels deep, again and again: size linear in N."""
    return "# List\n\n" + "".join(f"{'  ' * (k % 100)}- item {k}\n" for k in range(n))


def growth(work: Path) -> list[dict[str, object]]:
    count_tokens("warm")
    analyzer.detect_language("warm up the language model")
    _index_seconds(work, "warm.md", "# Warm\n\nwarm up the indexer")
    shapes: list[tuple[str, Callable[[int], str], int, str]] = [
        ("headings", many_headings, 20_000, "n.md"),
        ("list items (nesting cycles to 100 levels)", _cycling_list, 10_000, "n.md"),
        ("chars without spaces", unbroken, 300_000, "n.txt"),
        ("list levels (size grows as N²)", nested_list, 300, "n.md"),
    ]
    rows: list[dict[str, object]] = []
    for shape, make, n, name in shapes:
        texts = make(n), make(10 * n)
        (cpu_n, wall_n), (cpu_10n, wall_10n) = (_index_seconds(work, name, t) for t in texts)
        rows.append(
            {
                "shape": shape,
                "N": n,
                "size_ratio": round(len(texts[1]) / len(texts[0]), 1),
                "cpu_s_N": round(cpu_n, 3),
                "cpu_s_10N": round(cpu_10n, 3),
                "ratio": round(cpu_10n / cpu_n, 1),
                "wall_s_N": round(wall_n, 3),
                "wall_s_10N": round(wall_10n, 3),
                "wall_ratio": round(wall_10n / wall_n, 1),
            }
        )
    return rows


def _table(rows: list[dict[str, object]]) -> str:
    head = list(rows[0])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(r[k]) for k in head) + " |" for r in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-growth", action="store_true")
    parser.add_argument("--growth-only", action="store_true")
    parser.add_argument("--page", type=Path, help="write the tables into this benchmarks page")
    args = parser.parse_args()
    files: list[dict[str, object]] = []
    summary: dict[str, object] = {}
    slowest: list[dict[str, object]] = []
    grown: list[dict[str, object]] = []
    sections: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        if not args.growth_only:
            files = per_file(Path(tmp))
            summary, slowest = together(Path(tmp))
            files.sort(key=lambda r: -float(str(r["seconds"])))
            cap = budget.MEMORY_GROWTH_BYTES // 1024**2
            sections += [
                f"## Each hostile note alone (slowest first; memory cap {cap} MB)\n\n"
                + _table(files),
                "## All of it in one `quire index --no-embed` run\n\n" + _table([summary]),
                "Slowest ten files of that run\n\n" + _table(slowest),
            ]
        if not args.skip_growth:
            grown = growth(Path(tmp))
            sections.append("## Time to index a note of N and 10·N\n\n" + _table(grown))
    text = "\n\n".join(sections)
    print(text)
    if args.page:
        from tests.bench.page import write_section

        flags = " ".join(a for a in sys.argv[1:] if a.startswith("--") and a != "--page")
        command = f"python tests/bench/bench_crafted.py {flags} --page {args.page}".replace(
            "  ", " "
        )
        write_section(args.page, "bench_crafted", text, command)
    print(json.dumps({"files": files, "together": summary, "slowest": slowest, "growth": grown}))


if __name__ == "__main__":
    main()
