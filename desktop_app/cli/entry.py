"""The `quire` command line's entry: the arguments, then the verb (in its own module), guarded
against a damaged index; without a verb it opens the window."""

from __future__ import annotations

import argparse
import codecs
import io
import os
import sys
from pathlib import Path

from desktop_app import __version__, supervisor
from desktop_app.cli import ask, evaluate, index, models, repair, search, status
from desktop_app.cli.repair import run_guarded
from desktop_app.cli.selftest import run_self_test
from desktop_app.core.api import DiskFull, NewerDatabaseError, Quire
from desktop_app.paths import quire_home, user_sample_notes

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
    for verbs in (index, search, ask, evaluate, status, repair, models):
        verbs.add_parser(sub)


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
        return models.cmd_models(args)

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


COMMANDS = {
    "index": index.cmd_index,
    "watch": index.cmd_watch,
    "ask": ask.cmd_ask,
    "search": search.cmd_search,
    "eval": evaluate.cmd_eval,
    "status": status.cmd_status,
    "repair": repair.cmd_repair,
}
