"""Notes read and analyzed ahead in worker processes: the same index as when read in the
indexer's process, one bad note failing alone, a stopped worker losing nothing, and no worker
left behind (real processes). A large first index read quickly (each note one passage), then
in full: the same index in the end."""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import struct
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.api import Quire
from desktop_app.core.cancel import Cancelled, CancelToken, Phase, Progress
from desktop_app.core.ingest import analysis_pool, indexer
from desktop_app.core.live import Watching
from desktop_app.core.store.db import Database
from desktop_app.core.store.notes import QUICK_HASH
from tests.support.fakes import FakeEmbedder
from tests.support.index_rows import index_rows
from tests.support.wait import wait_for

NOTES = 80  # above analysis_pool.MIN_FILES: read ahead by the pool


def _vault(folder: Path) -> Path:
    folder.mkdir()
    for i in range(NOTES):
        text = (
            f"# Poznámka {i}\n\nDnes jsme pekli chléb číslo {i} při 230 °C.\n\n"
            f"## Teig\n\nDer Sauerteig ruht {i % 12} Stunden; tag #bake{i % 3}.\n"
        )
        (folder / f"n{i:03}.md").write_text(text, "utf-8")
    (folder / "empty.md").write_text("   \n", "utf-8")
    (folder / "latin1.txt").write_bytes("Grüße aus Brno".encode("latin-1"))
    return folder


def _indexed(home: Path, notes: Path) -> Quire:
    quire = Quire.open(home, embedder=FakeEmbedder())
    quire.index([notes])
    return quire


def test_notes_read_by_the_pool_index_as_notes_read_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = _vault(tmp_path / "notes")
    pooled = _indexed(tmp_path / "pooled", notes)
    monkeypatch.setattr(analysis_pool, "MIN_FILES", 10**6)  # every note read here
    here = _indexed(tmp_path / "here", notes)
    try:
        assert index_rows(pooled) == index_rows(here)
        statuses = {f.path: (f.status, f.reason) for f in pooled.status().listed_files()}
        assert statuses["empty.md"] == ("skipped", "empty note")  # failed alone, with why
        assert statuses["n042.md"][0] == "indexed" and statuses["latin1.txt"][0] == "indexed"
        assert pooled.search("chléb 42")[0].path == "n042.md"
    finally:
        pooled.close()
        here.close()


def test_a_reader_that_stops_loses_no_note(tmp_path: Path) -> None:
    notes = _vault(tmp_path / "notes")
    killed: list[int] = []

    def kill_readers(progress: Progress) -> None:
        if progress.phase == Phase.INDEX and progress.done == 5 and not killed:
            for child in multiprocessing.active_children():
                if "Process-" in child.name:  # the pool's (the other workers have names)
                    os.kill(child.pid, signal.SIGKILL)  # type: ignore[arg-type]
                    killed.append(child.pid)  # type: ignore[arg-type]

    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder())
    try:
        quire.index([notes], progress=kill_readers)
        assert killed
        files = {f.path: f.status for f in quire.status().listed_files()}
        assert len(files) == NOTES + 2
        assert sum(status == "indexed" for status in files.values()) == NOTES + 1
        assert quire.search("chléb 77")[0].path == "n077.md"
    finally:
        quire.close()


def test_a_cancelled_run_leaves_no_reader_behind(tmp_path: Path) -> None:
    notes = _vault(tmp_path / "notes")
    cancel = CancelToken()
    before = {p.pid for p in multiprocessing.active_children()}

    def stop_early(progress: Progress) -> None:
        if progress.phase == Phase.INDEX and progress.done == 3:
            cancel.cancel()

    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder())
    try:
        with pytest.raises(Cancelled):
            quire.index([notes], progress=stop_early, cancel=cancel)
        readers = [p for p in multiprocessing.active_children() if p.pid not in before]
        for reader in readers:
            reader.join(10)
        assert not [p for p in readers if p.is_alive()]
    finally:
        quire.close()


