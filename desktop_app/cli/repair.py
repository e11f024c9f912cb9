"""The CLI's damage path: a damaged index found on open or while a command runs is replaced,
rebuilt from the notes folders, and reported once on stderr; then the command runs (again)."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

from desktop_app.cli.index import cmd_index, print_reports
from desktop_app.cli.progress import ProgressBar
from desktop_app.core.api import IndexDamaged, Quire, Recovery, Reindex

Command = Callable[["Quire", argparse.Namespace], int]


def run_guarded(quire: Quire, command: Command, args: argparse.Namespace) -> int:
    if quire.repair.recovery is not None and command is not cmd_repair:
        _announce_and_rebuild(quire, args)
    try:
        return command(quire, args)
    except sqlite3.DatabaseError as exc:
        damage = quire.repair.damage(exc)
        if damage is None:
            print(f"quire: database error: {exc}", file=sys.stderr)
            return 1
    except IndexDamaged as exc:
        damage = exc
    quire.repair.recover(damage.problems)
    _announce_and_rebuild(quire, args)
    try:
        return command(quire, args)
    except sqlite3.DatabaseError as exc:  # damaged again at once: say so, never a traceback
        print(f"quire: the new index failed too: {exc}", file=sys.stderr)
        return 1


def _announce_and_rebuild(quire: Quire, args: argparse.Namespace) -> None:
    recovery = quire.repair.take_recovery()  # told once
    if recovery is None:
        return
    print(f"quire: {recovery.message}", file=sys.stderr, flush=True)
    listed = {Path(f).resolve() for f in getattr(args, "folders", None) or []}
    folders = [f for f in quire.known_folders() if f not in listed]  # `index` reads its own
    missing = [f for f in recovery.folders if not Path(f).is_dir()]
    for folder in missing:
        print(f"quire: notes folder not found, not indexed: {folder}", file=sys.stderr)
    if folders:
        _rebuild(quire, folders, recovery)


def _rebuild(quire: Quire, folders: list[Path], recovery: Recovery) -> None:
    bar = ProgressBar()
    try:
        reports = quire.index(folders, progress=bar, embed=False)
    finally:
        bar.close()
    notes = sum(r.report.indexed for r in reports)
    print(
        f"quire: index rebuilt: {notes} notes from {len(folders)} folder(s) are keyword-searchable"
        f"; {recovery.vectors_kept} vectors kept, the rest are computed by the next `quire index`",
        file=sys.stderr,
        flush=True,
    )


def cmd_repair(quire: Quire, args: argparse.Namespace) -> int:
    """Check fully; replace and rebuild a damaged index (any index with --rebuild). The folders
    are indexed into the new index before anything else reads it."""
    recovery = quire.repair.take_recovery()  # damaged on open: that is the repair
    reindex = None
    if recovery is None:
        bar = ProgressBar()
        reindex = Reindex(progress=bar, embed=not args.no_embed)
        try:
            health, recovery = quire.repair.run(rebuild=args.rebuild, reindex=reindex)
        finally:
            bar.close()
    if recovery is None:
        print(f"index healthy ({health.check} check, {health.seconds:.1f} s): nothing to repair")
        return 0
    print(f"quire: {recovery.message}", file=sys.stderr, flush=True)
    for problem in recovery.problems:
        print(f"  found: {problem}")

    folders = quire.known_folders()
    if not folders:
        print("no notes folders to index: add one with `quire index FOLDER`")
        return 0
    if reindex is None:
        return cmd_index(quire, argparse.Namespace(folders=folders, no_embed=args.no_embed))
    print_reports(reindex.reports)
    if not args.no_embed and (why := quire.embedder_problem()):
        print(f"quire: no vectors made (keyword index only): {why}", file=sys.stderr)
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "repair", help="check the index; replace a damaged one and rebuild it from the folders"
    )
    p.add_argument("--rebuild", action="store_true", help="rebuild even when the checks pass")
    p.add_argument("--no-embed", action="store_true", help="keyword index only (vectors later)")
