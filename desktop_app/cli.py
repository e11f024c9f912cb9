"""The `quire` command line. Without a command it opens the window."""

from __future__ import annotations

import argparse
import codecs
import io
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from desktop_app import __version__, models_cli, supervisor
from desktop_app.cli_ask import EMPTY_INDEX_HINT, cmd_ask
from desktop_app.cli_index import cmd_index, cmd_watch
from desktop_app.cli_repair import add_parser as add_repair_parser
from desktop_app.cli_repair import cmd_repair, run_guarded
from desktop_app.core.as_json import as_json
from desktop_app.core.evaluate import evaluate_set
from desktop_app.core.names import printable
from desktop_app.core.passage import pages_label
from desktop_app.core.retrieval.scope import Scope
from desktop_app.core.service import DiskFull, NewerDatabaseError, NoteStatus, Quire
from desktop_app.core.text import clean_text
from desktop_app.paths import quire_home, user_sample_notes
from desktop_app.progressbar import ProgressBar
from desktop_app.scope_cli import add_scope_flags, flag_scope, report_scope
from desktop_app.selftest import run_self_test

if TYPE_CHECKING:
    from desktop_app.core.service import Quire, SearchResult

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="quire", description="Chat with your own notes, offline.")
    parser.add_argument("--version", action="version", version=f"quire {__version__}")
    parser.add_argument(
        "--self-test", action="store_true", help="check everything offline, print JSON"
    )
    _add_window_flags(parser)
    sub = parser.add_subparsers(dest="command")
    _add_commands(sub)
    return parser


def _add_window_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--notes",
        action="append",
        type=Path,
        default=[],
        metavar="FOLDER",
        help="open the window on this notes folder (repeatable)",
    )
    parser.add_argument(
        "--sample-notes",
        action="store_true",
        help="open the window on a copy of the bundled sample notes (in the data folder)",
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="open the window, print when it is shown (JSON), then quit (installer checks)",
    )


def _add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:

    p = sub.add_parser("index", help="index or update notes folders")
    p.add_argument("folders", nargs="+", type=Path)
    p.add_argument("--no-embed", action="store_true", help="keyword index only")

    p = sub.add_parser("watch", help="index, then keep the index live (one line per change)")
    p.add_argument("folders", nargs="+", type=Path)
    p.add_argument("--polling", action="store_true", help="poll instead of OS notifications")

    p = sub.add_parser("search", help="search the indexed notes")
    p.add_argument("query", nargs="?")
    p.add_argument("--top", type=int, default=None)
    p.add_argument("--json", action="store_true")
    p.add_argument("--queries", type=Path, help="JSONL file with id and question per line")
    p.add_argument(
        "--no-gate",
        action="store_true",
        help="with --queries: results only, without the gate's answerable / outcome (faster)",
    )
    add_scope_flags(p)
    p = sub.add_parser("ask", help="answer a question from the notes, with [n] citations")
    p.add_argument("question")
    p.add_argument("--model", type=Path, help="a GGUF chat model (default: the bundled SmolLM2)")
    p.add_argument("--json", action="store_true", help="one JSON event per line")
    p.add_argument("--max-tokens", type=int, default=384)
    add_scope_flags(p)

    p = sub.add_parser("eval", help="index SET_DIR/notes and score SET_DIR/questions.jsonl")
    p.add_argument("set_dir", type=Path)
    p.add_argument("--results", type=Path, help="also write the ranked results here (JSONL)")

    p = sub.add_parser("status", help="database, counts, per-file status, integrity")
    p.add_argument("--json", action="store_true")
    add_repair_parser(sub)
    models_cli.add_parser(sub)


