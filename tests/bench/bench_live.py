"""Live indexing benchmark on a 10k-note vault (the til notes replicated, each copy retitled so
every passage is a distinct text to embed).

usage: python tests/bench/bench_live.py [--notes 10000] [--edits 40] [--til NOTES_DIR]
                                        [--baseline REV] [--keyword-only]

Prints: time until a first open is keyword-searchable and until every vector exists (while
`quire watch` runs; goal ≤ 5 s keyword-searchable for 10,000 notes), p50/p95 from saving an
edit to the new text being returned by search (debounce included; goal p95 ≤ 1.5 s), and how
many passages were re-embedded for the edits compared with how many passages the edits actually
changed. With `--baseline REV`, the first open is measured first with Quire as of REV (a git
worktree of it, run by the same interpreter and models) on a copy of the same vault. Each
copy's modules are compiled to bytecode first, as an installed Quire has them.
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIL = ROOT.parent / "shared" / "eval" / "til-en" / "notes"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import sqlite_utils  # noqa: E402

from desktop_app.core.store import vectors  # noqa: E402
from desktop_app.core.store.status import waits_for_vectors  # noqa: E402


def build_vault(folder: Path, count: int, til: Path = TIL) -> list[Path]:
    sources = sorted(p for p in til.rglob("*.md") if p.name != "README.md")
    notes = []
    for i in range(count):
        src = sources[i % len(sources)]
        copy = i // len(sources)
        rel = Path(f"copy{copy:02d}") / src.relative_to(til)
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        title = src.stem.replace("-", " ")
        path.write_text(
            f"---\ntitle: {title} (copy {copy})\n---\n" + src.read_text("utf-8"), "utf-8"
        )
        notes.append(path)
    return notes


def lexical_hit(db: Path, word: str) -> list[str]:
    import sqlite_utils

    from desktop_app.core.retrieval import lexical

    conn = sqlite3.connect(db, timeout=30)
    try:
        terms = lexical.analyze_query(word, "en")
        hits = lexical.search_lexical(sqlite_utils.Database(conn), terms, 5)
        ids = [h.chunk_id for h in hits]
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        return [r[0] for r in conn.execute(
            f"SELECT n.path FROM chunks c JOIN notes n ON n.id = c.note_id WHERE c.id IN ({marks})",
            ids,
        )]  # fmt: skip
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def scalar(db: Path, sql: str) -> int:
    conn = sqlite3.connect(db, timeout=30)
    try:
        return int(conn.execute(sql).fetchone()[0])
    except sqlite3.OperationalError:
        return -1
    finally:
        conn.close()


def pending(db: Path) -> int:
    """Passages waiting for vectors (of the index's model and of its companion)."""
    try:
        database = sqlite_utils.Database(sqlite3.connect(db, timeout=30))
        try:
            sql = f"SELECT count(*) FROM chunks c WHERE {waits_for_vectors(database)}"
            return int(database.execute(sql).fetchone()[0])
        finally:
            database.close()
    except sqlite3.OperationalError:
        return -1


def part_hashes(db: Path, rel: str) -> set[str]:
    """The note's part texts, by vector space (the model's and its companion's)."""
    conn = sqlite3.connect(db, timeout=30)
    try:
        found: set[str] = set()
        for space in (vectors.MAIN, vectors.COMPANION):
            rows = conn.execute(
                f"SELECT p.embed_hash FROM {space.parts} p JOIN chunks c ON c.id = p.chunk_id"
                " JOIN notes n ON n.id = c.note_id WHERE n.path = ?", (rel,),
            )  # fmt: skip
            found |= {f"{space.parts}:{row[0]}" for row in rows}
        return found
    finally:
        conn.close()


def compile_bytecode(root: Path) -> None:
    """Compile the app's modules first, as an installed Quire has them (a wheel's install and
    the installers compile them): with PYTHONDONTWRITEBYTECODE set, as on this machine, a
    source checkout would otherwise compile every module at every start."""
    compileall.compile_dir(str(root / "desktop_app"), quiet=1)


class FirstOpen:
    """`quire watch` of a copy of Quire (its root folder) on a vault it never saw: when the
    vault was keyword-searchable (it says "watching") and when every vector was there."""

    def __init__(
        self, root: Path, folder: Path, home: Path, vectors: bool = True, trace: Path | None = None
    ) -> None:
        self.lines: list[str] = []
        compile_bytecode(root)
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "desktop_app", "watch", str(folder)],
            env={**os.environ, "QUIRE_HOME": str(home), "PYTHONPATH": str(root)}, cwd=root,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        watching = threading.Event()
        assert self.proc.stdout is not None and self.proc.stderr is not None  # both piped
        stdout, stderr = self.proc.stdout, self.proc.stderr

        def read_stderr() -> None:
            for line in stderr:
                if line.startswith("watching"):
                    watching.set()

        def read_stdout() -> None:
            for line in stdout:
                self.lines.append(line.strip())

        self.readers = [threading.Thread(target=t, daemon=True) for t in (read_stderr, read_stdout)]
        for reader in self.readers:
            reader.start()
        watching.wait()
        self.keyword_ready = time.monotonic() - self.started
        self.vectors_ready: float | None = None
        if vectors:
            while (waiting := pending(home / "quire.sqlite")) != 0:
                if trace is not None:  # how the pass goes: steady, or slower as it goes on
                    with trace.open("a") as out:
                        out.write(f"{root.name} {time.monotonic() - self.started:.1f} {waiting}\n")
                time.sleep(1.0)
            self.vectors_ready = time.monotonic() - self.started

    def __str__(self) -> str:
        said = f"keyword-searchable after {self.keyword_ready:6.1f} s (goal ≤ 5 s at 10,000 notes)"
        if self.vectors_ready is None:
            return said
        return f"{said}, all vectors after {self.vectors_ready:7.1f} s"

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)
        for reader in self.readers:
            reader.join()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def baseline(
    rev: str, folder: Path, tmp: Path, vectors: bool, trace: Path | None = None
) -> FirstOpen:
    """The first open by Quire as of `rev`, checked out beside the run and removed after."""
    where = tmp / f"quire-{rev}"
    git = ["git", "-C", str(ROOT), "worktree"]
    subprocess.run([*git, "add", "--detach", str(where), rev], check=True, capture_output=True)
    try:
        run = FirstOpen(where, folder, tmp / "home-base", vectors, trace)
        run.stop()
        return run
    finally:
        subprocess.run([*git, "remove", "--force", str(where)], check=True, capture_output=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--til", type=Path, default=TIL, help="the notes to replicate")
    parser.add_argument("--baseline", help="a git revision to measure the first open of, too")
    parser.add_argument("--keyword-only", action="store_true", help="the first open's keywords")
    parser.add_argument(
        "--baseline-last",
        action="store_true",
        help="measure the baseline after this code (the edits are not measured then)",
    )
    parser.add_argument("--trace", type=Path, help="append (run, seconds, pending) each second")
    args = parser.parse_args(argv)
    rng = random.Random(5)
    with tempfile.TemporaryDirectory() as tmp:
        folder, home = Path(tmp) / "vault", Path(tmp) / "home"
        notes = build_vault(folder, args.notes, args.til)
        db = home / "quire.sqlite"
        print(f"vault: {len(notes)} notes")
        vectors = not args.keyword_only
        if args.baseline and not args.baseline_last:
            base = baseline(args.baseline, folder, Path(tmp), vectors, args.trace)
            print(f"  as of {args.baseline}: {base}")
        run = FirstOpen(ROOT, folder, home, vectors, args.trace)
        print(f"  now: {run}")
        if args.baseline and args.baseline_last:
            run.stop()
            base = baseline(args.baseline, folder, Path(tmp), vectors, args.trace)
            print(f"  as of {args.baseline} (measured after): {base}")
            return 0
        print(f"  passages: {scalar(db, 'SELECT count(*) FROM chunks')}")
        if args.keyword_only:
            run.stop()
            return 0
        lines = run.lines
        embedded_before = sum(int(x.split()[1]) for x in lines if x.startswith("embedded"))
        latencies, changed = [], 0
        for i in range(args.edits):
            path = rng.choice(notes)
            rel = path.relative_to(folder).as_posix()
            before = part_hashes(db, rel)
            token = f"zqxedit{i}marker"
            with path.open("a", encoding="utf-8") as f:
                f.write(f"\n\nEdited during the benchmark: {token}.\n")
            saved = time.monotonic()
            while rel not in lexical_hit(db, token):
                time.sleep(0.01)
            latencies.append(time.monotonic() - saved)
            while pending(db) != 0:
                time.sleep(0.05)
            changed += len(part_hashes(db, rel) - before)
            time.sleep(rng.uniform(0.1, 0.5))
        time.sleep(1.0)
        embedded = (
            sum(int(x.split()[1]) for x in lines if x.startswith("embedded")) - embedded_before
        )
        run.stop()
        if not latencies:  # --edits 0: the first open only
            return 0
        ms = np.array(latencies) * 1000
        print(
            f"save → searchable over {len(ms)} edits: p50 {np.percentile(ms, 50):.0f} ms, "
            f"p95 {np.percentile(ms, 95):.0f} ms, max {ms.max():.0f} ms (goal p95 ≤ 1500 ms)"
        )
        print(f"re-embedded passages: {embedded}; passages the edits changed: {changed}")
        return 0 if embedded == changed else 1


if __name__ == "__main__":
    from tests.bench.page import record

    raise SystemExit(record(main, "bench_live"))
