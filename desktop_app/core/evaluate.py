"""Retrieval evaluation on a set folder (notes/ + questions.jsonl with gold character spans).

Scoring follows ../shared/eval/score.py exactly: a result hits when it is in the gold note
and covers at least half of the gold span; MRR counts the first hit within the top 10.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app.core.cancel import ProgressCallback, no_progress

if TYPE_CHECKING:
    from desktop_app.core.service import Quire

KS = (1, 3, 5, 10)


def covers(result: dict[str, Any], gold: dict[str, Any]) -> bool:
    if result.get("path") != gold["path"]:
        return False
    overlap = min(result["end"], gold["end"]) - max(result["start"], gold["start"])
    return overlap * 2 >= max(1, gold["end"] - gold["start"])


def first_hit(results: Iterable[dict[str, Any]], gold: dict[str, Any]) -> int | None:
    for rank, result in enumerate(results, start=1):
        if covers(result, gold):
            return rank
    return None


def score(ranks: list[int | None]) -> dict[str, float]:
    n = len(ranks) or 1
    metrics = {f"Hit@{k}": sum(1 for r in ranks if r is not None and r <= k) / n for k in KS}
    metrics["MRR@10"] = sum(1.0 / r for r in ranks if r is not None and r <= 10) / n
    return metrics


def load_questions(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def evaluate_set(
    quire: Quire,
    set_dir: Path,
    progress: ProgressCallback = no_progress,
    results_path: Path | None = None,
) -> dict[str, Any]:
    notes = set_dir / "notes"
    quire.index([notes], progress=progress)
    questions = load_questions(set_dir / "questions.jsonl")
    ranks: list[int | None] = []
    out = results_path.open("w", encoding="utf-8") if results_path else None
    try:
        for q in questions:
            found = quire.search(q["question"], top_k=10, folders=[notes])
            results = [
                {"path": r.path, "start": r.start, "end": r.end, "score": r.score} for r in found
            ]
            ranks.append(first_hit(results, q))
            if out:
                out.write(json.dumps({"id": q["id"], "results": results}) + "\n")
    finally:
        if out:
            out.close()
    return {"questions": len(questions), **score(ranks)}
