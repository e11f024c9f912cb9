"""Indexing and search benchmark: Quire side by side with the raw libraries it builds on.

usage: python tests/bench/bench_index_search.py [--chunks 100000] [--queries 180]

1. Lexical indexing of the til notes: Quire (read, chunk, analyze, write) vs raw FTS5 inserts of
   the same chunk texts.                                            goal ≥ 0.5×
2. Embedding: Quire's embed phase vs raw SentenceTransformer.encode of the same texts.
                                                                    goal ≥ 0.9×
3. Hybrid search p50/p95 on ~100k chunks (the til notes replicated) vs raw FTS5 query + raw
   numpy scan + raw query encode.                                   goal ≤ 1.5×
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from desktop_app.core.service import Quire  # noqa: E402

TIL = ROOT.parent / "shared" / "eval" / "til-en"


def timed(fn):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - started


def chunk_texts(quire: Quire) -> list[str]:
    return [r[0] for r in quire.database.reader.execute("SELECT text FROM chunks ORDER BY id")]


def raw_fts_insert(texts: list[str], path: Path) -> float:
    conn = sqlite3.connect(path)
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text)")
    started = time.perf_counter()
    with conn:
        conn.executemany("INSERT INTO t (text) VALUES (?)", [(t,) for t in texts])
    elapsed = time.perf_counter() - started
    conn.close()
    return elapsed


def own_fts_rows_insert(quire: Quire, path: Path) -> float:
    """The same raw insert, but of Quire's own analysed 3-column FTS rows (stems, prefixes,
    context): what the FTS5 side of Quire's writes costs on its own."""
    db = quire.database.reader
    schema = db.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'").fetchone()[0]
    rows = db.execute("SELECT rowid, body, prefixes, context FROM chunks_fts").fetchall()
    conn = sqlite3.connect(path)
    conn.execute(schema.replace("chunks_fts", "t", 1))
    started = time.perf_counter()
    with conn:
        conn.executemany("INSERT INTO t (rowid, body, prefixes, context) VALUES (?, ?, ?, ?)", rows)
    elapsed = time.perf_counter() - started
    conn.close()
    return elapsed


def bench_lexical_indexing(work: Path) -> None:
    quire = Quire(work / "home-lex")
    quire.embedder.count_tokens("warm up the tokenizer")
    reports, quire_time = timed(lambda: quire.index([TIL / "notes"], embed=False))
    write_time = reports[0].report.write_seconds
    texts = chunk_texts(quire)
    raw_time = raw_fts_insert(texts, work / "raw.sqlite")
    own_rows_time = own_fts_rows_insert(quire, work / "own-rows.sqlite")
    n = len(texts)
    print(f"lexical indexing: {n} chunks from {TIL.name}/notes")
    print(
        f"  quire end to end {n / quire_time:8.0f} chunks/s  ({quire_time:.2f} s: read, parse, "
        "chunk, detect language, stem, write)"
    )
    print(
        f"  quire writes     {n / write_time:8.0f} chunks/s  ({write_time:.2f} s: notes, chunks, "
        "3-column FTS5, parts, one transaction per batch)"
    )
    print(f"  raw FTS5 inserts {n / raw_time:8.0f} chunks/s  ({raw_time:.2f} s)")
    print(
        f"  raw inserts of Quire's 3-column FTS rows {n / own_rows_time:8.0f} chunks/s  "
        f"({raw_time / own_rows_time:.2f}× the one-column raw insert)"
    )
    print(
        f"  ratio end to end {raw_time / quire_time:.2f}×, writes {raw_time / write_time:.2f}×  "
        "(goal ≥ 0.5×)"
    )
    quire.close()


