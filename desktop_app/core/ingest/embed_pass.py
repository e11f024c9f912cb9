"""The embedding pass: plan the parts of new chunks, then encode every part text that has no
vector yet (vectors are stored by the hash of their text, so nothing is encoded twice)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from desktop_app.core.cancel import CancelToken, Phase, Progress, ProgressCallback, no_progress
from desktop_app.core.ingest.note_analysis import Planner, embedding_input
from desktop_app.core.store import meta, vectors
from desktop_app.core.store.db import Database

EMBED_BATCH = 64
Encode = Callable[[list[str]], np.ndarray]


def use_embedding_model(
    database: Database, model_id: str, dimension: int, space: vectors.Space = vectors.MAIN
) -> bool:
    """Record the model; a different model than before, or vectors of another dimension than
    the model makes, drops all vectors and parts (they follow its tokenizer and limit, and are
    embedded again). True if it changed."""
    with database.write() as db:
        keys = (space.model_key, space.dimension_key)
        current, recorded_dim = meta.embedding_model(db, keys)
        if current == model_id and recorded_dim == str(dimension):
            return False
        vectors.drop_all(db, space)
        meta.set_embedding_model(db, model_id, dimension, keys)
    return current is not None


def forget_space(database: Database, space: vectors.Space) -> None:
    """Drop a vector space no model uses any more (the companion beside a model that reads
    every language), and its model's record."""
    with database.write() as db:
        if meta.read_meta(db, space.model_key) is not None:
            vectors.forget(db, space)


def pending_embeddings(
    database: Database, space: vectors.Space = vectors.MAIN
) -> list[tuple[str, str]]:
    """(embed_hash, embedding input) for chunks without a vector, recently edited notes first."""
    out: dict[str, str] = {}
    with database.read() as db:
        pending = vectors.pending_parts(db, space)
    for hash_, title, heading_json, text, part, parts in pending:
        if hash_ not in out:
            heading = tuple(json.loads(heading_json or "[]"))
            out[hash_] = embedding_input(title or "", heading, text, part, parts)
    return list(out.items())


def plan_parts(
    database: Database,
    planner: Planner,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    batch: int = 512,
    space: vectors.Space = vectors.MAIN,
) -> int:
    """Give every chunk without embedding parts its parts; returns how many chunks got them."""
    cancel = cancel or CancelToken()
    with database.read() as db:
        rows = vectors.unplanned_chunks(db, space)
    for i in range(0, len(rows), batch):
        cancel.raise_if_cancelled()
        chunks = rows[i : i + batch]
        planned = planner.plan(
            [(name or "", tuple(json.loads(head or "[]")), a, t) for _, name, head, a, t in chunks]
        )
        part_rows: list[vectors.PartRow] = []
        for (chunk_id, _, _, _, text), parts in zip(chunks, planned, strict=True):
            part_rows.extend(
                (chunk_id, p.number, p.count, p.start, p.end, hash_, chunk_id, text)
                for p, hash_ in parts
            )
        with database.write() as db:
            vectors.insert_parts(db, part_rows, space)
        progress(Progress(Phase.PARTS, min(i + batch, len(rows)), len(rows)))
    return len(rows)


def embed_pending(
    database: Database,
    encode: Encode,
    planner: Planner,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    batch: int = EMBED_BATCH,
    space: vectors.Space = vectors.MAIN,
) -> int:
    """Plan parts for new chunks, then encode every part text that has no vector yet; each
    batch commits on its own."""
    cancel = cancel or CancelToken()
    plan_parts(database, planner, progress, cancel, space=space)
    todo = _length_sorted_windows(pending_embeddings(database, space))
    if todo:
        progress(Progress(Phase.EMBED, 0, len(todo)))
    done = 0
    batches = [todo[i : i + batch] for i in range(0, len(todo), batch)]
    for part, encoded in _encoded_ahead(encode, batches, cancel):
        with database.write() as db:
            pairs = [(h, v.tobytes()) for (h, _), v in zip(part, encoded, strict=True)]
            vectors.insert_vectors(db, pairs, space=space)
        done += len(part)
        progress(Progress(Phase.EMBED, done, len(todo)))
    drop_orphan_embeddings(database, space)
    return done


def _encoded_ahead(
    encode: Encode, batches: list[list[tuple[str, str]]], cancel: CancelToken
) -> Iterator[tuple[list[tuple[str, str]], np.ndarray]]:
    """Each batch with its vectors, in order. The next batch is being encoded (by the vector
    worker, or on a thread of its own here) while this one is written, so the model never
    waits for the database. A cancel stops before the next batch is sent; the one in flight
    finishes unseen."""
    if not batches:
        return
    ahead = ThreadPoolExecutor(1, thread_name_prefix="quire-encode")
    try:
        cancel.raise_if_cancelled()
        future = ahead.submit(encode, [text for _, text in batches[0]])
        for i, part in enumerate(batches):
            encoded = future.result()
            cancel.raise_if_cancelled()
            if i + 1 < len(batches):
                future = ahead.submit(encode, [text for _, text in batches[i + 1]])
            yield part, encoded
    finally:
        ahead.shutdown(wait=False, cancel_futures=True)


def _length_sorted_windows(
    todo: list[tuple[str, str]], window: int = 2048
) -> list[tuple[str, str]]:
    """Keep the recently-edited-first order across windows, but sort by length inside each, so
    batches hold texts of similar length and the model pads little."""
    out: list[tuple[str, str]] = []
    for i in range(0, len(todo), window):
        out.extend(sorted(todo[i : i + window], key=lambda item: len(item[1])))
    return out


def drop_orphan_embeddings(database: Database, space: vectors.Space = vectors.MAIN) -> None:
    """Drop vectors no part uses (see `vectors.drop_orphan_vectors`)."""
    with database.write() as db:
        vectors.drop_orphan_vectors(db, space)
