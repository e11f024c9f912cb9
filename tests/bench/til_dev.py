"""Development harness for evidence on technical notes: span evidence@1 / @3 on til-en's whole
folder for the development questions (tests/data/til_dev_questions.jsonl, never the 60
measured ones), as `bench_answers.py --spans-only` measures it (gate included).

usage: python tests/bench/til_dev.py [QUESTIONS.jsonl] [--home DIR] [--eval DIR] [--fresh] [-v]

The index is built once under `--home` (~7 min) and reused; search results and the embedder's
cosines are cached there, so a change of units or ranking is re-measured in seconds. Delete
the home after a change of the chunker (the cached results would be stale).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "eval"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from desktop_app.core.answer.decision import Retrieval, decide  # noqa: E402
from desktop_app.core.answer.evidence import Cosines  # noqa: E402
from desktop_app.core.answer.question import Question  # noqa: E402
from desktop_app.core.api import Quire  # noqa: E402
from desktop_app.core.retrieval.search import SearchResult  # noqa: E402

DEV = ROOT / "tests" / "data" / "til_dev_questions.jsonl"


class CachedRetrieval:
    """A Retrieval over a persistent til-en index whose searches and cosines are cached."""

    def __init__(self, home: Path, notes: Path, fresh: bool) -> None:
        self.home, self.notes = home, notes
        self.path = home / "dev-cache.pickle"
        cache: dict[str, Any] = {"results": {}, "cosines": {}, "following": {}}
        if self.path.exists() and not fresh:
            cache = pickle.loads(self.path.read_bytes())
        self.results: dict[str, Any] = cache["results"]
        self.cosines: dict[tuple[str, str], float] = cache["cosines"]
        self.after: dict[int, SearchResult | None] = cache.get("following", {})
        self.quire: Quire | None = None
        self.retrieval: Retrieval | None = None

    def live(self) -> Retrieval:
        if self.retrieval is None:
            built = (self.home / "built").exists()
            self.quire = Quire.open(self.home / "quire")
            if not built:
                self.quire.index([self.notes])
                (self.home / "built").touch()
            self.retrieval = self.quire.answers.retrieval()
            self.retrieval.search("note", 1)  # loads the vectors: the embedder's cosines need them
        return self.retrieval

    def search(self, question: str) -> Any:
        if question not in self.results:
            live = self.live()
            self.results[question] = (live.search(question, 8), live.language(question))
        results, language = self.results[question][:2]
        return results, Question.read(question, language, self.live().idf)

    def similarity(self, language: str) -> Cosines:
        def cosines(question: str, texts: list[str], crossed: list[bool]) -> list[float]:
            missing = [(t, x) for t, x in zip(texts, crossed, strict=True)]
            missing = [(t, x) for t, x in missing if (question, t) not in self.cosines]
            if missing:
                real = self.live().similarity(language)
                asked = [t for t, _ in missing]
                values = real(question, asked, [x for _, x in missing]) if real else []
                values = values or [0.0] * len(missing)
                self.cosines.update({(question, t): v for t, v in zip(asked, values, strict=True)})
            return [self.cosines[(question, t)] for t in texts]

        return cosines

    def following(self, passage: SearchResult) -> SearchResult | None:
        if passage.chunk_id not in self.after:
            self.live()
            assert self.quire is not None
            self.after[passage.chunk_id] = self.quire.searcher.following(passage)
        return self.after[passage.chunk_id]  # read_on gives it the best passage's score

    def save(self) -> None:
        cache = {"results": self.results, "cosines": self.cosines, "following": self.after}
        self.path.write_bytes(pickle.dumps(cache))
        if self.quire is not None:
            self.quire.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("questions", nargs="?", type=Path, default=DEV)
    parser.add_argument("--home", type=Path, default=Path("/tmp/quire-til-dev"))
    parser.add_argument("--eval", type=Path, default=EVAL, help="the eval sets' folder")
    parser.add_argument("--fresh", action="store_true", help="forget cached searches")
    parser.add_argument("-v", action="store_true", help="print each miss")
    args = parser.parse_args(argv)
    args.home.mkdir(parents=True, exist_ok=True)
    cached = CachedRetrieval(args.home, args.eval / "til-en" / "notes", args.fresh)
    lines = args.questions.read_text("utf-8").splitlines()
    questions = [json.loads(x) for x in lines if x]
    counts = dict.fromkeys(("ev1", "ev3", "top1span", "top1note", "absent"), 0)
    for q in questions:
        results, read = cached.search(q["question"])
        retrieval = Retrieval(
            search=cached.live().search,  # not called: decide reads the cached results
            language=cached.live().language,
            idf=cached.live().idf,
            similarity=cached.similarity,
            following=cached.following,
        )
        decision, found, _ = decide(retrieval, read, results)
        found = found if decision.answerable else []
        hits = [e.path == q["path"] and e.start < q["end"] and q["start"] < e.end for e in found]
        row = {
            "ev1": bool(hits) and hits[0],
            "ev3": any(hits[:3]),
            "top1span": bool(results) and _overlaps(results[0], q),
            "top1note": bool(results) and results[0].path == q["path"],
            "absent": not found,
        }
        for key, value in row.items():
            counts[key] += bool(value)
        if args.v and not row["ev1"]:
            print(f"\n== {q['id']} {q['question']}\n   gold {q['path']} {q['answer'][:150]!r}")
            print(f"   top1 {results[0].path if results else None}  found@3={row['ev3']}")
            for e in found:
                print(f"   -> [{e.kind} {e.score:.2f}] {e.path} {e.text[:150]!r}")
    cached.save()
    n = max(1, len(questions))
    print(" ".join(f"{k} {v / n:.3f}" for k, v in counts.items()), f"n={len(questions)}")
    return 0


def _overlaps(r: Any, q: dict[str, Any]) -> bool:
    return bool(r.path == q["path"] and r.start < q["end"] and q["start"] < r.end)


if __name__ == "__main__":
    raise SystemExit(main())
