"""Crash safety: SIGKILL `quire index` / `quire watch` at random moments, then check the database.

usage: python tests/bench/sigkill_crash.py [--kills 100] [--seed 7] [--notes 80] [--max-delay 6]
                                          [--til NOTES_DIR]

Every restart must find: PRAGMA integrity_check ok, the FTS5 integrity-check ok, FTS rows in
step with chunks, every note either fully old or fully new (its hash is one of the versions
written to disk and its chunks are exact spans of that version), and a resumed run that embeds
only what was still missing. Prints one line per kill and a summary; exit 1 on any failure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIL = ROOT.parent / "shared" / "eval" / "til-en" / "notes"
sys.path.insert(0, str(ROOT))


def quire(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "QUIRE_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "desktop_app", *args],
        env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip


class Vault:
    """A notes folder whose every written version is remembered."""

    def __init__(self, folder: Path, rng: random.Random, size: int, til: Path = TIL) -> None:
        self.folder, self.rng = folder, rng
        self.versions: dict[str, dict[str, str]] = {}  # rel -> sha1 -> text
        sources = sorted(p for p in til.rglob("*.md") if p.name != "README.md")
        for src in rng.sample(sources, size):
            self.write(f"{src.parent.name}/{src.name}", src.read_text("utf-8"))

    def write(self, rel: str, text: str) -> None:
        path = self.folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8", newline="")
        digest = hashlib.sha1(text.encode("utf-8")).hexdigest()
        self.versions.setdefault(rel, {})[digest] = text

    def mutate(self, step: int) -> None:
        rels = [r for r in self.versions if (self.folder / r).exists()]
        for rel in self.rng.sample(rels, min(4, len(rels))):
            text = (self.folder / rel).read_text("utf-8")
            self.write(rel, text + f"\n\nRevision {step}: {self.rng.random():.6f} more words.\n")
        if self.rng.random() < 0.3 and rels:
            (self.folder / self.rng.choice(rels)).unlink()
        if self.rng.random() < 0.3:
            self.write(f"new/note-{step}.md", f"# Note {step}\n\nFresh note number {step}.\n")


def check(db_path: Path, vault: Vault, every_chunk_has_parts: bool = False) -> list[str]:
    """Problems in the database; embedding parts are planned by the embedding pass, so they are
    only required after a finished run (but must lie inside their chunk whenever present). A
    file without tables is the first run killed between creating the file and committing its
    schema (an empty index, set up by the next run); after a finished run it is a problem."""
    problems = []
    conn = sqlite3.connect(db_path)
    try:
        if conn.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            problems.append("integrity_check failed")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "chunks" not in tables:
            return problems + (["no tables after a finished run"] if every_chunk_has_parts else [])
        try:
            conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')")
        except sqlite3.DatabaseError as exc:
            problems.append(f"fts integrity-check: {exc}")
        chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        fts = conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
        if chunks != fts:
            problems.append(f"fts rows {fts} != chunks {chunks}")
        notes = conn.execute(
            "SELECT id, path, content_hash FROM notes WHERE status = 'indexed'"
        ).fetchall()
        for note_id, rel, digest in notes:
            text = vault.versions.get(rel, {}).get(digest)
            if text is None:
                problems.append(f"{rel}: hash matches no version written")
                continue
            rows = conn.execute(
                "SELECT start, end, text, (SELECT count(*) FROM chunk_parts p"
                " WHERE p.chunk_id = c.id), (SELECT count(*) FROM chunk_parts p"
                " WHERE p.chunk_id = c.id AND (p.start < c.start OR p.end > c.end))"
                " FROM chunks c WHERE note_id = ? ORDER BY seq",
                (note_id,),
            ).fetchall()  # fmt: skip
            if not rows or any(text[a:b] != t for a, b, t, _, _ in rows):
                problems.append(f"{rel}: chunks are not exact spans of one version")
            if any(outside for *_, outside in rows):
                problems.append(f"{rel}: embedding parts outside their chunk")
            if every_chunk_has_parts and any(parts < 1 for _, _, _, parts, _ in rows):
                problems.append(f"{rel}: chunks without embedding parts")
    finally:
        conn.close()
    return problems


def pending_parts(db_path: Path) -> int:
    """Distinct part texts without a vector, once every chunk has its parts planned (with the
    embedder's real tokenizer, as the embedding pass does)."""
    from desktop_app.core.api import Quire
    from desktop_app.core.ingest import embed_pass
    from desktop_app.core.ingest.note_analysis import PartPlanner
    from desktop_app.core.store import vectors

    quire = Quire.open(db_path.parent)
    models = [(quire.embedder, vectors.MAIN), (quire.searcher.companion, vectors.COMPANION)]
    spaces = [(model, space) for model, space in models if model is not None]
    for model, space in spaces:
        planner = PartPlanner(model.token_offsets, model.max_tokens)
        embed_pass.plan_parts(quire.database, planner, space=space)
    quire.close()
    conn = sqlite3.connect(db_path)
    try:
        return sum(
            conn.execute(
                f"SELECT count(DISTINCT embed_hash) FROM {space.parts} p WHERE NOT EXISTS"
                f" (SELECT 1 FROM {space.vectors} e WHERE e.hash = p.embed_hash)"
            ).fetchone()[0]
            for _, space in spaces
        )
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--notes", type=int, default=80)
    parser.add_argument("--max-delay", type=float, default=6.0, help="seconds before a kill")
    parser.add_argument("--til", type=Path, default=TIL, help="the notes to sample")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        home, folder = Path(tmp) / "home", Path(tmp) / "vault"
        vault = Vault(folder, rng, args.notes, args.til)
        db_path = home / "quire.sqlite"
        for step in range(1, args.kills + 1):
            vault.mutate(step)
            mode = "watch" if step % 2 == 0 else "index"
            proc = quire(home, mode, str(folder))
            delay = rng.uniform(0.2, args.max_delay)
            if mode == "watch":  # keep editing while the watcher runs
                end = time.monotonic() + delay
                while time.monotonic() < end:
                    time.sleep(min(0.4, max(0.0, end - time.monotonic())))
                    vault.mutate(step * 1000 + int(time.monotonic() * 10) % 1000)
            else:
                time.sleep(delay)
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
            problems = check(db_path, vault) if db_path.exists() else []
            failures += bool(problems)
            print(
                f"kill {step:3d} ({mode}, {delay:4.1f} s): "
                + ("ok" if not problems else "; ".join(problems[:3])),
                flush=True,
            )
        quire(home, "index", "--no-embed", str(folder)).communicate(timeout=1800)
        before = pending_parts(db_path)  # what the crashes left to embed, after catching up
        final = quire(home, "index", str(folder))
        out, _ = final.communicate(timeout=1800)
        embedded = sum(
            int(part.split()[0])
            for line in out.splitlines()
            for part in line.split(", ")
            if part.endswith(" embedded")
        )
        problems = check(db_path, vault, every_chunk_has_parts=True)
        conn = sqlite3.connect(db_path)
        stale = [
            rel
            for rel, digest in conn.execute(
                "SELECT path, content_hash FROM notes WHERE status = 'indexed'"
            )
            if hashlib.sha1((folder / rel).read_bytes()).hexdigest() != digest
        ]
        conn.close()
        print(json.dumps({
            "kills": args.kills, "runs_with_problems": failures,
            "final_problems": problems, "final_stale_notes": stale,
            "pending_parts_before_final_run": before, "embedded_by_final_run": embedded,
        }))  # fmt: skip
        ok = failures == 0 and not problems and not stale and embedded == before
        print(
            f"{args.kills - failures}/{args.kills} restarts consistent; final run embedded "
            f"{embedded} of {before} missing parts" + ("" if ok else "  FAILED")
        )
        return 0 if ok else 1


if __name__ == "__main__":
    from tests.bench.page import record

    raise SystemExit(record(main, "sigkill_crash"))