def test_closing_after_a_reader_died_halfway_through_an_answer_returns(tmp_path: Path) -> None:
    notes = _vault(tmp_path / "notes")
    jobs = [
        analysis_pool.Job(p.name, p, 10**6, None, 200, p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(notes.glob("n*.md"))
    ]
    ahead = analysis_pool.Ahead(jobs, workers=2)
    ahead.analyzer(lambda job: analysis_pool.NoteRead("here"))(jobs[0])  # the readers run
    # What a reader killed while sending leaves in the answers' pipe: a header promising
    # more bytes than ever come.
    answers = ahead._pool._result_queue._writer  # type: ignore[attr-defined]
    os.write(answers.fileno(), struct.pack("!i", 100_000) + b"half an answer")
    closing = threading.Thread(target=ahead.close, daemon=True)
    closing.start()
    closing.join(30)
    assert not closing.is_alive()


def _chunks_per_note(quire: Quire) -> dict[str, int]:
    with quire.database.read() as db:
        rows = db.execute(
            "SELECT n.path, count(c.id) FROM notes n LEFT JOIN chunks c ON c.note_id = n.id"
            " GROUP BY n.path"
        ).fetchall()
    return dict(rows)


def _languages(quire: Quire) -> set[str]:
    with quire.database.read() as db:
        rows = db.execute("SELECT DISTINCT language FROM notes WHERE status = 'indexed'")
        return {row[0] for row in rows.fetchall()}


def _quick_hashes(quire: Quire) -> int:
    with quire.database.read() as db:
        found = db.execute(
            "SELECT count(*) FROM notes WHERE content_hash LIKE ?", (QUICK_HASH + "%",)
        ).fetchone()
    return int(found[0])


@pytest.fixture
def quick_from_50(monkeypatch: pytest.MonkeyPatch) -> None:
    """A quick reading from 50 new notes on (the vault has 82)."""
    monkeypatch.setattr(indexer, "QUICK_FROM", 50)


def _with_a_long_note(notes: Path) -> Path:
    paragraphs = (f"Odstavec {i} o kvasu a mouce. " * 12 for i in range(30))
    (notes / "long.md").write_text("# Dlouhá\n\n" + "\n\n".join(paragraphs), "utf-8")
    return notes


def test_a_quick_reading_then_a_full_one_index_as_a_full_one_alone(
    tmp_path: Path, quick_from_50: None
) -> None:
    notes = _with_a_long_note(_vault(tmp_path / "notes"))
    quick = Quire.open(tmp_path / "quick", embedder=FakeEmbedder())
    full = _indexed(tmp_path / "full", notes)
    try:
        [read] = quick.index([notes], quick=True, embed=False)
        assert read.report.quick and read.report.indexed == NOTES + 2  # "empty.md" is skipped
        per_note = _chunks_per_note(quick)
        assert per_note["long.md"] == 1 and _chunks_per_note(full)["long.md"] > 1
        assert quick.search("chléb 42")[0].path == "n042.md"  # searchable: by keywords
        # in no language yet: its words' five-letter prefixes find an inflected form
        assert _languages(quick) == {""}
        assert quick.search("Sauerteiges 42")[0].path == "n042.md"
        assert _quick_hashes(quick) == NOTES + 2
        assert quick.embed() == 0  # a whole note's passage gets no vector
        [again] = quick.index([notes])  # the full reading follows
        assert not again.report.quick and again.report.indexed == NOTES + 2
        assert _quick_hashes(quick) == 0 and "" not in _languages(quick)
        assert index_rows(quick) == index_rows(full)
    finally:
        quick.close()
        full.close()


def test_a_small_first_index_is_read_in_full_at_once(tmp_path: Path) -> None:
    notes = _vault(tmp_path / "notes")  # fewer new notes than indexer.QUICK_FROM
    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder())
    try:
        [report] = quire.index([notes], quick=True)
        assert not report.report.quick and _quick_hashes(quire) == 0
        assert report.report.embedded > 0
    finally:
        quire.close()


def test_the_live_index_reads_in_full_what_was_read_quickly(
    tmp_path: Path, quick_from_50: None
) -> None:
    notes = _with_a_long_note(_vault(tmp_path / "notes"))
    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder())
    try:
        quire.index([notes], quick=True, embed=False)
        assert _quick_hashes(quire) > 0
        quire.live.watch(notes)
        quire.live.start(Watching(), reconcile=True)  # as `quire watch` after a quick reading
        wait_for(lambda: _quick_hashes(quire) == 0, "the full reading")
        wait_for(lambda: not quire.status().counts.pending_embedding, "every vector")
        assert _chunks_per_note(quire)["long.md"] > 1
        assert quire.search("Sauerteig ruht")[0].path.startswith("n")
    finally:
        quire.close()


def test_a_quick_reading_of_new_notes_keeps_the_notes_indexed_before(
    tmp_path: Path, quick_from_50: None
) -> None:
    notes = tmp_path / "notes"
    _with_a_long_note(_vault(notes))
    old = _vault(tmp_path / "old")
    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder())
    try:
        quire.index([notes], embed=False)
        before = _chunks_per_note(quire)
        for path in old.glob("n*.md"):  # 80 new notes beside those indexed
            path.rename(notes / f"new-{path.name}")
        [report] = quire.index([notes], quick=True, embed=False)
        assert report.report.quick and report.report.removed == 0
        assert report.report.indexed == NOTES and _quick_hashes(quire) == NOTES
        after = _chunks_per_note(quire)
        assert {path: after[path] for path in before} == before  # still read in full
    finally:
        quire.close()


def test_a_large_note_is_a_task_of_its_own_and_the_rest_are_batched_in_order(
    tmp_path: Path,
) -> None:
    sizes = [10, 20, analysis_pool.ALONE_FROM_BYTES, 30, 40, 50, 5 * analysis_pool.ALONE_FROM_BYTES]
    jobs = [
        analysis_pool.Job(f"n{i}.md", tmp_path / f"n{i}.md", 10**9, None, 256, size, 0)
        for i, size in enumerate(sizes)
    ]
    tasks = [[job.rel for job in task] for task in analysis_pool._batches(jobs, 2)]
    assert tasks == [["n0.md", "n1.md"], ["n2.md"], ["n3.md", "n4.md"], ["n5.md"], ["n6.md"]]


