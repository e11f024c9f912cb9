"""Races between threads, provoked by stress (many rounds, a tiny GIL switch interval), never
by sleeps: each test fails on the code before its fix."""

from __future__ import annotations

import itertools
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np
import pytest
import sqlite_utils

from desktop_app.core.ingest.indexer import IndexOptions
from desktop_app.core.ingest.watcher import LiveIndex
from desktop_app.core.retrieval.dense import VectorIndex
from desktop_app.core.store.db import Database

DIM = 8


@pytest.fixture
def switch_often() -> Iterator[None]:
    """Let threads take turns every few microseconds instead of every 5 ms."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def no_embedding(*_args: object, **_kwargs: object) -> int:
    return 0


def test_changing_the_folder_list_never_hides_a_kept_folder_from_another_thread(
    tmp_path: Path, switch_often: None
) -> None:
    """The GUI thread removes and adds folders while the watchdog thread maps event paths to
    folders: a folder that stays must be found every time (a list changed while another thread
    iterates it skips the element after a removed one)."""
    kept = tmp_path / "kept"
    others = [tmp_path / f"other{i}" for i in range(20)]
    for folder in (kept, *others):
        folder.mkdir()
    database = Database(tmp_path / "q.sqlite")
    live = LiveIndex(database, [*others, kept], lambda _: IndexOptions(), no_embedding)
    note = str(kept.resolve() / "note.md")
    rounds, missed = 150, []
    start, end, churned = threading.Barrier(2), threading.Barrier(2), threading.Event()

    def watchdog_thread() -> None:
        for _ in range(rounds):
            start.wait()
            while not churned.is_set():
                if live._locate(note) is None:
                    missed.append(1)
            end.wait()

    thread = threading.Thread(target=watchdog_thread)
    thread.start()
    try:
        for _ in range(rounds):
            start.wait()
            for folder in others:  # each removal shifts `kept` one place to the front
                live.remove_folder(folder)
            churned.set()
            end.wait()
            churned.clear()
            for folder in (*others, kept):  # the same order again for the next round
                live.remove_folder(folder)
                live.add_folder(folder)
            live._removals.clear()  # nobody applies them: the live index is not started
    finally:
        churned.set()
        thread.join()
        database.close()
    assert missed == []


def _vectors_db(first_id: int, count: int, version: str) -> tuple[sqlite_utils.Database, dict]:
    """Just the tables VectorIndex reads: `count` random unit vectors for chunks from
    `first_id`, and a data version of their own."""
    db = sqlite_utils.Database(memory=True)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("CREATE TABLE chunk_parts (chunk_id INTEGER, part INTEGER, embed_hash TEXT)")
    db.execute("CREATE TABLE embeddings (hash TEXT PRIMARY KEY, vector BLOB)")
    db.execute("CREATE TABLE chunks (id INTEGER PRIMARY KEY, note_id INTEGER)")
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, language TEXT)")
    db.execute("INSERT INTO notes VALUES (1, 'en')")
    db.execute("INSERT INTO meta VALUES ('data_version', ?)", (version,))
    rng = np.random.default_rng(first_id)
    expected = {}
    for chunk_id in range(first_id, first_id + count):
        vector = rng.normal(size=DIM).astype(np.float32)
        vector /= np.linalg.norm(vector)
        expected[chunk_id] = vector
        db.execute("INSERT INTO chunk_parts VALUES (?, 0, ?)", (chunk_id, str(chunk_id)))
        db.execute("INSERT INTO chunks VALUES (?, 1)", (chunk_id,))
        db.execute("INSERT INTO embeddings VALUES (?, ?)", (str(chunk_id), vector.tobytes()))
    return db, expected


def _between_every_step(
    target: Callable[[], None], code: Any, step: Callable[[], None]
) -> Callable[[], None]:
    """Run `target` with `step()` called between every two bytecodes of `code`: the worst a
    thread switch can do (a free-threaded Python switches anywhere; this one only rarely
    inside a few bytecodes, which is how such a race hides for months)."""

    def per_opcode(frame: FrameType, event: str, arg: object) -> Any:
        if event == "opcode":
            step()
        return per_opcode

    def on_call(frame: FrameType, event: str, arg: object) -> Any:
        if frame.f_code is code:
            frame.f_trace_opcodes = True
            return per_opcode
        return None

    def run() -> None:
        sys.settrace(on_call)
        try:
            target()
        finally:
            sys.settrace(None)

    return run


def test_a_search_racing_a_refresh_never_pairs_ids_with_another_matrix() -> None:
    """Another thread refreshes to another set of vectors (3, 40 or 17 of them) at every step
    of a search: every hit must be a chunk of one set, with its own vector's score."""
    index = VectorIndex()
    query = np.ones(DIM, dtype=np.float32) / np.sqrt(DIM, dtype=np.float32)
    expected: dict[int, np.ndarray] = {}
    wanted, served, finished = threading.Event(), threading.Event(), threading.Event()
    errors: list[str] = []

    def refresher() -> None:  # owns the two databases (an SQLite connection stays in its thread)
        sets = [_vectors_db(1000 * n, size, str(n)) for n, size in ((1, 3), (2, 40), (3, 17))]
        for _, vectors in sets:
            expected.update(vectors)
        index.refresh(sets[0][0])
        served.set()
        for n in itertools.count():
            wanted.wait()
            wanted.clear()
            if finished.is_set():
                return
            index.refresh(sets[(n + 1) % len(sets)][0])
            served.set()

    def refresh_now() -> None:
        served.clear()
        wanted.set()
        served.wait(5)  # a search holding the refresh lock would wait forever: go on then

    def searcher() -> None:
        for _ in range(30):
            try:
                hits = index.search(query, 5)
            except (IndexError, ValueError) as exc:  # ids of one set, rows of the other
                errors.append(f"{type(exc).__name__}: {exc}")
                continue
            sets = {hit.chunk_id // 1000 for hit in hits}
            wrong = [h for h in hits if abs(h.score - float(expected[h.chunk_id] @ query)) > 1e-4]
            if len(sets) > 1 or wrong or not hits:
                errors.append(f"{len(sets)} sets, {len(wrong)} wrong scores, {len(hits)} hits")

    thread = threading.Thread(target=refresher)
    thread.start()
    served.wait()
    search = threading.Thread(
        target=_between_every_step(searcher, VectorIndex.search.__code__, refresh_now)
    )
    search.start()
    search.join()
    finished.set()
    wanted.set()
    thread.join()
    assert errors == []
