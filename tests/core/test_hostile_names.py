"""Hostile file names and per-file failures: every good note is indexed and searchable, every bad
file is reported with a reason, and nothing stops the folder, the command or the live index."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

import pytest

from desktop_app import cli
from desktop_app.core.api import Quire
from desktop_app.core.as_json import as_json
from desktop_app.core.events import Change, ChangeKind
from desktop_app.core.ingest import analysis_pool
from desktop_app.core.ingest.document import Document
from desktop_app.core.ingest.note_analysis import AnalyzedNote
from tests.conftest import ROOT
from tests.core.test_watcher import wait_for
from tests.support.hostile import Hostile, make_hostile_folder, word
from tests.support.live_index import live_index

pytestmark = pytest.mark.usefixtures("fake_embedder")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def hostile(tmp_path: Path) -> Hostile:
    return make_hostile_folder(tmp_path)


def _files(status: dict) -> dict[str, dict]:
    return {f["path"]: f for f in status["files"]}


def _assert_all_reported(h: Hostile, files: dict[str, dict]) -> None:
    for path in h.good:
        assert files[path]["status"] in ("indexed", "pending embedding"), path
    for path, status in h.bad.items():
        assert files[path]["status"] == status, path
        assert files[path]["reason"], path


def test_cli_indexes_every_good_note_and_reports_every_bad_one(
    hostile: Hostile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "index", "--no-embed", str(hostile.folder))
    assert code == 0, err
    assert f"{len(hostile.good)} indexed" in out
    assert "  failed: caf\\xe9.md: file name is not valid UTF-8" in out
    assert "  skipped: link-out.md: symbolic link to a file outside the folder" in out
    assert "line\\nbreak.md" in out or "line\nbreak.md" not in out  # one line per file
    for line in out.splitlines():  # each line is a folder summary or one file's problem
        assert line.startswith(("  ", str(hostile.folder))), line

    code, out, _ = run(capsys, "status", "--json")
    files = _files(json.loads(out))
    _assert_all_reported(hostile, files)
    assert set(files) == set(hostile.good) | set(hostile.bad)

    code, out, _ = run(capsys, "status")
    rows = [line for line in out.splitlines() if line.startswith("  ")]
    assert len(rows) == len(hostile.good) + len(hostile.bad)  # one line each, whatever the name
    problems = [line for line in rows if line.startswith(("  failed:", "  skipped:"))]
    assert len(problems) == len(hostile.bad)
    assert "  skipped: link-out.md — symbolic link to a file outside the folder" in problems

    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        "".join(json.dumps({"id": p, "question": w}) + "\n" for p, w in hostile.good.items()),
        "utf-8",
    )
    code, out, _ = run(capsys, "search", "--queries", str(queries), "--top", "3")
    for line in out.splitlines():
        row = json.loads(line)
        assert row["id"] in [r["path"] for r in row["results"]], row["id"]

    code, out, _ = run(capsys, "index", "--no-embed", str(hostile.folder))  # again: still told
    assert code == 0
    assert f"0 indexed, {len(hostile.good)} unchanged" in out
    assert f"{len(hostile.bad) - 3} skipped, 3 failed" in out
    assert "  failed: caf\\xe9.md: file name is not valid UTF-8" in out


def test_names_with_control_characters_keep_output_one_line_per_item(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "two\nlines.md").write_text(f"# Two\n\nAbout {word(7)}.\n", "utf-8")
    (folder / "empty\n.md").write_text("", "utf-8")
    code, out, _ = run(capsys, "index", "--no-embed", str(folder))
    assert code == 0
    assert "  skipped: empty\\n.md: empty note" in out.splitlines()
    code, out, _ = run(capsys, "search", word(7))
    assert out.splitlines()[0].startswith("[1] two\\nlines.md:")
    assert len(out.splitlines()) == 2  # the result line and its snippet
    code, out, _ = run(capsys, "status")
    assert "  skipped: empty\\n.md — empty note" in out.splitlines()
    assert (
        str(Change(ChangeKind.INDEXED, "two\nlines.md")) == "indexed two\\nlines.md"
    )  # watch lines


def test_an_unexpected_error_fails_only_that_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(3):
        (folder / f"n{n}.md").write_text(f"# N{n}\n\nAbout {word(n)}.\n", "utf-8")
    real = analysis_pool.analyze_note  # three notes: read in this process, not in the pool

    def analyze(rel: str, document: Document, chunk_tokens: int, mtime_ns: int) -> AnalyzedNote:
        if rel == "n1.md":
            raise RuntimeError("a bug in the analyzer")
        return real(rel, document, chunk_tokens, mtime_ns)

    monkeypatch.setattr(analysis_pool, "analyze_note", analyze)
    code, out, _ = run(capsys, "index", "--no-embed", str(folder))
    assert code == 0
    assert "2 indexed" in out
    assert "  failed: n1.md: unexpected error: RuntimeError: a bug in the analyzer" in out
    monkeypatch.setattr(analysis_pool, "analyze_note", real)
    code, out, _ = run(capsys, "index", "--no-embed", str(folder))  # a failed note is retried
    assert "1 indexed, 2 unchanged" in out


@pytest.mark.slow  # a second process with the real embedder
def test_watch_starts_and_stays_live_on_a_hostile_folder(hostile: Hostile, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QUIRE_HOME": str(tmp_path / "home"),
           "PYTHONUNBUFFERED": "1"}  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop_app", "watch", str(hostile.folder)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()

    def read(stream: IO[bytes] | None) -> None:
        assert stream is not None  # piped
        for raw in stream:
            lines.put(raw.decode())

    readers = [threading.Thread(target=read, args=(s,)) for s in (proc.stdout, proc.stderr)]
    for reader in readers:
        reader.start()
    seen: list[str] = []

    def wait_line(fragment: str) -> None:
        while not any(fragment in line for line in seen):
            try:
                seen.append(lines.get(timeout=120))
            except queue.Empty:
                raise AssertionError(f"{fragment!r} never printed; got {seen}") from None

    try:
        wait_line("watching 1 folder(s)")
        assert any("failed: caf\\xe9.md" in line for line in seen)
        (hostile.folder / "later.md").write_text(f"# Later\n\n{word(900)}\n", "utf-8")
        os.close(os.open(os.fsencode(hostile.folder) + b"/later\xe9.md", os.O_CREAT, 0o644))
        wait_line("indexed later.md")
        wait_line("failed later\\xe9.md file name is not valid UTF-8")
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(30)
        for reader in readers:
            reader.join(30)  # the pipes are at their end once the process is gone
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert "Traceback" not in "".join(seen)


def test_live_index_reconciles_and_stays_live_on_a_hostile_folder(
    hostile: Hostile, quire_home: Path
) -> None:
    quire = Quire.open(quire_home)
    changes: list[Change] = []
    live = live_index(quire, [hostile.folder], on_change=changes.append)
    live.start()  # reconcile at start, as the window does
    try:
        wait_for(lambda: any(c.kind == "scanned" for c in changes), timeout=120)
        _assert_all_reported(hostile, _files(as_json(quire.status(False))))
        (hostile.folder / "later.md").write_text(f"# Later\n\n{word(901)}\n", "utf-8")
        wait_for(lambda: "later.md" in _files(as_json(quire.status(False))), timeout=60)
        assert "later.md" in [hit.path for hit in quire.search(word(901), top_k=3)]
        assert all(t.is_alive() for t in live._threads)
        assert not [c for c in changes if c.kind == "error"]
    finally:
        live.stop()
        quire.close()


def test_a_crashed_index_loop_is_logged_and_restarted(
    tmp_path: Path, quire_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text(f"# A\n\n{word(1)}\n", "utf-8")
    quire = Quire.open(quire_home)
    changes: list[Change] = []
    live = live_index(quire, [folder], on_change=changes.append)
    real = live._reconcile
    calls = []

    def crash_once() -> bool:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("boom in the index loop")
        return real()

    monkeypatch.setattr(live, "_reconcile", crash_once)
    live.start()
    try:
        wait_for(lambda: any(c.kind == "error" for c in changes), timeout=60)
        error = next(c for c in changes if c.kind == "error")
        assert "quire-index" in error.detail and "boom in the index loop" in error.detail
        assert "boom in the index loop" in (quire_home / "logs" / "errors.log").read_text("utf-8")
        # the restarted loop walks the folder again (what the crash interrupted) and goes on
        wait_for(lambda: "a.md" in _files(as_json(quire.status(False))), timeout=60)
        (folder / "b.md").write_text(f"# B\n\n{word(2)}\n", "utf-8")
        wait_for(lambda: "b.md" in _files(as_json(quire.status(False))), timeout=60)
    finally:
        live.stop()
        quire.close()
