"""Abstention benchmark for the evidence gate.

usage: python tests/bench/bench_gate.py [--per-side 100] [--eval DIR] [SET ...]

For each public set: take questions whose gold notes are removed from a copy of the folder
(unanswerable: the notes no longer hold the answer) and as many whose gold notes stay
(answerable). Report how many unanswerable questions the gate flags and how many answerable
ones it lets through (goal: ≥ 90 % and ≥ 90 %), plus the same rates over a small grid of
thresholds, to show the chosen global thresholds are not tuned to one set.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "eval"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from desktop_app.core.answer import gate  # noqa: E402
from desktop_app.core.api import Quire  # noqa: E402


def split(questions: list[dict], per_side: int, rng: random.Random) -> tuple[set[str], list, list]:
    removed, unanswerable, kept = split_all(questions, per_side, rng)
    return removed, unanswerable, kept[:per_side]


def split_all(
    questions: list[dict], per_side: int, rng: random.Random
) -> tuple[set[str], list, list]:
    """As `split`, with every answerable question in its shuffled order (benches measure the
    first `per_side`; development tools read the ones after them)."""
    by_note: dict[str, list[dict]] = {}
    for q in questions:
        by_note.setdefault(q["path"], []).append(q)
    notes = sorted(by_note)
    rng.shuffle(notes)
    per_side = min(per_side, len(questions) // 2)
    removed: set[str] = set()
    unanswerable: list[dict] = []
    for note in notes:
        if len(unanswerable) >= per_side:
            break
        removed.add(note)
        unanswerable.extend(by_note[note])
    kept = [q for q in questions if q["path"] not in removed]
    rng.shuffle(kept)
    return removed, unanswerable[:per_side], kept


def signals(quire: Quire, question: str) -> tuple[float, float | None, bool, bool]:
    """The two signals, whether the embedder is trusted, and the gate's own two-way decision
    (which adds the per-passage agreement of both signals just short of their bars)."""
    results = quire.search(question, top_k=8)
    if not results:
        return 0.0, None, False, False
    cosines = [r.cosine for r in results if r.cosine is not None]
    trusted = any(r.trusted_dense for r in results)
    answerable = gate.by_retrieval(results).answerable
    return max(r.evidence for r in results), max(cosines) if cosines else None, trusted, answerable


def rates(rows: list[tuple], passes: Callable[[tuple], bool] | None = None) -> tuple[float, float]:
    """Shares of unanswerable rows flagged and answerable rows passed, by the gate's own decision
    or by `passes` (see `by_thresholds`)."""
    passes = passes or (lambda r: r[4])
    unans = [r for r in rows if not r[0]]
    ans = [r for r in rows if r[0]]
    flagged = sum(not passes(r) for r in unans) / max(1, len(unans))
    passed = sum(passes(r) for r in ans) / max(1, len(ans))
    return flagged, passed


def by_thresholds(min_coverage: float, min_cosine: float) -> Callable[[tuple], bool]:
    """The two-threshold gate alone, for the grid."""

    def passes(row: tuple) -> bool:
        _, cov, cos, trusted, _ = row
        return cov >= min_coverage or (trusted and cos is not None and cos >= min_cosine)

    return passes


def indexed_without_gold(
    set_dir: Path, per_side: int, work: Path, embed: bool = True
) -> tuple[Quire, list[dict], list[dict]]:
    """A copy of the set's notes with the unanswerable questions' gold notes removed, indexed;
    returns the facade and the (unanswerable, answerable) questions."""
    questions = [
        json.loads(x) for x in (set_dir / "questions.jsonl").read_text("utf-8").splitlines() if x
    ]
    removed, unanswerable, answerable = split(questions, per_side, random.Random(11))
    notes = work / set_dir.name / "notes"
    shutil.copytree(set_dir / "notes", notes, ignore=shutil.ignore_patterns(".*"))
    for rel in removed:
        (notes / rel).unlink()
    quire = Quire.open(work / set_dir.name / "home")
    quire.index([notes], embed=embed)
    return quire, unanswerable, answerable


def run_set(set_dir: Path, per_side: int, work: Path) -> list[tuple]:
    quire, unanswerable, answerable = indexed_without_gold(set_dir, per_side, work)
    rows = [(False, *signals(quire, q["question"])) for q in unanswerable]
    rows += [(True, *signals(quire, q["question"])) for q in answerable]
    quire.close()
    return rows


def read_arguments(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    """--per-side, --eval and the sets (all four by default); gate_ceiling.py reads the same."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-side", type=int, default=100)
    parser.add_argument("--eval", type=Path, default=EVAL, help="the eval sets' folder")
    parser.add_argument("sets", nargs="*")
    args = parser.parse_args(argv)
    return args, args.sets or ["xquad-en", "xquad-de", "ctkfacts-cs", "til-en"]


def main(argv: list[str] | None = None) -> int:
    args, names = read_arguments(argv)
    all_rows: dict[str, list[tuple]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            all_rows[name] = run_set(args.eval / name, args.per_side, Path(tmp))
    print(
        f"gate thresholds: coverage ≥ {gate.MIN_COVERAGE}, cosine ≥ {gate.MIN_COSINE} "
        f"(cosine only where the embedder knows the language), or both in one passage ≥ "
        f"{gate.CUED_COVERAGE} / {gate.AGREED_COSINE}"
    )
    print("| set | unanswerable flagged | answerable passed | questions |")
    print("|---|---|---|---|")
    for name, rows in all_rows.items():
        flagged, passed = rates(rows)
        n_un = sum(1 for r in rows if not r[0])
        print(f"| {name} | {flagged:.0%} | {passed:.0%} | {n_un} + {len(rows) - n_un} |")
    print("\nthreshold grid (worst set's flagged / passed):")
    for cov in (0.45, 0.5, 0.55, 0.6, 0.65, 0.7):
        cells = []
        for cos in (0.4, 0.45, 0.5, 0.55, 0.6):
            pairs = [rates(rows, by_thresholds(cov, cos)) for rows in all_rows.values()]
            cells.append(f"{min(p[0] for p in pairs):.2f}/{min(p[1] for p in pairs):.2f}")
        print(
            f"  coverage {cov:.2f}: "
            + "  ".join(
                f"cos {c:.2f} {cell}"
                for c, cell in zip((0.4, 0.45, 0.5, 0.55, 0.6), cells, strict=True)
            )
        )
    (Path(tempfile.gettempdir()) / "quire-gate-rows.json").write_text(json.dumps(all_rows))
    return 0


if __name__ == "__main__":
    from tests.bench.page import record

    raise SystemExit(record(main, "bench_gate"))
