"""What Quire's processes hold, as Settings shows it; a paused vectors line in `quire status`."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from desktop_app.core.api import Quire
from desktop_app.core.ingest import analysis_pool
from desktop_app.core.process_memory import ProcessMemory, resident_bytes
from desktop_app.paths import sample_notes
from tests.support.documents import write_docx
from tests.support.fakes import FakeEmbedder


def test_this_process_s_memory_is_read_and_a_gone_process_has_none() -> None:
    mine = resident_bytes(os.getpid())
    assert mine is not None and mine > 10 * 2**20
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert resident_bytes(gone.pid) is None


def test_the_facade_names_its_processes(tmp_path: Path) -> None:
    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder())
    try:
        processes = quire.memory()
    finally:
        quire.close()
    assert processes[0] == ProcessMemory("Quire", os.getpid(), processes[0].resident_bytes)
    assert processes[0].resident_bytes


def test_the_analyzer_is_named_while_it_runs(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    write_docx(notes / "herons.docx", "Herons", ["Herons nest in colonies."])
    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder())
    analyzer = analysis_pool.shared_analyzer()
    try:
        quire.index([notes], embed=False)
        pid = analyzer.pid
        running = {p.what: p for p in quire.memory()}
        analyzer.close()
        stopped = {p.what for p in quire.memory()}
    finally:
        quire.close()
    assert pid is not None and running["note analysis"].pid == pid
    assert (running["note analysis"].resident_bytes or 0) > 10 * 2**20
    assert "note analysis" not in stopped


def test_paused_vectors_wait_and_status_says_so(tmp_path: Path) -> None:
    home = tmp_path / "home"
    quire = Quire.open(home, embedder=FakeEmbedder())
    try:
        quire.apply_settings(replace(quire.settings, pause_vectors=True))
        quire.index([sample_notes()], embed=False)
        status = quire.status(False)
    finally:
        quire.close()
    assert status.vectors_paused and status.counts.pending_embedding > 0
    run = subprocess.run(
        [sys.executable, "-m", "desktop_app", "status"],
        capture_output=True, text=True, env={**os.environ, "QUIRE_HOME": str(home)}, timeout=120,
    )  # fmt: skip
    waiting = status.counts.pending_embedding
    assert f"vectors: paused in Settings ({waiting} passages wait" in run.stdout, run.stdout
