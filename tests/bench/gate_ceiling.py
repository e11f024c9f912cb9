"""How well could any threshold on the gate's signals separate answerable from unanswerable?

usage: python tests/bench/gate_ceiling.py [--per-side 100] [--eval DIR] [SET ...]

Same split as bench_gate.py (gold notes removed → unanswerable). For each set, prints the best
balanced rates (flagged, passed) that a threshold tuned *on that set* could reach with each
signal: the gate's passage coverage and cosine, a compound- and prefix-aware coverage, and a
sentence-level coverage. This is an upper bound for those signals, not a tuned gate.
"""

from __future__ import annotations

import math
import os
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from desktop_app.core.retrieval import analyzer  # noqa: E402
from desktop_app.core.retrieval.search import SearchResult  # noqa: E402
from tests.bench.bench_gate import indexed_without_gold, read_arguments  # noqa: E402

_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")
Row = dict[str, Any]


def words(text: str) -> list[str]:
    return [analyzer.fold(w) for w in analyzer.words(text)]


def collect(set_dir: Path, work: Path, per_side: int) -> tuple[list[Row], Counter[str], int]:
    quire, unanswerable, answerable = indexed_without_gold(set_dir, per_side, work)
    texts = [r[0] for r in quire.database.query("SELECT text FROM chunks")]
    df = Counter(p for t in texts for p in {w[:5] for w in words(t)})
    rows = []
    for label, items in ((False, unanswerable), (True, answerable)):
        for item in items:
            results = quire.search(item["question"], top_k=8)
            rows.append({"label": label, "question": item["question"], "results": results})
    quire.close()
    return rows, df, len(texts)


def best_balance(rows: list[Row], signal: Callable[[Row], float]) -> tuple[float, float]:
    values = [(signal(r), r["label"]) for r in rows]
    n_un = sum(not label for _, label in values) or 1
    n_an = sum(label for _, label in values) or 1
    best = (0.0, 0.0)
    for threshold in sorted({v for v, _ in values}):
        flagged = sum(v < threshold for v, label in values if not label) / n_un
        passed = sum(v >= threshold for v, label in values if label) / n_an
        if min(flagged, passed) > min(best):
            best = (flagged, passed)
    return best


def idf_coverage(
    df: Counter[str], total: int, windows: Callable[[SearchResult], list[str]]
) -> Callable[[Row], float]:
    def signal(row: Row) -> float:
        query = [w for w in dict.fromkeys(words(row["question"])) if len(w) >= 3]
        weights = {w: math.log(1 + total / (1 + df.get(w[:5], 0))) for w in query}
        mass = sum(weights.values()) or 1.0
        best = 0.0
        for result in row["results"]:
            context = " ".join([result.title, *result.heading_path])
            for window in windows(result):
                present = words(f"{window} {context}")
                prefixes = {w[:5] for w in present}
                found = 0.0
                for w in query:
                    hit = w[:5] in prefixes
                    if not hit and len(w) >= 8:  # German compounds: "Zugfahrt" ~ "Zug … Fahrt"
                        hit = any(len(p) >= 4 and (w.startswith(p) or w.endswith(p))
                                  for p in present)  # fmt: skip
                    found += weights[w] if hit else 0.0
                best = max(best, found / mass)
        return best

    return signal


def main(argv: list[str] | None = None) -> int:
    args, names = read_arguments(argv)
    print("| set | passage coverage | cosine | compound-aware coverage | sentence coverage |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            rows, df, total = collect(args.eval / name, Path(tmp), args.per_side)
            signals: list[Callable[[Row], float]] = [
                lambda r: max((x.coverage for x in r["results"]), default=0.0),
                lambda r: max((x.cosine or 0.0 for x in r["results"]), default=0.0),
                idf_coverage(df, total, lambda res: [res.text]),
                idf_coverage(df, total, lambda res: _SENTENCE.findall(res.text) or [""]),
            ]
            cells = [best_balance(rows, s) for s in signals]
            print(f"| {name} | " + " | ".join(f"{f:.0%} / {p:.0%}" for f, p in cells) + " |")
    return 0


if __name__ == "__main__":
    from tests.bench.page import record

    raise SystemExit(record(main, "gate_ceiling"))
