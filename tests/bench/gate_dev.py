"""Development harness for the three-way gate: outcomes on XQuAD questions the answers bench
never measures (answerable: positions `--from`..`--to` of its shuffled list; unanswerable: the
questions of the removed notes after the bench's 100) and on the sample notes, re-using the
indexes tests/bench/evidence_dev.py built under `--cache`.

usage: python tests/bench/gate_dev.py [--from 100] [--to 400] [--cache DIR] [--eval DIR] [SET ...]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "eval"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from desktop_app.core.answer.decision import decide  # noqa: E402
from desktop_app.core.api import Quire  # noqa: E402
from desktop_app.core.events import Outcome  # noqa: E402
from desktop_app.paths import sample_notes  # noqa: E402
from tests.bench.bench_gate import split_all  # noqa: E402

SAMPLE_QUESTIONS = ROOT / "tests" / "data" / "sample_questions.jsonl"


def outcomes(quire: Quire, questions: list[dict]) -> Counter[str]:
    counts: Counter[str] = Counter()
    retrieval = quire.answers.retrieval()
    for q in questions:
        results = quire.search(q["question"], top_k=8)
        decision, _, _ = decide(retrieval, retrieval.read(q["question"]), results)
        counts[decision.outcome] += 1
    return counts


def shares(counts: Counter[str]) -> str:
    n = sum(counts.values()) or 1
    return " ".join(
        f"{k} {counts[k] / n:.2f}" for k in (Outcome.ANSWERED, Outcome.WEAK, Outcome.ABSENT)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--from", dest="lo", type=int, default=100)
    parser.add_argument("--to", dest="hi", type=int, default=400)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/quire-evidence-dev"))
    parser.add_argument("--eval", type=Path, default=EVAL, help="the eval sets' folder")
    parser.add_argument("sets", nargs="*", default=["sample", "xquad-en", "xquad-de"])
    args = parser.parse_args(argv)
    for name in args.sets:
        if name == "sample":
            with tempfile.TemporaryDirectory() as tmp:
                quire = Quire.open(Path(tmp))
                quire.index([sample_notes()])
                lines = SAMPLE_QUESTIONS.read_text("utf-8").splitlines()
                print("sample answerable:", shares(outcomes(quire, [json.loads(x) for x in lines])))
                quire.close()
            continue
        lines = (args.eval / name / "questions.jsonl").read_text("utf-8").splitlines()
        questions = [json.loads(x) for x in lines if x]
        removed, _, kept = split_all(questions, 100, random.Random(11))
        unanswerable = [q for q in questions if q["path"] in removed]
        quire = Quire.open(args.cache / "work" / name / "home")
        print(f"{name} answerable [{args.lo}:{args.hi}]:",
              shares(outcomes(quire, kept[args.lo : args.hi])))  # fmt: skip
        print(
            f"{name} unanswerable (all {len(unanswerable)}):", shares(outcomes(quire, unanswerable))
        )
        quire.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
