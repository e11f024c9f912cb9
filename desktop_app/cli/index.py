"""`quire index` and `quire watch`: index folders with a progress bar; keep them live."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path

from desktop_app.cli.progress import ProgressBar
from desktop_app.core.api import QUIET_KINDS, Change, FolderReport, Quire, Watching, printable


def cmd_index(quire: Quire, args: argparse.Namespace) -> int:
    bar = ProgressBar()
    try:
        reports = quire.index(args.folders, progress=bar, embed=not args.no_embed)
    finally:
        bar.close()
    print_reports(reports)
    if not args.no_embed and (why := quire.embedder_problem()):
        print(f"quire: no vectors made (keyword index only): {why}", file=sys.stderr)
    elif not args.no_embed and (why := quire.vectors_where.why):
        print(f"quire: {why}", file=sys.stderr)
    return 0


def print_reports(reports: list[FolderReport]) -> None:
    for item in reports:
        r = item.report
        print(
            f"{printable(item.folder)}: {r.scanned} files, {r.indexed} indexed, "
            f"{r.unchanged} unchanged, {r.skipped} skipped, {r.failed} failed, "
            f"{r.removed} removed, {r.embedded} embedded"
            + (" (read quickly, each note one passage: passages follow)" if r.quick else "")
        )
        for path, status, reason in r.problems:
            print(f"  {status}: {printable(path)}: {printable(reason)}")


def cmd_watch(quire: Quire, args: argparse.Namespace) -> int:
    for folder in args.folders:
        if not folder.is_dir():
            raise NotADirectoryError(f"not a folder: {folder}")
    bar = ProgressBar()
    try:
        # keyword-searchable first: a large new vault is read quickly, then in full (live)
        reports = quire.index(args.folders, progress=bar, embed=False, quick=True)
    finally:
        bar.close()
    print_reports(reports)

    def print_change(change: Change) -> None:
        if change.kind not in QUIET_KINDS:
            print(change, flush=True)

    for folder in args.folders:
        quire.live.watch(folder)
    try:
        quick = any(item.report.quick for item in reports)
        quire.live.start(Watching(print_change, force_polling=args.polling), reconcile=quick)
        # SIGTERM stops as Ctrl+C does: by an exception in the main thread's sleep. A handler
        # that set a threading.Event could run while that thread holds the event's own lock,
        # inside its wait, and never return. Installed once the watch has started: raised
        # inside `start` (an import, an observer's threads) it left threads running.
        signal.signal(signal.SIGTERM, _interrupt)
        print(f"watching {len(args.folders)} folder(s); Ctrl+C stops", file=sys.stderr, flush=True)
        while True:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second one ends a stop that hangs
        quire.live.stop()
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("index", help="index or update notes folders")
    p.add_argument("folders", nargs="+", type=Path)
    p.add_argument("--no-embed", action="store_true", help="keyword index only")

    p = sub.add_parser("watch", help="index, then keep the index live (one line per change)")
    p.add_argument("folders", nargs="+", type=Path)
    p.add_argument("--polling", action="store_true", help="poll instead of OS notifications")
