"""Development harness for the evidence ranking: evidence@1 / @3 on XQuAD questions the answers
bench never measures (positions `--from`..`--to` of the bench's shuffled answerable list; the
bench measures the first 100), or with `--measured` on the bench's own 100, for the record.

usage: python tests/bench/evidence_dev.py [--from 100] [--to 400] [--measured] [--cache DIR]
                                         [--eval DIR] [--fit] [--weights JSON] [SET ...]

Search results and the embedder's cosines are computed once per set and cached under
`--cache` (default /tmp/quire-evidence-dev), so a change of the ranking is re-measured in
seconds: `evidence.select` runs on the cached results with a cached similarity callable.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "eval"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from desktop_app.core.answer import evidence  # noqa: E402
from desktop_app.core.answer.decision import relevant  # noqa: E402
from desktop_app.core.answer.prompt import build_sources  # noqa: E402
from desktop_app.core.answer.question import KeyWords, Question  # noqa: E402
from desktop_app.core.answer.units import split_units, words_of  # noqa: E402
from tests.bench.bench_gate import indexed_without_gold, split_all  # noqa: E402


def norm(text: str) -> str:
    return " ".join(text.casefold().split())


def ordered_answerable(set_dir: Path) -> list[dict]:
    """The bench's answerable questions in its order, all of them (it measures the first 100)."""
    lines = (set_dir / "questions.jsonl").read_text("utf-8").splitlines()
    questions = [json.loads(x) for x in lines if x]
    return split_all(questions, 100, random.Random(11))[2]


def cached(name: str, cache: Path, eval_dir: Path = EVAL) -> dict[str, Any]:
    path = cache / f"{name}.pickle"
    if path.exists():
        data: dict[str, Any] = pickle.loads(path.read_bytes())
        return data
    questions = ordered_answerable(eval_dir / name)[:400]
    quire, _, _ = indexed_without_gold(eval_dir / name, 100, cache / "work", True)
    retrieval = quire.answers.retrieval()
    rows: list[dict[str, Any]] = []
    for q in questions:
        results = quire.search(q["question"], top_k=8)
        language = quire.searcher.query_language(q["question"])
        cos = retrieval.similarity(language)
        texts = [words_of(u.text) for r in results[: evidence.PASSAGES_READ]
                 for u in split_units(r.text, r.start)]  # fmt: skip
        cosines = (
            dict(zip(texts, cos(q["question"], texts, [False] * len(texts)), strict=True))
            if cos and texts
            else {}
        )
        terms = {t for r in results for t in r.matched_terms}
        rows.append({"q": q, "results": results, "language": language, "cosines": cosines,
                     "idf_terms": terms})  # fmt: skip
    idf_cache: dict[str, float] = {}
    weights = retrieval.idf
    data = {"rows": rows, "idf": idf_cache}
    for row in rows:  # the index's weights of every form a question can ask for
        keys = KeyWords.of(row["q"]["question"], row["language"])
        forms = [f for k in keys.words for f in (k.stem, k.prefix)]
        idf_cache.update(weights(forms) if weights else {})
    quire.close()
    cache.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(data))
    return data


def measure(data: dict[str, Any], lo: int, hi: int) -> tuple[float, float, float, int]:
    idf = data["idf"]

    def weights(terms: list[str]) -> dict[str, float]:
        return {t: idf.get(t, 1.0) for t in terms}

    ev1 = ev3 = top1 = 0
    rows = data["rows"][lo:hi]
    for row in rows:
        q, results = row["q"], row["results"]
        cos = row["cosines"]
        similarity = (lambda _q, texts, _x, c=cos: [c.get(t, 0.0) for t in texts]) if cos else None
        asked = Question.read(q["question"], row["language"], weights)
        sources = build_sources(relevant(results))
        found = evidence.select(asked, results, sources, weights, similarity)
        gold = norm(q["answer"])
        ev1 += bool(found) and gold in norm(found[0].text)
        ev3 += any(gold in norm(e.text) for e in found[:3])
        top1 += bool(results) and gold in norm(results[0].text)
    n = max(1, len(rows))
    return ev1 / n, ev3 / n, top1 / n, len(rows)


FEATURES = ("ranking", "cue", "rank", "order", "cosine")


