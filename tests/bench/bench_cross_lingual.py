"""Questions in one language over notes in another, through the whole pipeline.

XQuAD pairs every German question with the English one about the same paragraph, so two sets
come out of ../shared/eval: German questions over the English articles (the gold is the English
span) and English questions over the German ones. Beside them, the same run scores the four
public sets in their own language (no regression), each in a fresh QUIRE_HOME, with each
embedder side by side: the bundled default (MiniLM with multilingual-e5-small beside it),
MiniLM alone (`english-only`) and the multilingual model alone (Settings).

The trilingual part reads tests/data/trilingual: 60 personal notes (20 Czech, 20 German, 20
English) and questions in the six directions cs→de, cs→en, de→cs, de→en, en→cs, en→de (question
language → note language), the whole vault indexed for every direction.
- Retrieval: each direction is a set of its own (the vault's notes, that direction's questions),
  scored with `quire eval` like the sets above: Hit@5 / MRR@10.
- Answers: each question asked as a user asks it, `quire ask QUESTION --json`, with QUIRE_HOME
  holding that embedder's index of the vault (`quire index`, once per embedder). The command runs
  in this process (its parser, `cmd_ask` and the CLI's guard, its stdout read back), so the chat
  model loads once instead of once a question. Per direction: answerable (`done.answerable`),
  gold note first (the source numbered 1 is from the gold note) and holds gold (the `done`
  answer holds the gold answer, case and whitespace ignored after NFC, not inside a longer
  number or word: "5 g" is not in "25 g").

    python tests/bench/bench_cross_lingual.py [--eval ../shared/eval] [--limit N]
        [--embedders default,multilingual-e5-small] [--only crossed|same|trilingual]
        [--rows FILE] [--page FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop_app.core.api import Quire

ROOT = Path(__file__).resolve().parents[2]
QUIRE = ROOT / ".venv" / "bin" / "quire"
SAME_LANGUAGE = ("xquad-en", "xquad-de", "ctkfacts-cs", "til-en")
# (name, questions of, notes and gold of)
CROSSED = (("xquad de→en", "xquad-de", "xquad-en"), ("xquad en→de", "xquad-en", "xquad-de"))
TRILINGUAL = ROOT / "tests" / "data" / "trilingual"
DIRECTIONS = ("cs-de", "cs-en", "de-cs", "de-en", "en-cs", "en-de")  # asked-notes
# questions-same.jsonl: asked in the note's own language, in the same vault (what a change for
# questions across languages must not cost)
SAME_DIRECTIONS = ("cs-cs", "de-de", "en-en")
ANSWER_KEYS = ("answerable", "gold_first", "holds_gold")
Row = dict[str, Any]


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
    write_jsonl(target / "questions.jsonl", rows)
    return target


def write_jsonl(path: Path, rows: list[Row]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")


ENGLISH_ONLY = "english-only"  # the default's English model alone (Settings → Other languages off)


def choose_embedder(home: Path, embedder: str) -> None:
    if embedder != "default":  # as a user chooses it in Settings
        settings: dict[str, Any] = {"embedding_model": embedder}
        if embedder == ENGLISH_ONLY:
            settings = {"multilingual_companion": False}
        (home / "settings.json").write_text(json.dumps(settings), "utf-8")


def run_eval(set_dir: Path, embedder: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as home:
        choose_embedder(Path(home), embedder)
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


def eval_table(sets: list[tuple[str, Path]], embedders: list[str]) -> list[str]:
    """`quire eval` of every set with every embedder: one table row a set, printed as it comes."""
    head = " | ".join(f"{e}: Hit@5 / MRR@10 (s)" for e in embedders)
    lines = [f"| set | questions | {head} |", "|---|---|" + "---|" * len(embedders)]
    print("\n".join(lines), flush=True)
    for name, folder in sets:
        cells = []
        for embedder in embedders:
            got = run_eval(folder, embedder)
            cells.append(f"{got['Hit@5']:.3f} / {got['MRR@10']:.3f} ({got['seconds']:.0f})")
        row = f"| {name} | {got['questions']:.0f} | {' | '.join(cells)} |"
        print(row, flush=True)
        lines.append(row)
    return lines


def public_sets(args: argparse.Namespace, scratch: Path) -> list[tuple[str, Path]]:
    """The crossed XQuAD sets and the public sets in their own language (as `--only` says)."""
    sets: list[tuple[str, Path]] = []
    if args.only in (None, "crossed"):
        for name, asked, notes in CROSSED:
            folder = scratch / name.replace(" ", "_").replace("→", "2")
            sets.append((name, crossed_set(args.eval, asked, notes, folder, args.limit)))
    if args.only in (None, "same"):
        sets += [(name, args.eval / name) for name in SAME_LANGUAGE]
    return sets


# -- the trilingual set ------------------------------------------------------------------------
def arrow(direction: str) -> str:
    return direction.replace("-", "→")


def trilingual_questions(limit: int | None) -> dict[str, list[Row]]:
    """The set's questions by direction (asked-notes), the first `limit` of each."""
    lines = [
        line
        for name in ("questions.jsonl", "questions-same.jsonl")
        for line in (TRILINGUAL / name).read_text("utf-8").splitlines()
    ]
    rows = [json.loads(line) for line in lines if line.strip()]
    by_direction = {
        d: [r for r in rows if f"{r['asked']}-{r['notes']}" == d]
        for d in (*DIRECTIONS, *SAME_DIRECTIONS)
    }
    return {d: (got[:limit] if limit else got) for d, got in by_direction.items()}


