"""Notes read and analyzed ahead in worker processes: the same index as when read in the
indexer's process, one bad note failing alone, a stopped worker losing nothing, and no worker
left behind (real processes)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import struct
import threading
from pathlib import Path

import pytest

from desktop_app.core.api import Quire
from desktop_app.core.cancel import Cancelled, CancelToken, Phase, Progress
from desktop_app.core.ingest import analysis_pool
from tests.support.fakes import FakeEmbedder

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


def _index_rows(quire: Quire) -> dict[str, list[tuple[object, ...]]]:
    with quire.database.read() as db:
        notes = [
            tuple(v for k, v in row.items() if k != "indexed_at")
            for row in db.query("SELECT * FROM notes ORDER BY path")
        ]
        chunks = db.execute("SELECT * FROM chunks ORDER BY id").fetchall()
        terms = db.execute("SELECT rowid, * FROM chunks_fts ORDER BY rowid").fetchall()
    return {"notes": notes, "chunks": chunks, "terms": terms}


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
        assert _index_rows(pooled) == _index_rows(here)
        statuses = {f.path: (f.status, f.reason) for f in pooled.status().files}
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
        files = {f.path: f.status for f in quire.status().files}
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
