"""Passage vectors in their own process: the same vectors, a crash that loses nothing, a worker
that cannot start, and a window process that never loads torch (real processes, real model)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop_app.core import processes
from desktop_app.core.api import Quire, Watching
from desktop_app.core.cancel import Phase, Progress
from desktop_app.core.ingest import vector_worker
from desktop_app.core.ingest.note_analysis import PartPlanner
from desktop_app.core.ingest.vector_worker import VectorWorker
from desktop_app.core.retrieval.embedder import Embedder, multilingual_model_path
from desktop_app.paths import sample_notes

pytestmark = pytest.mark.slow

TEXTS = [f"Passage {i}: the sourdough rests {i} hours before it is baked." for i in range(40)]


def test_the_worker_returns_the_vectors_this_process_would_compute() -> None:
    embedder = Embedder()
    worker = VectorWorker()
    try:
        vectors = worker.encoder(embedder)(TEXTS)
        state = worker.state
        assert state.where == "worker" and state.pid not in (None, os.getpid())
    finally:
        worker.close()
    assert np.allclose(vectors, embedder.encode(TEXTS), atol=1e-5)
    assert np.allclose(vectors, embedder.encode_few(TEXTS), atol=1e-4)  # the window's NumPy path


class _Announcing:
    """A worker's pipe that sets `sent` once a batch has gone through it."""

    def __init__(self, conn: Any, sent: threading.Event) -> None:
        self.conn, self.sent = conn, sent

    def send(self, request: object) -> None:
        self.conn.send(request)
        self.sent.set()

    def recv(self) -> Any:
        return self.conn.recv()

    def close(self) -> None:
        self.conn.close()


def test_a_worker_killed_mid_batch_is_started_again_and_the_batch_sent_again() -> None:
    embedder = Embedder()
    worker = VectorWorker()
    try:
        worker.encode(embedder, TEXTS[:2])  # running, its model loaded
        first = worker.state.pid
        assert first is not None
        sent = threading.Event()
        conns = worker._conns
        assert conns is not None
        conns[vector_worker.BULK] = _Announcing(conns[vector_worker.BULK], sent)  # type: ignore[call-overload]
        result: list[np.ndarray] = []
        batch = threading.Thread(target=lambda: result.append(worker.encode(embedder, TEXTS * 2)))
        batch.start()
        assert sent.wait(60)
        os.kill(first, signal.SIGKILL)  # while it encodes: its answer never comes
        batch.join(120)
        assert result and result[0].shape == (len(TEXTS) * 2, embedder.dimension)
        assert worker.state.restarts == 1 and worker.state.pid not in (None, first)
        assert np.allclose(result[0][: len(TEXTS)], embedder.encode(TEXTS), atol=1e-5)
    finally:
        worker.close()


def test_killing_the_worker_while_indexing_loses_nothing_and_embeds_nothing_twice(
    tmp_path: Path,
) -> None:
    quire = Quire.open(tmp_path / "home", embedder=Embedder())
    worker = vector_worker.shared()
    killed: list[int] = []
    restarts = worker.state.restarts

    def kill_once(progress: Progress) -> None:
        if progress.phase == Phase.EMBED and progress.done > 0 and not killed:
            pid = worker.state.pid
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    try:
        quire.index([sample_notes()], progress=kill_once)
        status = quire.status()
        assert killed and worker.state.restarts == restarts + 1
        assert status.counts.pending_embedding == 0
        assert status.vectors is not None and status.vectors["where"] == "worker"  # quire status
        assert status.vectors["restarts"] == restarts + 1
        with quire.database.read() as db:
            parts = db.execute("SELECT count(DISTINCT embed_hash) FROM chunk_parts").fetchone()[0]
            stored = db.execute("SELECT count(*) FROM embeddings").fetchone()[0]
        assert stored == parts  # each part's vector once
        assert (
            quire.search("Wie viel Salz kommt in das Sauerteigbrot?")[0].path == "recipes/bread.md"
        )
    finally:
        quire.close()


def test_a_worker_that_cannot_start_leaves_the_vectors_to_this_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tries: list[object] = []

    def cannot(*args: object, **options: object) -> object:
        tries.append(args)
        raise OSError("no processes here")

    monkeypatch.setattr(processes, "started", cannot)
    embedder = Embedder()
    worker = VectorWorker()
    vectors = worker.encode(embedder, TEXTS[:4])
    worker.encode(embedder, TEXTS[4:8])
    assert len(tries) == 1  # not tried again
    assert np.allclose(vectors, embedder.encode(TEXTS[:4]), atol=1e-6)
    state = worker.state
    assert state.where == "in-process" and "no processes here" in state.why
    assert "cannot start the vector worker" in state.why and "own process" in state.why


