"""Parsed formats (PDF, DOCX, web pages) analyzed in the analyzer's worker process beside the
extractor (real processes): the same index as when analyzed in the indexer's process, which
then analyzes none of them; a worker that stops on a note or keeps it too long fails that note
alone and the next note starts a new one; a worker that cannot start leaves the analysis to the
indexer's process."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core import processes
from desktop_app.core.api import Quire
from desktop_app.core.cancel import Cancelled, CancelToken, Phase, Progress
from desktop_app.core.ingest import analysis_pool, budget
from desktop_app.core.ingest.extractor import Extractor
from tests.support.documents import write_docx, write_html, write_pdf, write_structured_pdf
from tests.support.fakes import FakeEmbedder
from tests.support.index_rows import index_rows

PARSED = ("birds.pdf", "herons.docx", "gannets.html", "manual.pdf")


@pytest.fixture(autouse=True)
def own_analyzer(monkeypatch: pytest.MonkeyPatch) -> Iterator[analysis_pool.Analyzer]:
    """Each test its own shared analyzer, stopped after it."""
    analyzer = analysis_pool.Analyzer()
    monkeypatch.setattr(analysis_pool, "_SHARED", [analyzer])
    yield analyzer
    analyzer.close()


def _folder(folder: Path) -> Path:
    folder.mkdir()
    write_structured_pdf(folder / "birds.pdf")
    write_docx(folder / "herons.docx", "Herons", ["Herons nest in colonies by the lake."])
    write_html(folder / "gannets.html", "Gannets", ["Gannets dive from thirty metres."])
    write_pdf(folder / "manual.pdf", [f"Page {i} of the manual about kilns." for i in range(40)])
    (folder / "fine.md").write_text("# Fine\n\nA plain note about egrets.\n", "utf-8")
    return folder


def _analyzed_here(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The notes this process analyzes (the worker's own analysis is not seen here)."""
    seen: list[str] = []
    analyze = analysis_pool.reading_of

    def recorded(job: analysis_pool.Job, *args: Any) -> analysis_pool.NoteRead:
        seen.append(job.rel)
        return analyze(job, *args)

    monkeypatch.setattr(analysis_pool, "reading_of", recorded)
    return seen


def _started_instead(
    monkeypatch: pytest.MonkeyPatch, target: Callable[..., None], times: int = 1
) -> list[str]:
    """The analyzer's first `times` workers run `target`; the names of the workers started."""
    started = processes.started
    names: list[str] = []

    def start(wanted: Callable[..., None], args: tuple[Any, ...], name: str) -> Any:
        names.append(name)
        if name == "quire-analyzer" and names.count(name) <= times:
            return started(target, args, name)
        return started(wanted, args, name)

    monkeypatch.setattr(processes, "started", start)
    return names


def _statuses(quire: Quire) -> dict[str, tuple[str, str | None]]:
    return {f.path: (f.status, f.reason) for f in quire.status().listed_files()}


def _one_parsed_failed(quire: Quire, reason: str) -> None:
    """One parsed format failed, with `reason`; every other file was indexed."""
    statuses = _statuses(quire)
    failed = [(p, why) for p, (status, why) in statuses.items() if status != "indexed"]
    assert len(failed) == 1 and failed[0][0] in PARSED and failed[0][1] == reason
    assert len(statuses) == len(PARSED) + 1


def test_parsed_formats_analyzed_in_the_worker_index_as_analyzed_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = _folder(tmp_path / "notes")
    here = _analyzed_here(monkeypatch)
    worker = Quire.open(tmp_path / "worker", embedder=FakeEmbedder())
    worker.index([notes])
    assert here == ["fine.md"]  # the parsed formats were analyzed elsewhere
    here.clear()
    analysis_pool.shared_analyzer().close()
    names = _no_analyzer(monkeypatch)
    alone = Quire.open(tmp_path / "alone", embedder=FakeEmbedder())
    try:
        alone.index([notes])
        assert "quire-analyzer" in names and sorted(here) == sorted([*PARSED, "fine.md"])
        assert index_rows(worker) == index_rows(alone)
        assert {path: status for path, (status, _) in _statuses(worker).items()} == dict.fromkeys(
            [*PARSED, "fine.md"], "indexed"
        )
        assert worker.search("colonies lake")[0].path == "herons.docx"
        assert worker.search("kingfisher tunnel")[0].path == "birds.pdf"
    finally:
        worker.close()
        alone.close()