def bench_embedding(work: Path, limit: int) -> None:
    quire = Quire(work / "home-embed")
    quire.index([TIL / "notes"], embed=False)
    from desktop_app.core.ingest import indexer
    from desktop_app.core.ingest.notes import PartPlanner

    embedder = quire.embedder
    planner = PartPlanner(embedder.token_offsets, embedder.max_tokens)
    planned, plan_time = timed(lambda: indexer.plan_parts(quire.database, planner))
    todo = indexer.pending_embeddings(quire.database)[:limit]
    keep = {h for h, _ in todo}
    with quire.database.write() as db:  # embed exactly these texts in both runs
        db.execute("CREATE TEMP TABLE keep (hash TEXT PRIMARY KEY)")
        db.conn.executemany("INSERT INTO keep VALUES (?)", [(h,) for h in keep])
        db.execute("DELETE FROM chunk_parts WHERE embed_hash NOT IN (SELECT hash FROM keep)")
    texts = [t for _, t in todo]
    model = quire.embedder.model
    model.encode(texts[:64])  # warm-up for both
    _, raw_time = timed(
        lambda: model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
    )
    embedded, quire_time = timed(lambda: quire.embed())
    print(f"embedding: {len(texts)} texts ({embedded} embedded by Quire)")
    print(f"  quire  {embedded / quire_time:8.1f} texts/s  ({quire_time:.1f} s, incl. writes)")
    print(f"  raw    {len(texts) / raw_time:8.1f} texts/s  ({raw_time:.1f} s, encode only)")
    print(f"  ratio  {raw_time / quire_time:.2f}×  (goal ≥ 0.9×)")
    share = plan_time * len(texts) / max(planned, 1)  # splitting these texts' chunks into parts
    print(
        f"  splitting chunks into embedder-sized parts (first step of the embedding pass): "
        f"{planned / plan_time:.0f} chunks/s; with its share for these texts the ratio is "
        f"{raw_time / (quire_time + share):.2f}×"
    )
    quire.close()


def replicate_til(target: Path, copies: int) -> None:
    for i in range(copies):
        shutil.copytree(TIL / "notes", target / f"copy{i:03d}", ignore=shutil.ignore_patterns(".*"))


def questions(n: int) -> list[str]:
    lines = (TIL / "questions.jsonl").read_text("utf-8").splitlines()
    qs = [json.loads(x)["question"] for x in lines]
    return (qs * (n // len(qs) + 1))[:n]


def percentile(values: list[float], p: float) -> float:
    return float(np.percentile(np.array(values) * 1000, p))


def bench_search(work: Path, target_chunks: int, n_queries: int) -> None:
    quire = Quire(work / "home-search")
    probe = Quire(work / "home-probe")
    probe.index([TIL / "notes"], embed=False)
    per_copy = probe.database.reader.execute("SELECT count(*) FROM chunks").fetchone()[0]
    probe.close()
    copies = max(1, round(target_chunks / per_copy))
    folder = work / "big"
    replicate_til(folder, copies)
    _, index_time = timed(lambda: quire.index([folder]))
    texts_ids = quire.database.reader.execute("SELECT id, text FROM chunks").fetchall()
    print(
        f"hybrid search: {len(texts_ids)} chunks ({copies} copies of til), indexed in "
        f"{index_time:.0f} s"
    )
    raw_db = work / "raw-search.sqlite"
    conn = sqlite3.connect(raw_db)
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text)")
    with conn:
        conn.executemany("INSERT INTO t (rowid, text) VALUES (?, ?)", texts_ids)
    searcher = quire.searcher
    searcher.vectors.refresh(quire.database.reader)
    matrix = searcher.vectors._matrix.copy()
    model = quire.embedder.model
    qs = questions(n_queries)
    for q in qs[:5]:  # warm-up
        quire.search(q)
    ours, raw = [], []
    for q in qs:
        _, t = timed(lambda q=q: quire.search(q))
        ours.append(t)
        raw.append(raw_search_once(conn, matrix, model, q))
    p50, p95 = percentile(ours, 50), percentile(ours, 95)
    r50, r95 = percentile(raw, 50), percentile(raw, 95)
    print(f"  quire  p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  ({len(qs)} queries)")
    print(f"  raw    p50 {r50:7.1f} ms  p95 {r95:7.1f} ms  (FTS5 OR query + numpy scan + encode)")
    print(f"  ratio  p50 {p50 / r50:.2f}×  p95 {p95 / r95:.2f}×  (goal ≤ 1.5×)")
    conn.close()
    quire.close()


def raw_search_once(conn: sqlite3.Connection, matrix: np.ndarray, model, q: str) -> float:  # type: ignore[no-untyped-def]
    import re

    words = [w for w in re.findall(r"\w+", q.lower())]
    match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    started = time.perf_counter()
    conn.execute(
        "SELECT rowid, rank FROM t WHERE t MATCH ? ORDER BY rank LIMIT 60", (match,)
    ).fetchall()
    vector = model.encode([q], normalize_embeddings=True, convert_to_numpy=True)[0]
    scores = matrix @ vector
    top = np.argpartition(-scores, 60)[:60]
    top[np.argsort(-scores[top])]
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=180)
    parser.add_argument("--embed-texts", type=int, default=1500)
    parser.add_argument("--only", choices=["lexical", "embedding", "search"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.only in (None, "lexical"):
            bench_lexical_indexing(work)
        if args.only in (None, "embedding"):
            bench_embedding(work, args.embed_texts)
        if args.only in (None, "search"):
            bench_search(work, args.chunks, args.queries)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
