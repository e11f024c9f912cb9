"""Unique words find their own note: 100 random words that occur in exactly one til note are
searched alone; the share whose note is the first result (goal >= 99 %).

usage: python tests/bench/bench_unique_tokens.py [--home DIR] [--notes DIR] [--n 100] [--seed 13]

A word counts as unique when, case-folded, it occurs in exactly one note and its stem occurs
in no other note either (otherwise another note holds it in another form and may rightly rank
first). Words of fewer than 4 characters, function words and pure numbers are left out. The
index is built in --home (reused when it already holds the notes; embeddings included, since
the dense half of the fusion is what used to push such notes down).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from desktop_app.core.api import Quire  # noqa: E402
from desktop_app.core.retrieval import analyzer, languages  # noqa: E402

DEFAULT_NOTES = ROOT.parent / "shared" / "eval" / "til-en" / "notes"


def unique_words(notes: Path) -> dict[str, str]:
    """word → the relative path of the one note that holds it (and its stem)."""
    word_notes: dict[str, set[str]] = {}
    stem_notes: dict[str, set[str]] = {}
    for path in sorted(notes.rglob("*")):
        if path.suffix not in (".md", ".txt"):
            continue
        rel = path.relative_to(notes).as_posix()
        words = set(analyzer.words(path.read_text(encoding="utf-8", errors="replace")))
        for word in words:
            word_notes.setdefault(word, set()).add(rel)
        for stem in set(analyzer.stems(sorted(words), "en")):
            stem_notes.setdefault(stem, set()).add(rel)
    out = {}
    for word, where in word_notes.items():
        if len(where) != 1 or len(word) < 4 or word.isdigit() or languages.is_function_word(word):
            continue
        if stem_notes.get(analyzer.stems([word], "en")[0], set()) == where:
            out[word] = next(iter(where))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, default=None)
    parser.add_argument("--notes", type=Path, default=DEFAULT_NOTES)
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    home = args.home or Path(tempfile.mkdtemp(prefix="quire-unique-"))
    quire = Quire.open(home)
    started = time.perf_counter()
    quire.index([args.notes])
    print(f"index ready in {time.perf_counter() - started:.1f} s ({home})")
    candidates = unique_words(args.notes)
    sample = random.Random(args.seed).sample(sorted(candidates), min(args.n, len(candidates)))
    first, wrong_matched, misses = 0, 0, []
    for word in sample:
        results = quire.search(word, top_k=10)
        paths = [r.path for r in results]
        if paths and paths[0] == candidates[word]:
            first += 1
        else:
            rank = paths.index(candidates[word]) + 1 if candidates[word] in paths else None
            misses.append(f"{word!r}: its note {candidates[word]} at rank {rank}, first "
                          f"{paths[0] if paths else None}")  # fmt: skip
        wrong_matched += sum(1 for r in results
                             if word in r.matched_terms and r.path != candidates[word])  # fmt: skip
    quire.close()
    share = first / max(len(sample), 1)
    print(f"{len(candidates)} unique words; {len(sample)} sampled (seed {args.seed})")
    print(f"own note first: {first}/{len(sample)} = {share:.1%} (goal >= 99%)")
    print(f"results listing the word in matched_terms although from another note: {wrong_matched}")
    for line in misses:
        print("  miss", line)
    return 0


if __name__ == "__main__":
    from tests.bench.page import record

    raise SystemExit(record(main, "bench_unique_tokens"))
