"""`quire search`: ranked passages for a query, or one JSON line per query of a file."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from desktop_app.cli.ask import EMPTY_INDEX_HINT
from desktop_app.cli.scope import add_scope_flags, flag_scope, report_scope
from desktop_app.core.api import (
    Quire,
    Scope,
    SearchResult,
    as_json,
    clean_text,
    pages_label,
    printable,
)


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
    with the embedder, so it costs more than the search; `--no-gate` leaves it out)."""
    for item in queries:
        found = quire.search_in(item["question"], top_k=top, folders=folders, scope=scope)
        line: dict[str, Any] = {"id": item["id"]}
        if gate:
            asked = found.query.text or item["question"]  # without its scope words, as in ask
            decision = quire.answers.gate(asked, found.results, found.query.scope)
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


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
