"""`quire repair --rebuild` while the window's jobs run: 200 searches and 20 answers on a thread
pool, the rebuild in the middle (real SQLite, the fake embedder and model given to
`Quire.open`). Nothing fails, every search finds passages of the notes (from the old index or
the new one, never a half-built one), and no SQLite connection is left open beyond the pool."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path

import pytest

from desktop_app.cli.repair import cmd_repair
from desktop_app.core.api import Quire, SearchResult
from desktop_app.core.as_json import as_json
from desktop_app.core.store.db import READERS
from tests.conftest import ROOT
from tests.support.fakes import FakeEmbedder, QueuedModel
from tests.support.wait import wait_for

pytestmark = pytest.mark.usefixtures("fake_embedder")

JOURNAL = ROOT / "tests" / "data" / "journal" / "notes"
SEARCHES = 200
ANSWERS = 20
WORKERS = 6
WORD = re.compile(r"[^\W\d_]{4,}")


def _queries(notes: Path, count: int) -> list[str]:
    """A few words of as many notes: each query is sure to find its note."""
    queries = []
    for path in sorted(notes.rglob("*.md"))[:: max(1, 739 // count)]:
        words = WORD.findall(path.read_text("utf-8"))
        if len(words) >= 3:
            queries.append(" ".join(words[-3:]))
    return (queries * (count // max(1, len(queries)) + 1))[:count]


def _sqlite_fds(db_path: Path) -> list[str]:
    """Where this process's open files that belong to the index point (file, -wal; not -shm,
    which SQLite maps once per file)."""
    targets = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(db_path)) and not target.endswith("-shm"):
            targets.append(target)
    return targets


def _well_formed(results: list[SearchResult], notes: Path) -> bool:
    return bool(results) and all(
        r.text and r.text.strip() in (notes / r.path).read_text("utf-8") and r.start < r.end
        for r in results
    )


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts fds in /proc")
def test_searches_and_answers_run_through_a_rebuild(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes"
    shutil.copytree(JOURNAL, notes)
    model = QueuedModel(*["The notes say so [1]."] * (ANSWERS + 5))
    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder(), chat_model=model)
    db_path = quire.database.path
    quire.index([notes])
    queries = _queries(notes, SEARCHES)
    bad: list[str] = []
    finished: list[float] = []

    def search(query: str) -> None:
        results = quire.search(query)
        if not _well_formed(results, notes):
            bad.append(query)
        finished.append(time.monotonic())

    def answer(n: int) -> str:
        events = [as_json(e) for e in quire.answers.ask(f"What did I write about {queries[n]}?")]
        finished.append(time.monotonic())
        return str(events[-1]["type"])

    try:
        with ThreadPoolExecutor(WORKERS) as pool:
            jobs: list[Future[object]] = []
            for n, query in enumerate(queries):
                jobs.append(pool.submit(search, query))
                if n % (SEARCHES // ANSWERS) == 0:
                    jobs.append(pool.submit(answer, len(jobs) % len(queries)))
            while len(finished) < len(jobs) // 4:  # the rebuild starts with jobs still queued
                time.sleep(0.01)
            assert cmd_repair(quire, argparse.Namespace(rebuild=True, no_embed=False)) == 0
            rebuilt = time.monotonic()
            wait(jobs)
        ends = [job.result() for job in jobs]  # any exception of a job is raised here
        assert bad == []
        assert {end for end in ends if end is not None} <= {"done"}
        assert any(at > rebuilt for at in finished), "no job ran on the new index"
        out = capsys.readouterr()
        assert "rebuilt on request" in out.err and "indexed" in out.out
        assert quire.in_flight == 0
        assert 1 <= quire.database.readers.open_connections <= READERS
        open_files = _sqlite_fds(db_path)
        assert all(Path(f).name in (db_path.name, f"{db_path.name}-wal") for f in open_files)
        assert len(open_files) <= 2 * (READERS + 1)  # the file and its -wal per connection
        assert quire.search(queries[0])  # the new index answers
    finally:
        quire.close()
    assert _sqlite_fds(db_path) == []


def test_a_repair_while_the_live_index_runs_restarts_it_on_the_new_index(tmp_path: Path) -> None:
    """`recover` stops a live index its caller left running (nothing writes into the file it
    replaces) and starts it again on the new index, which then keeps up with the folder."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "alpha.md").write_text("# Alpha\n\nThe quokka sleeps in the shade.\n", "utf-8")
    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder())
    try:
        quire.live.watch(notes)
        before = quire.live.start()
        wait_for(lambda: bool(quire.search("quokka")))
        quire.repair.recover(["test"], requested=True)
        after = quire.live.index
        assert after is not None and after is not before and before.ended
        (notes / "beta.md").write_text("# Beta\n\nThe pangolin rolls up.\n", "utf-8")
        wait_for(lambda: bool(quire.search("pangolin")) and bool(quire.search("quokka")))
    finally:
        quire.live.stop()
        quire.close()