def utf8_output() -> None:
    """stdout and stderr in UTF-8 whatever the console, pipe or code page (on Windows a pipe or
    file is written in the ANSI code page, which has no letter for most Czech text)."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and codecs.lookup(stream.encoding).name != "utf-8":
            stream.reconfigure(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    utf8_output()
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(argv)
    if args.self_test:
        return run_self_test()
    if args.command is None:
        return open_window(argv, args)
    if args.command == "models":  # needs no database
        return models_cli.cmd_models(args)

    # Commands that write or report run the quick check on open whatever the size.
    try:
        quire = Quire.open(
            check="quick" if args.command in ("index", "watch", "status", "repair") else None
        )
    except NewerDatabaseError as exc:
        print(f"quire: {exc}", file=sys.stderr)
        return 3
    for problem in quire.settings.problems:
        print(f"quire: settings: {problem}", file=sys.stderr)
    try:
        return run_guarded(quire, COMMANDS[args.command], args)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except (FileNotFoundError, NotADirectoryError) as exc:
        print(f"quire: {exc}", file=sys.stderr)
        return 2
    except DiskFull as exc:
        print(f"quire: {exc}. Then run the command again.", file=sys.stderr)
        return 1
    finally:
        quire.close()


def open_window(argv: list[str], args: argparse.Namespace) -> int:
    """The window runs in a supervised child, so a native crash still leaves a report."""
    if os.environ.get(supervisor.SUPERVISED_ENV):
        # Qt loads only when the window opens: every other command runs without it.
        from desktop_app.ui.app import run_app  # noqa: PLC0415

        folders = args.notes + ([user_sample_notes()] if args.sample_notes else [])
        return run_app(folders, smoke=args.smoke)
    return supervisor.run_supervised(supervisor.window_command(argv), quire_home())


def cmd_search(quire: Quire, args: argparse.Namespace) -> int:
    if args.queries:
        scope = flag_scope(args, quire)
        queries = _read_queries(args.queries)
        for line in _batch_search(quire, queries, args.top, scope=scope, gate=not args.no_gate):
            print(json.dumps(line, ensure_ascii=False), flush=True)
        return 0
    if not args.query or not args.query.strip():
        print("quire search: give a QUERY or --queries FILE", file=sys.stderr)
        return 2
    if quire.index_is_empty():
        print(f"quire search: {EMPTY_INDEX_HINT}", file=sys.stderr)
        return 1
    query = clean_text(args.query)  # argv bytes that are not UTF-8 arrive surrogate-escaped
    found = quire.search_in(query, top_k=args.top, scope=flag_scope(args, quire))
    results = found.results
    if why := quire.embedder_problem():
        print(f"quire: keyword-only search: {why}", file=sys.stderr)
    report_scope(found.query, bool(results))
    if args.json:
        limits = found.query.scope.to_json()
        line = {"query": query, "scope": limits, "results": [as_json(r) for r in results]}
        print(json.dumps(line, ensure_ascii=False))
        return 0
    _print_results(results, sys.stdout)
    return 0


def _read_queries(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def _batch_search(
    quire: Quire,
    queries: Iterator[dict[str, Any]],
    top: int | None,
    folders: list[Path] | None = None,
    scope: Scope | None = None,
    gate: bool = True,
) -> Iterator[dict[str, Any]]:
    """One line per query; `gate`: with the decision `ask` makes (it reads the evidence units
    with the embedder: ~0.3 s a query on 2 cores)."""
    for item in queries:
        found = quire.search_in(item["question"], top_k=top, folders=folders, scope=scope)
        line: dict[str, Any] = {"id": item["id"]}
        if gate:
            asked = found.query.text or item["question"]  # without its scope words, as in ask
            decision = quire.gate(asked, found.results, found.query.scope)
            line["answerable"] = decision.answerable
            line["outcome"] = decision.outcome
        line["results"] = [as_json(r) for r in found.results]
        line["scope"] = found.query.scope.to_json()
        yield line


def _print_results(results: list[SearchResult], out: TextIO) -> None:
    if not results:
        print("No matching passages.", file=out)
    for n, r in enumerate(results, start=1):
        where = printable(" › ".join(r.heading_path))
        at = pages_label(r.page, r.page_end) or f"{r.line_start}-{r.line_end}"
        print(f"[{n}] {printable(r.path)}:{at}  score {r.score:.3f}  {where}", file=out)
        snippet = " ".join(r.text.split())
        print(f"    {snippet[:240]}{'…' if len(snippet) > 240 else ''}", file=out)


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


def cmd_status(quire: Quire, args: argparse.Namespace) -> int:
    status = quire.status()
    integrity, healthy = status.integrity, status.integrity_ok
    if args.json:
        print(json.dumps(as_json(status), ensure_ascii=False, indent=2))
        return 0 if healthy else 1
    c = status.counts
    print(f"database: {status.database}")
    print(f"embedding model: {status.embedding_model or '(none yet)'}")
    print(
        f"folders {c.folders}, notes {c.notes}, chunks {c.chunks}, "
        f"pending embedding {c.pending_embedding}, skipped {c.skipped}, failed {c.failed}"
    )
    for f in status.files:
        if f.status != NoteStatus.INDEXED or f.reason:
            reason = f" — {printable(f.reason)}" if f.reason else ""
            print(f"  {f.status}: {printable(f.path)}{reason}")
    problems = "not checked" if integrity is None else "; ".join(integrity.problems)
    print("integrity: " + ("ok" if healthy else f"PROBLEM: {problems}"))
    if status.recovery is not None:
        print(f"last repair ({status.recovery.at}): {status.recovery.message}")
    return 0 if healthy else 1


COMMANDS = {
    "index": cmd_index,
    "watch": cmd_watch,
    "ask": cmd_ask,
    "search": cmd_search,
    "eval": cmd_eval,
    "status": cmd_status,
    "repair": cmd_repair,
}