def _no_analyzer(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """No analyzer can start (as on a platform without a way to); the workers asked for."""
    started = processes.started
    names: list[str] = []

    def start(target: Callable[..., None], args: tuple[Any, ...], name: str) -> Any:
        names.append(name)
        if name == "quire-analyzer":
            raise OSError("no new process here")
        return started(target, args, name)

    monkeypatch.setattr(processes, "started", start)
    return names


def _stops_on_the_first_note(conn: Connection, _idle_seconds: float) -> None:
    conn.recv()
    conn.recv_bytes()
    os._exit(9)  # as a crash in native code ends a worker


def _never_answers(conn: Connection, _idle_seconds: float) -> None:
    conn.recv()
    conn.recv_bytes()
    time.sleep(60)


def test_a_worker_that_stops_on_a_note_fails_that_note_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = _folder(tmp_path / "notes")
    names = _started_instead(monkeypatch, _stops_on_the_first_note)
    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder())
    try:
        quire.index([notes])
        _one_parsed_failed(quire, "the analysis stopped on this file (exit code 9): hostile file?")
        assert names.count("quire-analyzer") == 2  # the next note started another
    finally:
        quire.close()


def test_a_worker_that_keeps_a_note_too_long_fails_that_note_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = _folder(tmp_path / "notes")
    _started_instead(monkeypatch, _never_answers)
    # time enough for a real worker's first note (it reads its models first)
    monkeypatch.setattr(budget, "seconds_for", lambda size: 8.0)
    monkeypatch.setattr(analysis_pool, "ANSWER_SLACK_SECONDS", 0.0)
    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder())
    try:
        quire.index([notes])
        _one_parsed_failed(quire, "its analysis took longer than 8 s (crafted file?)")
    finally:
        quire.close()


def test_an_empty_document_is_skipped_by_the_worker_with_its_reason(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    write_html(folder / "blank.html", "", [])
    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder())
    try:
        quire.index([folder])
        assert _statuses(quire)["blank.html"] == ("skipped", "empty note")
    finally:
        quire.close()


def test_the_worker_serves_every_run_and_ends_when_idle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_analyzer: analysis_pool.Analyzer
) -> None:
    notes = _folder(tmp_path / "notes")
    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder())
    try:
        quire.index([notes])
        write_docx(notes / "herons.docx", "Herons", ["Herons now nest by the weir."])
        quire.index([notes])
        assert own_analyzer.starts == 1  # the second run's note went to the same worker
        worker = own_analyzer._process
        monkeypatch.setattr(analysis_pool, "IDLE_SECONDS", 0.5)  # for the next worker
        own_analyzer.close()
        write_docx(notes / "herons.docx", "Herons", ["Herons nest by the mill."])
        quire.index([notes])
        assert own_analyzer.starts == 2 and not worker.is_alive()
        idle = own_analyzer._process
        idle.join(30)
        assert idle.exitcode == 0  # it ended by itself, with nothing to read
        write_docx(notes / "herons.docx", "Herons", ["Herons nest under the bridge."])
        quire.index([notes])
        assert own_analyzer.starts == 3
        assert quire.search("herons bridge")[0].path == "herons.docx"
        assert all(status == "indexed" for status, _ in _statuses(quire).values())
    finally:
        quire.close()


def test_the_next_note_is_sent_while_the_worker_reads_this_one(
    tmp_path: Path, own_analyzer: analysis_pool.Analyzer
) -> None:
    notes = _folder(tmp_path / "notes")
    jobs = [
        analysis_pool.Job(name, notes / name, 10**8, None, 200, 1, 0)
        for name in ("birds.pdf", "herons.docx", "gannets.html")
    ]
    with Extractor() as extractor:
        extractor.expect([(job.path, job.max_bytes) for job in jobs])
        run = own_analyzer.run(jobs, extractor.load_pickled, CancelToken())
        try:
            first = run.read(jobs[0])
            assert [sent.job for sent in run._sent] == [jobs[1]]  # in the worker's pipe
            second = run.read(jobs[1])
            assert [sent.job for sent in run._sent] == [jobs[2]]
            run.read(jobs[2])
            assert not run._sent
        finally:
            run.close()
    assert first.analyzed is not None and first.analyzed.chunks
    assert second.analyzed is not None and "colonies" in second.analyzed.chunks[0].chunk.text
    assert first.document is not None and not first.document.lines  # read there, not sent back
    assert not own_analyzer.lock.locked()  # free for the next run


