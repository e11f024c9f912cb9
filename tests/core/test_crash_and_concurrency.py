"""Crash safety and concurrent access, with real processes and threads."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from desktop_app.core.api import Quire
from tests.conftest import ROOT
from tests.support.live_index import live_index

pytestmark = pytest.mark.usefixtures("fake_embedder")


@pytest.mark.slow  # a second process with the real embedder
def test_watcher_searches_and_another_process_share_the_database(
    tmp_path: Path, quire_home: Path
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    for i in range(20):
        (vault / f"n{i}.md").write_text(f"# Note {i}\n\nAbout topic number {i}.\n", "utf-8")
    quire = Quire.open(quire_home)
    quire.index([vault])
    watcher = live_index(quire, [vault])
    watcher.start(reconcile=False)
    errors: list[BaseException] = []
    stop = threading.Event()

    def search_loop() -> None:
        try:
            while not stop.is_set():
                quire.search("topic number")
                quire.status()
        except BaseException as exc:
            errors.append(exc)

    readers = [threading.Thread(target=search_loop) for _ in range(2)]
    for t in readers:
        t.start()
    env = {**os.environ, "QUIRE_HOME": str(quire_home)}
    other = subprocess.Popen(
        [sys.executable, "-c",
         "from desktop_app.core.api import Quire\n"
         "q = Quire.open()\n"
         "for _ in range(30):\n"
         "    q.search('topic number 3'); q.status()\n"
         "print('done')"],
        env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        for round_ in range(10):
            for i in range(0, 20, 3):
                (vault / f"n{i}.md").write_text(
                    f"# Note {i}\n\nRound {round_} topic {i}.\n", "utf-8"
                )
            time.sleep(0.3)
        out, err = other.communicate(timeout=300)
        assert other.returncode == 0, err
        assert out.strip() == "done"
    finally:
        stop.set()
        for t in readers:
            t.join()
        watcher.stop()
    assert errors == []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and "Round 9" not in quire.search("round 9 topic 18")[0].text:
        time.sleep(0.1)
    assert "Round 9" in quire.search("round 9 topic 18")[0].text
    assert quire.status().integrity_ok
    quire.close()
