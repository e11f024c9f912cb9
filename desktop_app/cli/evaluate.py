"""`quire eval`: index an eval set's notes and score its questions (Hit@k, MRR@10)."""

from __future__ import annotations

import argparse
from pathlib import Path

from desktop_app.cli.progress import ProgressBar
from desktop_app.core.api import Quire, evaluate_set


def cmd_eval(quire: Quire, args: argparse.Namespace) -> int:

    bar = ProgressBar()
    try:
        metrics = evaluate_set(quire, args.set_dir, progress=bar, results_path=args.results)
    finally:
        bar.close()
    print(f"set\t{args.set_dir.name}\nquestions\t{metrics['questions']}")
    for key in ("Hit@1", "Hit@3", "Hit@5", "Hit@10", "MRR@10"):
        print(f"{key}\t{metrics[key]:.3f}")
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("eval", help="index SET_DIR/notes and score SET_DIR/questions.jsonl")
    p.add_argument("set_dir", type=Path)
    p.add_argument("--results", type=Path, help="also write the ranked results here (JSONL)")