def test_plans_and_queries_from_the_worker_are_this_process_s() -> None:
    embedder = Embedder(multilingual_model_path())
    worker = VectorWorker()
    long_text = " ".join(f"Der Sauerteig ruht {i} Stunden im Kühlschrank." for i in range(120))
    chunks = [("Brot", ("Teig",), 0, long_text), ("Notes", (), 40, TEXTS[0])]
    try:
        planned = worker.planner(embedder).plan(chunks)
        vectors = worker.encode_now(embedder.path, ["query: Wie lange ruht der Teig?"])
    finally:
        worker.close()
    assert planned == PartPlanner(embedder.token_offsets, embedder.max_tokens).plan(chunks)
    assert len(planned[0]) > 1  # the long chunk was cut into parts
    assert np.allclose(vectors, embedder.encode_query(["Wie lange ruht der Teig?"]), atol=1e-6)


def test_a_query_is_answered_while_a_batch_of_passages_is_being_encoded() -> None:
    embedder = Embedder()
    worker = VectorWorker()
    sent = threading.Event()
    try:
        worker.encode(embedder, TEXTS[:2])
        conns = worker._conns
        assert conns is not None
        conns[vector_worker.BULK] = _Announcing(conns[vector_worker.BULK], sent)  # type: ignore[call-overload]
        batch = threading.Thread(target=worker.encode, args=(embedder, TEXTS * 100), daemon=True)
        batch.start()
        assert sent.wait(60)
        query = worker.encode_now(embedder.path, ["How long does the dough rest?"])
        assert batch.is_alive()  # 4,000 passages take minutes; the query did not wait for them
    finally:
        worker.close()
    assert np.allclose(query, embedder.encode_query(["How long does the dough rest?"]), atol=1e-6)


WINDOW_PROCESS = """
import sys
from pathlib import Path
from desktop_app.core.api import Quire, Watching
from desktop_app.core.retrieval import embedder
from desktop_app.paths import sample_notes
quire = Quire.open(Path(sys.argv[1]), models_in_worker=True)  # as the window opens it
quire.index([sample_notes()])
assert quire.search("Wie viel Salz kommt in das Sauerteigbrot?")[0].path == "recipes/bread.md"
events = list(quire.answers.ask("How much salt goes into the sourdough bread?", max_tokens=16))
assert events[-1].timings.completion_tokens > 0, events[-1]  # the chat model's process wrote
assert quire.status().counts.pending_embedding == 0
models = [quire.searcher.embedder, quire.searcher.companion]
tokenizers = [m.path.name for m in models if "_tokenizer" in vars(m)]
heavy = sorted(m for m in ("torch", "sentence_transformers", "llama_cpp") if m in sys.modules)
quire.close()
print(heavy, embedder._MODELS, tokenizers)
"""


def test_the_window_process_loads_no_model_to_index_search_and_answer(
    tmp_path: Path,
) -> None:
    run = subprocess.run(
        [sys.executable, "-c", WINDOW_PROCESS, str(tmp_path / "home")],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "QUIRE_HOME": str(tmp_path / "home")},
    )
    assert run.returncode == 0, run.stderr[-2000:]
    # the worker planned the parts and encoded the queries: no model, no tokenizer loaded here
    assert run.stdout.strip().splitlines()[-1] == "[] {} []"


def test_pausing_stops_the_vectors_after_the_batch_in_hand_and_resuming_finishes_them(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(150):  # a few batches in each vector space
        text = f"# Note {i}\n\nThe kettle number {i} whistles at dawn beside jar {i * 7 + 1000}.\n"
        (notes / f"n{i:03}.md").write_text(text, "utf-8")
    quire = Quire.open(tmp_path / "home", embedder=Embedder())
    embedded = threading.Event()

    def on_progress(progress: Progress) -> None:
        if progress.phase == Phase.EMBED and progress.done > 0:
            embedded.set()

    try:
        quire.live.watch(notes)
        quire.live.start(Watching(progress=on_progress))
        assert embedded.wait(300), "no batch of vectors came back"
        quire.live.pause()
        time.sleep(5)  # the batch in hand comes back and is stored; no other is sent
        paused_at = quire.status(False).counts.pending_embedding
        time.sleep(3)
        assert quire.status(False).counts.pending_embedding == paused_at > 0
        quire.live.resume()
        deadline = time.monotonic() + 300
        while quire.status(False).counts.pending_embedding and time.monotonic() < deadline:
            time.sleep(0.5)
        assert quire.status(False).counts.pending_embedding == 0
        found = quire.search("kettle number 42 whistles")
        assert found and found[0].path == "n042.md"
    finally:
        quire.close()