def test_a_cancelled_run_frees_the_worker_for_the_next_run(
    tmp_path: Path, own_analyzer: analysis_pool.Analyzer
) -> None:
    notes = _folder(tmp_path / "notes")
    write_pdf(
        notes / "long.pdf", [f"Page {i} of the long manual about gannets." for i in range(600)]
    )
    cancel = CancelToken()

    def stop_at_the_second(progress: Progress) -> None:
        if progress.phase == Phase.INDEX and progress.done == 2:
            cancel.cancel()

    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder())
    try:
        with pytest.raises(Cancelled):
            quire.index([notes], progress=stop_at_the_second, cancel=cancel)
        assert not own_analyzer.lock.locked()
        quire.index([notes])
        statuses = _statuses(quire)
        assert len(statuses) == len(PARSED) + 2
        assert all(status == "indexed" for status, _ in statuses.values())
        assert quire.search("long manual gannets")[0].path == "long.pdf"
    finally:
        quire.close()


def test_a_worker_that_ended_idle_leaves_its_last_reading_and_the_next_note_to_a_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_analyzer: analysis_pool.Analyzer
) -> None:
    notes = _folder(tmp_path / "notes")
    jobs = [
        analysis_pool.Job(name, notes / name, 10**8, None, 200, 1, 0)
        for name in ("birds.pdf", "herons.docx", "gannets.html")
    ]
    monkeypatch.setattr(analysis_pool, "IDLE_SECONDS", 0.5)
    with Extractor() as extractor:
        extractor.expect([(job.path, job.max_bytes) for job in jobs])
        run = own_analyzer.run(jobs, extractor.load_pickled, CancelToken())
        try:
            run.read(jobs[0])  # the herons were sent ahead of their turn
            first = own_analyzer._process
            first.join(30)  # answered them, then ended, idle
            assert first.exitcode == 0
            herons = run.read(jobs[1])
            gannets = run.read(jobs[2])
        finally:
            run.close()
    assert herons.analyzed is not None and "colonies" in herons.analyzed.chunks[0].chunk.text
    assert gannets.analyzed is not None and "thirty" in gannets.analyzed.chunks[0].chunk.text
    # the herons' reading, sent before the first worker ended, was read from its pipe; the
    # gannets went to a second worker
    assert own_analyzer.starts == 2


def test_large_notes_one_after_another_never_block_the_pipe(
    tmp_path: Path, own_analyzer: analysis_pool.Analyzer
) -> None:
    """Each note's bytes and its reading are larger than a pipe holds: a note sent while the
    worker sends another's reading would leave both sides blocked writing."""
    folder = tmp_path / "notes"
    folder.mkdir()
    page = "The kiln at the mill fires at dawn and cools by dusk. " * 30
    for name in ("first.pdf", "second.pdf", "third.pdf"):
        write_pdf(folder / name, [f"{name} page {n}. {page}" for n in range(250)])
    jobs = [
        analysis_pool.Job(p.name, p, 10**9, None, 200, p.stat().st_size, 0)
        for p in sorted(folder.glob("*.pdf"))
    ]
    readings: list[analysis_pool.NoteRead] = []
    with Extractor() as extractor:
        extractor.expect([(job.path, job.max_bytes) for job in jobs])
        run = own_analyzer.run(jobs, extractor.load_pickled, CancelToken())
        reading = threading.Thread(target=lambda: readings.extend(map(run.read, jobs)))
        reading.start()
        reading.join(120)
        blocked = reading.is_alive()
        own_analyzer.close()  # a blocked reading ends on the closed pipe
        reading.join(30)
        run.close()
    assert not blocked
    for job, read in zip(jobs, readings, strict=True):
        assert read.analyzed is not None and job.rel in read.analyzed.chunks[0].chunk.text
        assert len(read.analyzed.chunks) > 100
