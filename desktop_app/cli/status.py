"""`quire status`: the database, counts, per-file status and integrity."""

from __future__ import annotations

import argparse
import json

from desktop_app.core.api import NoteStatus, Quire, as_json, printable


def cmd_status(quire: Quire, args: argparse.Namespace) -> int:
    status = quire.status()
    integrity, healthy = status.integrity, status.integrity_ok
    if args.json:
        print(json.dumps(as_json(status), ensure_ascii=False, indent=2))
        return 0 if healthy else 1
    c = status.counts
    print(f"database: {status.database}")
    print(f"embedding model: {status.embedding_model or '(none yet)'}")
    if status.companion_model:
        print(f"  beside it, for other languages: {status.companion_model}")
    if status.vectors_paused:
        waiting = status.counts.pending_embedding
        print(f"vectors: paused in Settings ({waiting} passages wait; keyword search works)")
    if status.vectors:
        print(f"vectors: {_where(status.vectors)}")
    print(
        f"folders {c.folders}, notes {c.notes}, chunks {c.chunks}, "
        f"pending embedding {c.pending_embedding}, skipped {c.skipped}, failed {c.failed}"
    )
    for f in status.listed_files():
        if f.status != NoteStatus.INDEXED or f.reason or f.ocr_pages:
            said = "; ".join(printable(x) for x in (f.read_by_ocr, f.reason) if x)
            print(f"  {f.status}: {printable(f.path)}{f' — {said}' if said else ''}")
    problems = "not checked" if integrity is None else "; ".join(integrity.problems)
    print("integrity: " + ("ok" if healthy else f"PROBLEM: {problems}"))
    if status.recovery is not None:
        print(f"last repair ({status.recovery.at}): {status.recovery.message}")
    return 0 if healthy else 1


def _where(vectors: dict[str, object]) -> str:
    """Where the last embedding pass computed its vectors, as a line."""
    at, restarts = vectors.get("at", "?"), vectors.get("restarts", 0)
    if vectors.get("where") == "in-process":
        return f"{vectors.get('why', '')} (at {at})"
    started = vectors.get("started_by") or "?"
    return f"computed in the vector worker process ({started}; restarted {restarts}×) at {at}"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("status", help="database, counts, per-file status, integrity")
    p.add_argument("--json", action="store_true")
