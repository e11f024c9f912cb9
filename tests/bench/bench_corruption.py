"""Crash-and-corruption bench (issue 13, case 2): damage a small index at random, then open it
with the CLI and check that Quire reports, rebuilds and ends healthy with every note findable.

    python tests/bench/bench_corruption.py [--runs 100] [--seed 13] [--notes 200]
        [--vector-runs 5] [--til /work/shared/eval/til-en/notes] [--til-vectors]

Each run copies a pristine index into a fresh QUIRE_HOME, damages it one of three ways
(truncated at a random size, random bytes over random pages, random bytes over full-text index
pages), runs one CLI command (status, search, or index, in turn), then checks the file with
`PRAGMA integrity_check` plus FTS5's integrity-check and searches every note's unique word.
Prints counts; with --til also the check-on-open cost and the rebuild time of the til notes next
to a first `quire index` of the same notes (the raw baseline).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from desktop_app import cli  # noqa: E402
from desktop_app.core.api import Quire  # noqa: E402
from desktop_app.core.store.health import LEVELS, check_file, level_on_open  # noqa: E402
from desktop_app.core.store.recovery import last_recovery  # noqa: E402
from tests.support.corruption import page_size, scribble, table_pages, truncate  # noqa: E402

FILES = ("quire.sqlite", "folders.json")
P = ParamSpec("P")
T = TypeVar("T")


def word(n: int) -> str:
    rng = random.Random(n)
    return "q" + "".join(rng.choice("bcdfghjklmnpstvwxz") for _ in range(9))


def make_notes(folder: Path, count: int) -> None:
    folder.mkdir(parents=True)
    for n in range(count):
        (folder / f"n{n:03d}.md").write_text(
            f"# Note {n}\n\nAn ordinary note; its own word is {word(n)}.\n\n"
            + "Some filler about the garden and the weather. " * (n % 7 + 1),
            "utf-8",
        )


def cli_run(home: Path, *args: str) -> tuple[int, str, str]:
    os.environ["QUIRE_HOME"] = str(home)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(args))
    return code, out.getvalue(), err.getvalue()


def corrupt(db: Path, rng: random.Random) -> str:
    size, page = db.stat().st_size, page_size(db)
    kind = rng.choice(["truncate", "pages", "fts"])
    if kind == "truncate":
        truncate(db, rng.randrange(0, size))
    elif kind == "pages":
        for number in rng.sample(range(1, size // page + 1), rng.randint(1, 4)):
            length = rng.randint(16, page)
            scribble(db, number, rng, length, skip=rng.randrange(0, page - length + 1))
    else:
        pages = table_pages(db)
        for number in rng.sample(pages, min(len(pages), rng.randint(1, 3))):
            scribble(db, number, rng, page)
    return kind


def verify(home: Path, notes: Path, count: int) -> tuple[bool, int]:
    """Healthy after the full checks, and every note first for its own word."""
    if not check_file(home / "quire.sqlite", "full").ok:
        return False, 0
    quire = Quire.open(home)
    try:
        found = 0
        for n in range(count):
            results = quire.search(word(n), top_k=1)
            top = results[0] if results else None
            found += top is not None and top.path == f"n{n:03d}.md" and word(n) in top.text
        folders_ok = quire.known_folders() == [notes.resolve()]
    finally:
        quire.close()
    return folders_ok and found == count, found


def bench_runs(args: argparse.Namespace, work: Path, notes: Path, vectors: bool) -> Counter[str]:
    pristine = work / ("pristine-vec" if vectors else "pristine")
    index_args = ["index", str(notes)] + ([] if vectors else ["--no-embed"])
    code, _, err = cli_run(pristine, *index_args)
    assert code == 0, err
    rng = random.Random(args.seed + (1 if vectors else 0))
    runs = args.vector_runs if vectors else args.runs
    counts: Counter[str] = Counter()
    commands = [["status"], ["search", word(1)], index_args]
    for i in range(runs):
        home = work / f"run{i}{'v' if vectors else ''}"
        home.mkdir()
        for name in FILES:
            shutil.copy(pristine / name, home / name)
        kind = corrupt(home / "quire.sqlite", rng)
        counts["kind " + kind] += 1
        command = commands[i % len(commands)]
        try:
            code, _, err = cli_run(home, *command)
        except BaseException as exc:  # a traceback is a failure to count, not to stop on
            counts["raised"] += 1
            print(f"  run {i}: {command[0]} raised {exc!r}", file=sys.stderr)
            continue
        counts["rc " + str(code)] += 1
        reported = "index was damaged" in err
        counts[f"{kind}: {'reported + rebuilt' if reported else 'not detected'}"] += 1
        counts["kept damaged file"] += bool(list(home.glob("quire.sqlite.damaged-*")))
        ok, found = verify(home, notes, args.notes)
        counts["ends healthy, every note found" if ok else "FAILED"] += 1
        if not ok:
            print(f"  run {i}: {command[0]}: {found}/{args.notes} found; {err[-300:]}")
        if vectors and reported:
            counts["vectors kept"] += (last_recovery(home / "quire.sqlite") or {})["vectors_kept"]
        shutil.rmtree(home)
    return counts


def timed(fn: Callable[P, T], *a: P.args, **k: P.kwargs) -> tuple[float, T]:
    start = time.perf_counter()
    result = fn(*a, **k)
    return time.perf_counter() - start, result


def check_costs(label: str, db: Path) -> None:
    print(f"{label}: index file {db.stat().st_size / 1e6:.0f} MB")
    for level in LEVELS:
        seconds = min(timed(check_file, db, level)[0] for _ in range(2))
        print(f"{label}: {level} check: {seconds * 1000:.0f} ms")
    print(f"{label}: opened with the {level_on_open(db)} check")


def big_index(til_db: Path, work: Path, chunks: int) -> Path:
    """The til index with its passages repeated up to `chunks` (SQL copies, so FTS5 tokenizes
    them for real) and as many random unit vectors: a 100k-chunk file in seconds."""
    import numpy as np

    db = work / "big" / "quire.sqlite"
    db.parent.mkdir()
    shutil.copy(til_db, db)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN")
    k = 1
    while conn.execute("SELECT count(*) FROM chunks").fetchone()[0] < chunks:
        off = k * 10_000_000
        conn.execute(
            "INSERT INTO chunks (id, note_id, seq, start, end, line_start, line_end, heading_path,"
            " text) SELECT id + ?, note_id, seq, start, end, line_start, line_end, heading_path,"
            " text FROM chunks WHERE id < 10000000", (off,),
        )  # fmt: skip
        conn.execute(
            "INSERT INTO chunks_fts (rowid, body, prefixes, context) SELECT rowid + ?, body,"
            " prefixes, context FROM chunks_fts WHERE rowid < 10000000", (off,),
        )  # fmt: skip
        k += 1
    total = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    rng = np.random.default_rng(1)
    for i in range(0, total, 5000):
        v = rng.standard_normal((5000, 384)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        conn.executemany("INSERT INTO embeddings (hash, vector) VALUES (?, ?)",
                         [(f"h{i + j}", v[j].tobytes()) for j in range(5000)])  # fmt: skip
    conn.execute("COMMIT")
    conn.close()
    print(f"big: {total} chunks")
    return db


def bench_til(til: Path, work: Path, with_vectors: bool, big_chunks: int) -> None:
    home = work / "til"
    extra = [] if with_vectors else ["--no-embed"]
    first, (code, out, _) = timed(cli_run, home, "index", str(til), *extra)
    print(f"til: first `quire index {' '.join(extra)}` (raw baseline): {first:.1f} s")
    print(f"     {out.strip()}")
    db = home / "quire.sqlite"
    check_costs("til", db)
    if big_chunks:
        check_costs("big", big_index(db, work, big_chunks))
    truncate(db, db.stat().st_size // 2)
    rebuild, (code, _, err) = timed(cli_run, home, "status")
    print(f"til: open a truncated index + rebuild (keyword) via `quire status`: {rebuild:.1f} s "
          f"(rc {code}); {err.strip().splitlines()[-1]}")  # fmt: skip
    if with_vectors:
        again, _ = timed(cli_run, home, "index", str(til))
        print(f"til: then `quire index` (vectors; salvaged ones reused): {again:.1f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--notes", type=int, default=200)
    parser.add_argument("--vector-runs", type=int, default=5)
    parser.add_argument("--til", type=Path)
    parser.add_argument("--til-vectors", action="store_true")
    parser.add_argument("--big-chunks", type=int, default=100_000, help="0 skips the big index")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        notes = work / "notes"
        make_notes(notes, args.notes)
        for vectors in (False, True):
            if vectors and not args.vector_runs:
                continue
            start = time.perf_counter()
            counts = bench_runs(args, work, notes, vectors)
            label = "with vectors" if vectors else "keyword only"
            print(f"{label}: {sum(v for k, v in counts.items() if k.startswith('kind'))} runs "
                  f"in {time.perf_counter() - start:.0f} s")  # fmt: skip
            for key, value in sorted(counts.items()):
                print(f"  {key}: {value}")
        if args.til:
            bench_til(args.til, work, args.til_vectors, args.big_chunks)
    return 0


if __name__ == "__main__":
    from tests.bench.page import record

    raise SystemExit(record(main, "bench_corruption"))
