"""`quire ask`: stream the answer (or, with --json, one JSON event per line)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_app.cli.scope import add_scope_flags, flag_scope, report_scope
from desktop_app.core.api import (
    Done,
    DraftReplaced,
    Error,
    EvidenceShown,
    Passage,
    SourcesFound,
    Token,
    as_json,
    day_label,
    pages_label,
    printable,
)

if TYPE_CHECKING:
    from desktop_app.core.api import Quire

EMPTY_INDEX_HINT = "Nothing is indexed yet. Index a notes folder first: quire index FOLDER"


def cmd_ask(quire: Quire, args: argparse.Namespace) -> int:
    if not args.question.strip():
        print("quire ask: the question is empty", file=sys.stderr)
        return 2
    if quire.index_is_empty():
        print(f"quire ask: {EMPTY_INDEX_HINT}", file=sys.stderr)
        return 1
    scope = flag_scope(args, quire)
    scoped = quire.answer_scope(args.question, scope)
    if not args.json:
        report_scope(scoped, True)
    events = quire.answers.ask(
        args.question, model_path=args.model, max_tokens=args.max_tokens, scope=scope
    )
    if args.json:
        if not scoped.scope.empty:  # what the answer is limited to, before it
            print(json.dumps({"type": "scope", **scoped.scope.to_json()}, ensure_ascii=False))
        code = 0
        for event in events:
            print(json.dumps(as_json(event), ensure_ascii=False), flush=True)
            code = 1 if isinstance(event, Error) else code
        return code
    sources: list[Passage] = []
    for event in events:
        if isinstance(event, Error):
            print(f"quire: {event.message}", file=sys.stderr)
            return 1
        if isinstance(event, SourcesFound):
            sources = event.sources
        elif isinstance(event, EvidenceShown):
            _print_evidence(event)
        elif isinstance(event, Token):
            print(event.text, end="", flush=True)
        elif isinstance(event, Done):
            print()
            _print_checks(event)
            _print_sources(sources, event)
    return 0


def _print_evidence(event: EvidenceShown) -> None:
    if event.caution:
        print(f"⚠ {event.caution}")
    if not event.evidence:
        return
    print("From your notes:")
    for e in event.evidence:
        at = pages_label(e.page) or e.line_start
        said = f"on {day_label(e.day)} you wrote: " if e.day else ""
        print(f"  [{e.number}] {said}“{' '.join(e.shown.split())}”  ({e.path}:{at})")
    print()


def _print_checks(done: Done) -> None:
    """What checking the answer changed: added citations, figures found in no source."""
    if done.declined:
        print(done.answer)
        print(f"({done.declined})")
    elif done.draft is not None:
        print(f"\nChecked: {done.draft.marked_answer}")
        if done.draft.replaced == DraftReplaced.UNREADABLE:
            why = "; ".join(done.draft.problems)
            print(f"The model's answer above did not pass the reading checks ({why}). Instead:")
        elif done.draft.replaced == DraftReplaced.OFF_QUESTION:
            print("The model's answer above repeats a passage off the question. Instead:")
        elif done.draft.replaced == DraftReplaced.FORGED:
            print("The model's answer above quotes your notes with words no note holds. Instead:")
        else:
            print("Your notes back none of the model's answer above. Instead:")
        print(done.answer)
    elif done.added_citations or done.unsupported:
        print(f"\nChecked: {done.marked_answer}")
    if done.offer:
        print(done.offer)


def _print_sources(sources: list[Passage], done: Done) -> None:
    if sources:
        print("\nSources:" if done.answerable else "\nClosest passages:")
    for s in sources:
        n = s.number if done.answerable else "-"
        where = printable(" › ".join(s.heading_path) or s.title)
        at = pages_label(s.page, s.page_end) or f"{s.line_start}-{s.line_end}"
        print(f"  [{n}] {printable(s.path)}:{at}  {where}")
    invalid = done.citations.invalid
    if invalid:
        print(f"  (ignored citations that match no source: {', '.join(f'[{n}]' for n in invalid)})")
    weak = [s for s in done.citations.sentences if s.weak]
    if weak:
        print(f"  ({len(weak)} cited sentence(s) only weakly supported by their source)")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("ask", help="answer a question from the notes, with [n] citations")
    p.add_argument("question")
    p.add_argument("--model", type=Path, help="a GGUF chat model (default: the bundled SmolLM2)")
    p.add_argument("--json", action="store_true", help="one JSON event per line")
    p.add_argument("--max-tokens", type=int, default=384)
    add_scope_flags(p)