def _jobs(notes: Path) -> list[analysis_pool.Job]:
    return [
        analysis_pool.Job(p.name, p, 10**6, None, 200, p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(notes.glob("n*.md"))
    ]


def indexer_reading() -> Callable[[analysis_pool.Job], analysis_pool.NoteRead]:
    """A note read in the indexer's process, as without a pool."""
    return partial(analysis_pool.read_and_analyze, extract=analysis_pool._no_extractor)


class _Submitted:
    """The notes of every task submitted to the readers, in order."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.tasks: list[list[str]] = []
        real = analysis_pool.ProcessPoolExecutor.submit

        def submit(pool: Any, fn: Any, jobs: list[analysis_pool.Job]) -> Any:
            self.tasks.append([job.rel for job in jobs])
            return real(pool, fn, jobs)

        monkeypatch.setattr(analysis_pool.ProcessPoolExecutor, "submit", submit)

    def ahead_of(self, rel: str) -> int:
        """Tasks submitted from the one holding `rel` on."""
        at = next(n for n, task in enumerate(self.tasks) if rel in task)
        return len(self.tasks) - at


def test_the_readers_stay_a_few_tasks_ahead_of_the_indexer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Their readings wait in the indexer's process (the window's) until taken: a few tasks'
    worth, never the whole folder's."""
    monkeypatch.setattr(analysis_pool, "BATCH", 4)
    submitted = _Submitted(monkeypatch)
    jobs = _jobs(_vault(tmp_path / "notes"))
    here = indexer_reading()
    ahead = analysis_pool.Ahead(jobs, workers=2)
    try:
        assert len(submitted.tasks) == analysis_pool.AHEAD_TASKS
        analyze = ahead.analyzer(here)
        for job in jobs:
            assert analyze(job) == here(job)
            assert submitted.ahead_of(job.rel) <= analysis_pool.AHEAD_TASKS
        assert [rel for task in submitted.tasks for rel in task] == [j.rel for j in jobs]
        assert not ahead.broken
    finally:
        ahead.close()


def test_large_notes_are_read_ahead_only_while_their_bytes_are_few(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = _vault(tmp_path / "notes")
    size = min(p.stat().st_size for p in notes.glob("n*.md"))
    monkeypatch.setattr(analysis_pool, "ALONE_FROM_BYTES", 1)  # every note a task of its own
    monkeypatch.setattr(analysis_pool, "AHEAD_BYTES", 3 * size)
    submitted = _Submitted(monkeypatch)
    jobs = _jobs(notes)
    here = indexer_reading()
    ahead = analysis_pool.Ahead(jobs, workers=2)
    try:
        analyze = ahead.analyzer(here)
        for job in jobs:
            assert analyze(job) == here(job)
            assert submitted.ahead_of(job.rel) <= 3
        assert len(submitted.tasks) == len(jobs)
    finally:
        ahead.close()


def test_a_reading_of_many_pieces_is_unpacked_whole(tmp_path: Path) -> None:
    note = tmp_path / "long.md"
    note.write_text(
        "\n\n".join(f"## Part {n}\n\nThe kiln at station {n} fires at dawn." for n in range(1500)),
        "utf-8",
    )
    job = analysis_pool.Job("long.md", note, 10**9, None, 40, note.stat().st_size, 0)
    read = analysis_pool.read_and_analyze(job, analysis_pool._no_extractor)
    assert read.analyzed is not None and len(read.analyzed.chunks) > analysis_pool.PACKED_CHUNKS
    packed = analysis_pool._pack(read)
    assert len(packed) > 2  # a head and more than one piece of chunks
    assert analysis_pool._unpack(packed) == read


def test_an_indexing_run_pauses_the_garbage_collector_and_restores_it(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(300):
        (folder / f"n{n}.md").write_text(f"# Note {n}\n\nThe kiln {n} fires at dawn.\n", "utf-8")
    collections: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    database = Database(tmp_path / "q.sqlite")
    gc.callbacks.append(seen)
    try:
        gc.collect()
        collections.clear()
        report = indexer.index_folder(database, folder, indexer.IndexOptions())
        during = list(collections)
        assert gc.isenabled()
        gc.disable()  # a caller that paused it keeps it paused
        (folder / "n0.md").write_text("# Note 0\n\nChanged.\n", "utf-8")
        indexer.index_folder(database, folder, indexer.IndexOptions())
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.callbacks.remove(seen)
        database.close()
    assert report.indexed == 300
    # none held the interpreter lock while 300 notes were read; a young one may start as the
    # collector is switched back on (the allocations of the run were counted)
    assert during in ([], [0])