def trilingual_sets(questions: dict[str, list[Row]], scratch: Path) -> list[tuple[str, Path]]:
    """One set folder a direction: the whole vault's notes, that direction's questions."""
    sets = []
    for direction, rows in questions.items():
        folder = scratch / f"trilingual_{direction}"
        folder.mkdir(parents=True)
        (folder / "notes").symlink_to(TRILINGUAL / "notes")
        write_jsonl(folder / "questions.jsonl", rows)
        sets.append((f"trilingual {arrow(direction)}", folder))
    return sets


def index_vault(home: Path, embedder: str) -> float:
    """`quire index` of the whole vault into a new home with the embedder; its seconds."""
    home.mkdir(parents=True)
    choose_embedder(home, embedder)
    started = time.monotonic()
    subprocess.run(
        [str(QUIRE), "index", str(TRILINGUAL / "notes")],
        env={**os.environ, "QUIRE_HOME": str(home)},
        capture_output=True,
        text=True,
        check=True,
    )
    return time.monotonic() - started


def ask_json(quire: Quire, question: str) -> tuple[int, list[Row]]:
    """`quire ask QUESTION --json` in this process: the CLI's own parser, command and guard, and
    the lines it prints read back (one JSON event a line)."""
    from desktop_app.cli.ask import cmd_ask
    from desktop_app.cli.entry import build_parser
    from desktop_app.cli.repair import run_guarded

    args = build_parser().parse_args(["ask", question, "--json"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = run_guarded(quire, cmd_ask, args)
    return code, [json.loads(x) for x in out.getvalue().splitlines() if x.startswith("{")]


def holds(answer: str, gold: str) -> bool:
    """`gold` stands in `answer`: case and whitespace ignored after NFC ("160°C" holds
    "160 °C"), never inside a longer number or word ("25 g" does not hold "5 g")."""
    words = unicodedata.normalize("NFC", gold).casefold().split()
    if not words:
        return False
    pattern = r"\s*".join(re.escape(w) for w in words)
    before = r"(?<!\w)" if re.match(r"\w", words[0]) else ""
    after = r"(?!\w)" if re.search(r"\w$", words[-1]) else ""
    text = unicodedata.normalize("NFC", answer).casefold()
    return re.search(before + pattern + after, text) is not None


def judge(question: Row, code: int, events: list[Row]) -> Row:
    """What one answer got right: answerable, gold note first, holds gold."""
    sources: list[Row] = next((e["sources"] for e in events if e.get("type") == "sources"), [])
    done = next((e for e in events if e.get("type") == "done"), None)
    first = next((s for s in sources if s.get("n") == 1), sources[0] if sources else None)
    answer = done["answer"] if done else ""
    return {
        "id": question["id"],
        "answerable": bool(done and done["answerable"]),
        "gold_first": first is not None and first["path"] == question["path"],
        "holds_gold": holds(answer, question["answer"]),
        "gold": question["answer"],
        "first": first["path"] if first else None,
        "answer": answer,
        "exit": code,
    }


def ask_vault(home: Path, questions: dict[str, list[Row]]) -> Iterator[Row]:
    """Every question asked against the index in `home`, as `quire ask --json` would be (the
    app opened once, like the command opens it: QUIRE_HOME, no check on open)."""
    from desktop_app.core.api import Quire

    quire = Quire.open(home)
    for problem in quire.settings.problems:
        print(f"quire: settings: {problem}", file=sys.stderr)
    try:
        for direction, rows in questions.items():
            for question in rows:
                started = time.monotonic()
                code, events = ask_json(quire, question["question"])
                seconds = time.monotonic() - started
                yield {"direction": direction, **judge(question, code, events), "seconds": seconds}
    finally:
        quire.close()


def answer_rows(questions: dict[str, list[Row]], embedder: str, scratch: Path) -> list[Row]:
    """The judged answers of every question with one embedder, each printed to stderr."""
    home = scratch / f"home-{embedder}"
    seconds = index_vault(home, embedder)
    print(f"{embedder}: indexed the trilingual vault in {seconds:.0f} s", file=sys.stderr)
    rows = []
    for row in ask_vault(home, questions):
        rows.append({"embedder": embedder, **row})
        print(json.dumps(rows[-1], ensure_ascii=False), file=sys.stderr, flush=True)
    return rows


def answer_table(rows: list[Row], embedders: list[str]) -> list[str]:
    """Direction × embedder: shares answerable / gold note first / holds gold (s a question)."""
    head = " | ".join(f"{e}: answerable / gold note first / holds gold (s)" for e in embedders)
    lines = [f"| asked → notes | questions | {head} |", "|---|---|" + "---|" * len(embedders)]
    for direction in (*DIRECTIONS, "all", *SAME_DIRECTIONS):
        cells, count = [], 0
        for embedder in embedders:
            got = [r for r in rows if r["embedder"] == embedder and (r["direction"] == direction
                   or (direction == "all" and r["direction"] in DIRECTIONS))]  # fmt: skip
            count = len(got)
            shares = [sum(bool(r[k]) for r in got) / len(got) if got else 0.0 for k in ANSWER_KEYS]
            mean = sum(r["seconds"] for r in got) / len(got) if got else 0.0
            cells.append(" / ".join(f"{s:.2f}" for s in shares) + f" ({mean:.1f})")
        label = "all across languages" if direction == "all" else arrow(direction)
        lines.append(f"| {label} | {count} | {' | '.join(cells)} |")
    return lines


def trilingual_part(args: argparse.Namespace, embedders: list[str], scratch: Path) -> list[str]:
    """Both tables of the trilingual set: retrieval (`quire eval`), then answers (`quire ask`)."""
    questions = trilingual_questions(args.limit)
    title = (
        f"Trilingual set ({TRILINGUAL.relative_to(ROOT)}), retrieval per direction "
        "(asked → notes, the whole vault indexed), `quire eval`:"
    )
    print(f"\n{title}\n", flush=True)
    retrieval = [title, "", *eval_table(trilingual_sets(questions, scratch), embedders)]
    rows = [r for e in embedders for r in answer_rows(questions, e, scratch)]
    if args.rows:
        write_jsonl(args.rows, rows)
    answers = [
        "Trilingual set, answers through `quire ask --json` (bundled chat model): shares of "
        "questions answerable / with the gold note as source [1] / whose answer holds the gold "
        "answer; seconds a question:",
        "",
        *answer_table(rows, embedders),
    ]
    print("\n" + "\n".join(answers), flush=True)
    return ["\n".join(retrieval), "\n".join(answers)]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--eval", type=Path, default=ROOT.parent / "shared" / "eval")
    parser.add_argument(
        "--limit", type=int, help="only the first N questions of each crossed set and direction"
    )
    parser.add_argument(
        "--only", choices=("crossed", "same", "trilingual"), help="one part of the bench"
    )
    parser.add_argument("--rows", type=Path, help="write each trilingual answer judged (JSONL)")
    parser.add_argument("--page", type=Path, help="write the section of this page")
    parser.add_argument("--embedders", default="default,multilingual-e5-small")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    embedders = args.embedders.split(",")
    # Each part writes its own section of the page, so a run of one part keeps the other's.
    parts: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        if args.only != "trilingual":
            sets = public_sets(args, Path(scratch))
            parts["bench_cross_lingual"] = ["\n".join(eval_table(sets, embedders))]
        if args.only in (None, "trilingual"):
            parts["bench_cross_lingual trilingual"] = trilingual_part(
                args, embedders, Path(scratch)
            )
    if args.page:
        sys.path.insert(0, str(ROOT))
        from tests.bench.page import write_section

        given = argv or sys.argv[1:]
        command = shlex.join(["python", "tests/bench/bench_cross_lingual.py", *given])
        for name, sections in parts.items():
            write_section(args.page, name, "\n\n".join(sections), command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