def candidate_features(row: dict[str, Any]) -> tuple[list[list[float]], list[bool]]:
    """Every unit `evidence.select` would weigh for this question: its signals and whether it
    holds the gold answer (for fitting the ranking's weights on development questions)."""
    q, results = row["q"], row["results"]
    idf = row["weights"]
    asked = Question.read(q["question"], row["language"], idf)
    sources = build_sources(relevant(results))
    numbered = {cid for s in sources for cid in s.chunk_ids}
    feats, labels = [], []
    gold = norm(q["answer"])
    contexts: dict[int, Any] = {}
    for r, unit, rank in evidence.candidate_units(results, numbered):
        context = contexts.setdefault(
            r.chunk_id, evidence.title_forms(r.title or "", row["language"])
        )
        sig = evidence.unit_signals(unit, asked.keys, context)
        cue = evidence.cues.matches(asked.kind, unit.text, asked)
        cosine = max(0.0, row["cosines"].get(words_of(unit.text), 0.0))
        feats.append([sig.ranking, float(cue), float(rank), sig.order, cosine])
        labels.append(gold in norm(unit.text))
    return feats, labels


def fit(datas: list[dict[str, Any]], lo: int, hi: int, rounds: int = 3) -> dict[str, float]:
    """Coordinate search on a grid for the weights that put a gold unit first most often (ties
    broken by @3), `ranking` fixed at 1; the cosine is given to every unit here."""
    import numpy as np

    groups = []
    for data in datas:
        idf = data["idf"]
        for row in data["rows"][lo:hi]:
            row["weights"] = lambda terms, idf=idf: {t: idf.get(t, 1.0) for t in terms}
            feats, labels = candidate_features(row)
            groups.append((np.array(feats).reshape(-1, len(FEATURES)), np.array(labels)))
    now = (
        1.0,
        evidence.CUE_WEIGHT,
        -evidence.RANK_PRIOR,
        evidence.ORDER_WEIGHT,
        evidence.COSINE_WEIGHT,
    )
    w = dict(zip(FEATURES, now, strict=True))

    def quality(weights: dict[str, float]) -> tuple[float, float]:
        vector = np.array([weights[f] for f in FEATURES])
        at1 = at3 = 0
        for x, y in groups:
            if not len(y):
                continue
            order = np.argsort(-(x @ vector), kind="stable")
            at1 += bool(y[order[0]])
            at3 += bool(y[order[:3]].any())
        return at1 / len(groups), at3 / len(groups)

    grid = {
        "cue": [0, 0.05, 0.1, 0.2, 0.3, 0.5],
        "rank": [0, -0.02, -0.04, -0.08, -0.15, -0.3],
        "order": [0, 0.1, 0.2, 0.4, 0.8],
        "cosine": [0, 0.4, 0.8, 1.2, 1.6],
    }
    best = quality(w)
    print("start", w, best)
    for _ in range(rounds):
        for name, values in grid.items():
            for value in values:
                trial = {**w, name: value}
                score = quality(trial)
                if score > best:
                    w, best = trial, score
        print("round", w, best)
    return w


def use_weights(weights: dict[str, float]) -> None:
    """Set the ranking's constants (as fitted: each divided by the weight of `ranking`)."""
    scale = weights.get("ranking", 1.0)
    names = {"cue": "CUE_WEIGHT", "order": "ORDER_WEIGHT", "cosine": "COSINE_WEIGHT"}
    for key, value in weights.items():
        if key == "rank":
            evidence.RANK_PRIOR = -value / scale
        elif key in names:
            setattr(evidence, names[key], value / scale)
    if "keep" in weights:
        evidence.KEEP_RATIO = weights["keep"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--from", dest="lo", type=int, default=100)
    parser.add_argument("--to", dest="hi", type=int, default=400)
    parser.add_argument("--measured", action="store_true", help="the bench's own first 100")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/quire-evidence-dev"))
    parser.add_argument("--eval", type=Path, default=EVAL, help="the eval sets' folder")
    parser.add_argument("--fit", action="store_true", help="fit the weights on --from..--to")
    parser.add_argument("--weights", type=json.loads, help='e.g. {"cue": 0.4}; ranking is 1')
    parser.add_argument("sets", nargs="*", default=["xquad-en", "xquad-de"])
    args = parser.parse_args(argv)
    lo, hi = (0, 100) if args.measured else (args.lo, args.hi)

    if args.weights:
        use_weights(args.weights)
    if args.fit:
        print(json.dumps(fit([cached(name, args.cache, args.eval) for name in args.sets], lo, hi)))
        return 0
    for name in args.sets:
        ev1, ev3, top1, n = measure(cached(name, args.cache, args.eval), lo, hi)
        print(f"{name} [{lo}:{hi}] n={n}: evidence@1 {ev1:.3f}  @3 {ev3:.3f}  top-1 {top1:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
