"""Retrieval ablation on the public eval sets: lexical only, dense only, naive RRF, Quire's fusion.

usage: python tests/bench/retrieval_ablation.py [--work DIR] [SET_DIR ...]
       (default: all of ../shared/eval)

Each set is indexed into its own QUIRE_HOME (kept under `--work`/<set>, default
/tmp/quire-ablation, reused on later runs), then every question is answered by each method and
scored like score.py.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from desktop_app.core import evaluate  # noqa: E402
from desktop_app.core.api import Quire  # noqa: E402
from desktop_app.core.retrieval import fusion, lexical  # noqa: E402
from desktop_app.core.store import chunks  # noqa: E402

DEFAULT_SETS = ROOT.parent / "shared" / "eval"


def spans(quire: Quire, chunk_ids: list[int]) -> list[dict[str, Any]]:
    with quire.database.read() as db:
        rows = chunks.chunk_details(db, chunk_ids)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for cid in chunk_ids:
        row = rows.get(cid)
        if row and row.text not in seen:
            seen.add(row.text)
            out.append({"path": row.path, "start": row.start, "end": row.end})
    return out[:10]


def run_set(set_dir: Path, work: Path) -> dict[str, dict[str, float]]:
    home = work / set_dir.name
    home.mkdir(parents=True, exist_ok=True)
    quire = Quire.open(home)
    quire.index([set_dir / "notes"])
    searcher = quire.searcher
    questions = evaluate.load_questions(set_dir / "questions.jsonl")
    ranks: dict[str, list[int | None]] = {m: [] for m in ("lexical", "dense", "rrf", "quire")}
    started = time.perf_counter()
    for q in questions:
        terms = lexical.analyze_query(q["question"], searcher.query_language(q["question"]))
        with quire.database.read() as db:
            lex = lexical.search_lexical(db, terms, 60)
            searcher.vectors.refresh(db)
        dense = searcher.vectors.search(quire.embedder.encode([q["question"]])[0], 60)
        methods = {
            "lexical": [h.chunk_id for h in lex],
            "dense": [h.chunk_id for h in dense],
            "rrf": [f.chunk_id for f in fusion.fuse(lex, dense, fusion.Weights(1, 1))],
            "quire": [r.chunk_id for r in quire.search(q["question"], top_k=10)],
        }
        for name, ids in methods.items():
            ranks[name].append(evaluate.first_hit(spans(quire, ids[:30]), q))
    quire.close()
    print(f"# {set_dir.name}: {len(questions)} questions, {time.perf_counter() - started:.0f} s")
    return {name: evaluate.score(r) for name, r in ranks.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", type=Path, default=Path("/tmp/quire-ablation"))
    parser.add_argument("sets", nargs="*", type=Path)
    args = parser.parse_args(argv)
    sets = args.sets or sorted(p for p in DEFAULT_SETS.iterdir() if p.is_dir())
    print("| set | lexical Hit@5 / MRR | dense | naive RRF | Quire fusion |")
    print("|---|---|---|---|---|")
    for set_dir in sets:
        m = run_set(set_dir, args.work)
        cells = [
            f"{m[k]['Hit@5']:.3f} / {m[k]['MRR@10']:.3f}"
            for k in ("lexical", "dense", "rrf", "quire")
        ]
        print(f"| {set_dir.name} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    from tests.bench.page import record

    raise SystemExit(record(main, "retrieval_ablation"))
