"""Questions in one language over notes in another, through the whole pipeline (`quire eval`).

XQuAD pairs every German question with the English one about the same paragraph, so two sets
come out of ../shared/eval: German questions over the English articles (the gold is the English
span) and English questions over the German ones. Beside them, the same run scores the four
public sets in their own language (no regression), each in a fresh QUIRE_HOME, with each
embedder side by side: the bundled default and the bundled multilingual model (Settings).

    python tests/bench/bench_cross_lingual.py [--eval ../shared/eval] [--limit N]
        [--embedders default,multilingual-e5-small] [--only crossed|same] [--page FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
QUIRE = ROOT / ".venv" / "bin" / "quire"
SAME_LANGUAGE = ("xquad-en", "xquad-de", "ctkfacts-cs", "til-en")
# (name, questions of, notes and gold of)
CROSSED = (("xquad de→en", "xquad-de", "xquad-en"), ("xquad en→de", "xquad-en", "xquad-de"))


def crossed_set(eval_dir: Path, asked: str, notes: str, target: Path, limit: int | None) -> Path:
    """A set folder: the notes of `notes`, the questions of `asked` with `notes`' gold."""
    target.mkdir(parents=True, exist_ok=True)
    (target / "notes").symlink_to((eval_dir / notes / "notes").resolve())
    gold = {}
    for line in (eval_dir / notes / "questions.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        gold[row["id"].split("-", 2)[2]] = row
    rows = []
    for line in (eval_dir / asked / "questions.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        key = row["id"].split("-", 2)[2]
        if key in gold:
            rows.append({**gold[key], "id": row["id"], "question": row["question"]})
    rows = rows[:limit] if limit else rows
    (target / "questions.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8"
    )
    return target


def run_eval(set_dir: Path, embedder: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as home:
        if embedder != "default":  # as a user chooses it in Settings
            settings = {"embedding_model": embedder}
            (Path(home) / "settings.json").write_text(json.dumps(settings), "utf-8")
        started = time.monotonic()
        out = subprocess.run(
            [str(QUIRE), "eval", str(set_dir)],
            env={**os.environ, "QUIRE_HOME": home},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    figures = dict(line.split("\t", 1) for line in out.splitlines() if "\t" in line)
    return {
        "questions": float(figures["questions"]),
        "Hit@5": float(figures["Hit@5"]),
        "MRR@10": float(figures["MRR@10"]),
        "seconds": time.monotonic() - started,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--eval", type=Path, default=ROOT.parent / "shared" / "eval")
    parser.add_argument("--limit", type=int, help="only the first N crossed questions")
    parser.add_argument("--only", choices=("crossed", "same"), help="one half of the bench")
    parser.add_argument("--page", type=Path, help="write the section of this page")
    parser.add_argument("--embedders", default="default,multilingual-e5-small")
    args = parser.parse_args(argv)
    embedders = args.embedders.split(",")
    head = " | ".join(f"{e}: Hit@5 / MRR@10 (s)" for e in embedders)
    lines = [f"| set | questions | {head} |", "|---|---|" + "---|" * len(embedders)]
    with tempfile.TemporaryDirectory() as scratch:
        sets: list[tuple[str, Path]] = []
        if args.only != "same":
            for name, asked, notes in CROSSED:
                folder = Path(scratch) / name.replace(" ", "_").replace("→", "2")
                sets.append((name, crossed_set(args.eval, asked, notes, folder, args.limit)))
        if args.only != "crossed":
            sets += [(name, args.eval / name) for name in SAME_LANGUAGE]
        for name, folder in sets:
            cells = []
            for embedder in embedders:
                got = run_eval(folder, embedder)
                cells.append(f"{got['Hit@5']:.3f} / {got['MRR@10']:.3f} ({got['seconds']:.0f})")
            row = f"| {name} | {got['questions']:.0f} | {' | '.join(cells)} |"
            print(row, flush=True)
            lines.append(row)
    if args.page:
        sys.path.insert(0, str(ROOT))
        from tests.bench.page import write_section

        command = "python tests/bench/bench_cross_lingual.py " + " ".join(argv or sys.argv[1:])
        write_section(args.page, "bench_cross_lingual", "\n".join(lines), command.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
