"""Indexing and search benchmark: Quire side by side with the raw libraries it builds on.

usage: python tests/bench/bench_index_search.py [--chunks 100000] [--queries 180] [--runs 5]
                                                [--embed-texts 1500] [--only STAGE] [--til DIR]
                                                [--embedder default|multilingual-e5-small]

1. Lexical indexing of the til notes: Quire end to end (read, chunk, analyze, write), its lexical
   stage (terms + writes) and the floors of its schema vs raw FTS5 inserts of the same chunk
   texts.                                                           goal ≥ 0.5×
2. Embedding: Quire's embed phase vs the raw encode of the same texts by the same model
   (SentenceTransformer.encode, or the NumPy encoder for a packed model; the model's passage
   prompt on both sides), and the process's peak RSS after it.  goal ≥ 0.9×
3. Hybrid search p50/p95 on ~100k chunks (the til notes replicated) vs raw FTS5 query + raw
   numpy scan + raw query encode.                                   goal ≤ 1.5×
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from desktop_app import paths  # noqa: E402
from desktop_app.core.api import Quire  # noqa: E402
from desktop_app.core.ingest import (  # noqa: E402
    embed_pass,
    formats,
    loaders,
    note_analysis,
    vector_worker,
)
from desktop_app.core.ingest.chunker import chunk_note  # noqa: E402
from desktop_app.core.ingest.document import Document  # noqa: E402
from desktop_app.core.retrieval import analyzer  # noqa: E402
from desktop_app.core.retrieval.embedder import Embedder, model_path_for  # noqa: E402
from desktop_app.core.store.db import Database  # noqa: E402
from desktop_app.core.tokens import count_tokens  # noqa: E402
from desktop_app.settings import Settings  # noqa: E402

TIL = ROOT.parent / "shared" / "eval" / "til-en"
T = TypeVar("T")


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    started = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - started


def chunk_texts(quire: Quire) -> list[str]:
    return [r[0] for r in quire.database.query("SELECT text FROM chunks ORDER BY id")]


def raw_fts_insert(texts: list[str], path: Path) -> float:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text)")
    started = time.perf_counter()
    with conn:
        conn.executemany("INSERT INTO t (text) VALUES (?)", [(t,) for t in texts])
    elapsed = time.perf_counter() - started
    conn.close()
    return elapsed


def rows_only_insert(quire: Quire, path: Path, tables: tuple[str, ...]) -> float:
    """Bulk-insert rows Quire wrote, copied as they are into a fresh Quire database (same schema,
    one transaction, no Python work in between): a floor for any writer of that schema."""
    rows = {}
    for table in tables:
        columns = "rowid, body, prefixes, context" if table == "chunks_fts" else "*"
        rows[table] = quire.database.query(f"SELECT {columns} FROM {table}")
    target = Database(path)
    started = time.perf_counter()
    with target.write() as db:
        for table, table_rows in rows.items():
            if not table_rows:
                continue
            marks = ", ".join("?" for _ in table_rows[0])
            columns = "(rowid, body, prefixes, context)" if table == "chunks_fts" else ""
            db.conn.executemany(f"INSERT INTO {table} {columns} VALUES ({marks})", table_rows)
    elapsed = time.perf_counter() - started
    target.close()
    return elapsed


def read_notes(folder: Path) -> list[tuple[str, Document]]:
    """(relative path, document) of every non-empty note, read once for the stage timings."""
    out = []
    for path in loaders.walk_notes(folder, suffixes=formats.SUFFIXES):
        rel = loaders.relative_note_path(path, folder)
        document = formats.load(path, 20_000_000)
        if document.text.strip():
            out.append((rel, document))
    return out


def term_stage_seconds(texts: list[tuple[str, Document]]) -> float:
    """Quire's lexical stage on its own: stems, prefixes and context terms of every chunk, from
    chunks already cut (the term caches start empty, as on a first index)."""
    inputs = []
    for rel, text in texts:
        analyzed = note_analysis.analyze_note(rel, text, 200)
        chunks = [c.chunk for c in analyzed.chunks]
        tags = note_analysis.metadata_terms(analyzed.metadata)
        inputs.append((chunks, analyzed.title, analyzed.language, tags))
    analyzer.clear_caches()
    started = time.perf_counter()
    for chunks, title, language, tags in inputs:
        note_analysis.chunk_terms(chunks, title, language, tags)
    return time.perf_counter() - started


def word_split_seconds(texts: list[str]) -> float:
    """The least any Python-side analysis does: case-fold each chunk and split it into words
    (both C-level string operations), nothing stemmed, nothing written."""
    started = time.perf_counter()
    for text in texts:
        analyzer.words(text)
    return time.perf_counter() - started


def chunking_seconds(texts: list[tuple[str, Document]]) -> float:
    """Only cutting the notes into chunks (Markdown structure + tiktoken sizing), from texts
    already read: work any ingest of this design does before a term exists."""
    started = time.perf_counter()
    for _, doc in texts:
        chunk_note(doc.text, count_tokens, 200, doc.markdown, doc.headings)
    return time.perf_counter() - started


def raw_model(quire: Quire) -> Any:
    """The model Quire's default embedder runs (sentence-transformers or the NumPy encoder), for
    the raw baselines."""
    embedder = quire.embedder
    if not isinstance(embedder, Embedder):
        raise SystemExit(f"the raw baseline needs the default embedder, not {embedder!r}")
    return embedder.model


def bench_lexical_indexing(work: Path, runs: int, til: Path) -> None:
    """Median of `runs` first indexings of the til notes, each into an empty database."""
    warm = Quire.open(
        work / "home-warm"
    )  # one-time loads (tiktoken ranks, language model, stemmers)
    warm.index([paths.sample_notes()], embed=False)
    warm.close()
    note_texts = read_notes(til / "notes")
    measured: dict[str, list[float]] = {}
    for run in range(runs):
        analyzer.clear_caches()
        quire = Quire.open(work / f"home-lex{run}")
        reports, quire_time = timed(partial(quire.index, [til / "notes"], embed=False))
        texts = chunk_texts(quire)
        times = {
            "end to end": quire_time,
            "writes": reports[0].report.write_seconds,
            "terms": term_stage_seconds(note_texts),
            "raw": raw_fts_insert(texts, work / f"raw{run}.sqlite"),
            "floor words": word_split_seconds(texts),
            "floor chunking": chunking_seconds(note_texts),
            "floor fts": rows_only_insert(quire, work / f"fts{run}.sqlite", ("chunks_fts",)),
            "floor all": rows_only_insert(
                quire, work / f"all{run}.sqlite", ("folders", "notes", "chunks", "chunks_fts")
            ),
        }
        times["lexical stage"] = times["terms"] + times["writes"]
        for key, value in times.items():
            measured.setdefault(key, []).append(value)
        quire.close()
    t = {key: statistics.median(values) for key, values in measured.items()}
    n, raw = len(texts), t["raw"]

    def line(label: str, key: str, what: str) -> None:
        rate, ratio = n / t[key], raw / t[key]
        print(f"  {label:<38} {rate:8.0f} chunks/s  {ratio:5.2f}×  ({t[key]:.3f} s: {what})")

    print(f"lexical indexing: {n} chunks from {til.name}/notes, median of {runs} first indexings")
    line("raw FTS5 inserts of the chunk texts", "raw", "one column, one transaction")
    line("quire end to end", "end to end", "scan, read, parse, chunk, language, terms, write")
    line("quire lexical stage", "lexical stage", "terms + the write transactions")
    line("  terms only", "terms", "stems, prefixes, context of every chunk")
    line("  write transactions only", "writes", "notes, chunks, 3-column FTS5 rows")
    line("floor: Quire's FTS5 rows, copied", "floor fts", "stems + prefixes + context columns")
    line("floor: all rows Quire writes, copied", "floor all", "notes, chunks with text, FTS5")
    line("floor: splitting the texts into words", "floor words", "casefold + regex, in Python")
    line("floor: cutting the notes into chunks", "floor chunking", "Markdown + tiktoken sizing")
    print("  goal ≥ 0.5× (ratios are raw time / Quire time)")


def bench_embedding(work: Path, limit: int, til: Path, setting: str = "") -> None:
    chosen = model_path_for(setting)
    # one model's pass against its raw encode (the companion's has its own run, --embedder)
    alone = Settings(multilingual_companion=False)
    quire = Quire.open(work / "home-embed", alone, embedder=Embedder(chosen) if chosen else None)
    quire.index([til / "notes"], embed=False)
    embedder = quire.embedder
    planner = note_analysis.PartPlanner(embedder.token_offsets, embedder.max_tokens)
    planned, plan_time = timed(lambda: embed_pass.plan_parts(quire.database, planner))
    todo = embed_pass.pending_embeddings(quire.database)[:limit]
    keep = {h for h, _ in todo}
    with quire.database.write() as db:  # embed exactly these texts in both runs
        db.execute("CREATE TEMP TABLE keep (hash TEXT PRIMARY KEY)")
        db.conn.executemany("INSERT INTO keep VALUES (?)", [(h,) for h in keep])
        # Chunks with no kept part go (or the embedding pass would plan and embed them again);
        # a kept chunk's other parts go too (it still has parts, so it is not planned again).
        db.execute(
            "DELETE FROM chunks WHERE id NOT IN"
            " (SELECT chunk_id FROM chunk_parts WHERE embed_hash IN (SELECT hash FROM keep))"
        )
        db.execute("DELETE FROM chunk_parts WHERE embed_hash NOT IN (SELECT hash FROM keep)")
    texts = [t for _, t in todo]
    model = raw_model(quire)
    assert isinstance(embedder, Embedder)  # raw_model said so
    prompted = [embedder.passage_prompt + t for t in texts]  # as the model is meant to read them
    model.encode(prompted[:64])  # warm-up for both: the raw model here, Quire's in its worker
    vector_worker.shared().encoder(embedder)(texts[:64])
    _, raw_time = timed(
        lambda: model.encode(
            prompted, batch_size=64, normalize_embeddings=True, convert_to_numpy=True
        )
    )
    embedded, quire_time = timed(lambda: quire.embed())
    print(f"embedding: {len(texts)} texts ({embedded} embedded by Quire) with {embedder.model_id}")
    print(f"  quire  {embedded / quire_time:8.1f} texts/s  ({quire_time:.1f} s, incl. writes)")
    print(f"  raw    {len(texts) / raw_time:8.1f} texts/s  ({raw_time:.1f} s, encode only)")
    print(f"  ratio  {raw_time / quire_time:.2f}×  (goal ≥ 0.9×)")
    share = plan_time * len(texts) / max(planned, 1)  # splitting these texts' chunks into parts
    print(
        f"  splitting chunks into embedder-sized parts (first step of the embedding pass): "
        f"{planned / plan_time:.0f} chunks/s; with its share for these texts the ratio is "
        f"{raw_time / (quire_time + share):.2f}×"
    )
    print(f"  peak RSS of this process (model, texts, both runs): {peak_rss_mb():.0f} MB")
    quire.close()
    assert embedded == len(texts), "Quire must embed exactly the texts the raw run encoded"


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def replicate_til(target: Path, copies: int, til: Path) -> None:
    for i in range(copies):
        shutil.copytree(til / "notes", target / f"copy{i:03d}", ignore=shutil.ignore_patterns(".*"))


def questions(n: int, til: Path) -> list[str]:
    lines = (til / "questions.jsonl").read_text("utf-8").splitlines()
    qs = [json.loads(x)["question"] for x in lines]
    return (qs * (n // len(qs) + 1))[:n]


def percentile(values: list[float], p: float) -> float:
    return float(np.percentile(np.array(values) * 1000, p))


def bench_search(work: Path, target_chunks: int, n_queries: int, til: Path) -> None:
    quire = Quire.open(work / "home-search")
    probe = Quire.open(work / "home-probe")
    probe.index([til / "notes"], embed=False)
    per_copy = probe.database.query("SELECT count(*) FROM chunks")[0][0]
    probe.close()
    copies = max(1, round(target_chunks / per_copy))
    folder = work / "big"
    replicate_til(folder, copies, til)
    _, index_time = timed(lambda: quire.index([folder]))
    texts_ids = quire.database.query("SELECT id, text FROM chunks")
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
    with quire.database.read() as db:
        searcher.vectors.refresh(db)
    # the same dense work as Quire's: each model's query encode and scan (the index's model,
    # and the multilingual companion beside it by default)
    spaces = [(searcher.vectors.matrix.copy(), raw_model(quire), "")]
    companion = searcher.companion
    if isinstance(companion, Embedder):
        with quire.database.read() as db:
            searcher.companion_vectors.refresh(db)
        spaces.append((searcher.companion_vectors.matrix.copy(), companion.model,
                       companion.query_prompt))  # fmt: skip
        print(f"  beside the index's model: {companion.model_id} (its own scan, also in raw)")
    qs = questions(n_queries, til)
    for q in qs[:5]:  # warm-up
        quire.search(q)
    ours, raw = [], []
    for q in qs:
        _, t = timed(partial(quire.search, q))
        ours.append(t)
        raw.append(raw_search_once(conn, spaces, q))
    p50, p95 = percentile(ours, 50), percentile(ours, 95)
    r50, r95 = percentile(raw, 50), percentile(raw, 95)
    print(f"  quire  p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  ({len(qs)} queries)")
    print(f"  raw    p50 {r50:7.1f} ms  p95 {r95:7.1f} ms  (FTS5 OR query + numpy scan + encode)")
    print(f"  ratio  p50 {p50 / r50:.2f}×  p95 {p95 / r95:.2f}×  (goal ≤ 1.5×)")
    conn.close()
    quire.close()


def raw_search_once(
    conn: sqlite3.Connection, spaces: list[tuple[np.ndarray, Any, str]], q: str
) -> float:
    import re

    words = [w for w in re.findall(r"\w+", q.lower())]
    match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    started = time.perf_counter()
    conn.execute(
        "SELECT rowid, rank FROM t WHERE t MATCH ? ORDER BY rank LIMIT 60", (match,)
    ).fetchall()
    for matrix, model, prompt in spaces:
        vector = model.encode([prompt + q], normalize_embeddings=True, convert_to_numpy=True)[0]
        scores = matrix @ vector
        top = np.argpartition(-scores, min(60, len(scores) - 1))[:60]
        top[np.argsort(-scores[top])]
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=180)
    parser.add_argument("--embed-texts", type=int, default=1500)
    parser.add_argument("--only", choices=["lexical", "embedding", "search"])
    parser.add_argument("--runs", type=int, default=5, help="lexical indexing runs (median)")
    parser.add_argument("--til", type=Path, default=TIL, help="the til-en set's folder")
    parser.add_argument("--embedder", default="", help="a Settings value (embedding stage)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.only in (None, "lexical"):
            bench_lexical_indexing(work, args.runs, args.til)
        if args.only in (None, "embedding"):
            bench_embedding(work, args.embed_texts, args.til, args.embedder)
        if args.only in (None, "search"):
            bench_search(work, args.chunks, args.queries, args.til)
    return 0


if __name__ == "__main__":
    from tests.bench.page import record

    raise SystemExit(record(main, "bench_index_search"))
