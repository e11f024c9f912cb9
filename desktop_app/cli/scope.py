"""Scopes on the command line: `--folder`, `--tag`, `--since`, `--until` (the same as
`folder:`, `tag:`, `since:`, `until:` in the query) and what the command says about them."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from desktop_app.core.api import Scope, ScopedQuery, date_bound

if TYPE_CHECKING:
    from desktop_app.core.api import Quire


def add_scope_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--folder", action="append", default=[], help="only notes in FOLDER")
    parser.add_argument("--tag", action="append", default=[], help="only notes tagged TAG")
    parser.add_argument("--since", help="only notes dated on or after (2026-03-01, 2026-03, …)")
    parser.add_argument("--until", help="only notes dated on or before")


def flag_scope(args: argparse.Namespace, quire: Quire) -> Scope:
    """The flags' scope; a date Quire cannot read stops the command with a clear message."""
    period = None
    for key in ("since", "until"):
        value = getattr(args, key, None)
        if not value:
            continue
        bound = date_bound(key, value, quire.today())
        if bound is None:
            raise SystemExit(
                f"quire: --{key} {value!r} is not a date Quire can read "
                '(try 2026-03-01, 2026-03, 2026 or "last week")'
            )
        period = (
            bound if period is None else Scope(period=period).combined(Scope(period=bound)).period
        )
    return Scope(
        tuple(f.strip("/") for f in args.folder),
        tuple(t.lstrip("#").lower() for t in args.tag),
        (),
        period,
    )


def report_scope(scoped: ScopedQuery, found: bool) -> None:
    """On stderr: the scope used (so a time phrase read as one is never silent), and why
    nothing came back when nothing is in it."""
    for problem in scoped.problems:
        print(f"quire: {problem}", file=sys.stderr)
    if scoped.notice:
        print(f"quire: {scoped.notice}", file=sys.stderr)
    chips = scoped.scope.chips()
    if not chips:
        return
    print("quire: within " + ", ".join(c.label for c in chips), file=sys.stderr)
    if not found:
        print(
            "quire: no note in this scope matches (remove a scope word to search everything)",
            file=sys.stderr,
        )
