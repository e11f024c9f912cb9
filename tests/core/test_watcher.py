"""Live indexing with the real watchdog observer, the real database and the real embedder."""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.api import NoteStatus, Quire
from desktop_app.core.events import Change
from desktop_app.core.ingest.observer import Handler, Watches
from desktop_app.core.ingest.watcher import LiveIndex
from tests.support.live_index import live_index
from tests.support.wait import wait_for

pytestmark = pytest.mark.usefixtures("fake_embedder")


class Spy:
    """Counts the passages the real embedding phase encodes (query encodes are not counted)."""

    def __init__(self, quire: Quire) -> None:
        self.embedded = 0
        real = quire.embed

        def embed(*args: Any, **kwargs: Any) -> int:
            count = real(*args, **kwargs)
            self.embedded += count
            return count

        setattr(quire, "embed", embed)  # noqa: B010 (a method replaced on this one object)


Live = tuple[Quire, LiveIndex, list[Change], Spy]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    folder = tmp_path / "vault"
    (folder / "projects").mkdir(parents=True)
    (folder / "alpha.md").write_text("# Alpha\n\nThe alpha note talks about pelicans.\n", "utf-8")
    (folder / "projects" / "beta.md").write_text("# Beta\n\nBeta is about herons.\n", "utf-8")
    return folder


@pytest.fixture
def live(vault: Path, quire_home: Path) -> Iterator[Live]:
    quire = Quire.open(quire_home)
    quire.index([vault])
    spy = Spy(quire)
    changes: list[Change] = []
    watcher = live_index(quire, [vault], on_change=changes.append)
    watcher.start(reconcile=False)
    yield quire, watcher, changes, spy
    watcher.stop()
    quire.close()


def paths_for(quire: Quire, query: str) -> list[str]:
    return [r.path for r in quire.search(query, top_k=5) if r.matched_terms]


def settle(quire: Quire, watcher: LiveIndex) -> None:
    """Wait until nothing is queued, every chunk has its vector and the pass that computed
    them has returned (its vectors are stored before it returns: pending is read first)."""
    wait_for(
        lambda: (
            watcher.idle.is_set()
            and quire.status(False).counts.pending_embedding == 0
            and not watcher.embedding.is_set()
        )
    )


def test_an_edit_becomes_searchable(live: Live, vault: Path) -> None:
    quire, watcher, changes, spy = live
    (vault / "alpha.md").write_text("# Alpha\n\nNow about flamingos instead.\n", "utf-8")
    wait_for(lambda: paths_for(quire, "flamingos") == ["alpha.md"])
    assert paths_for(quire, "pelicans") == []
    settle(quire, watcher)
    assert spy.embedded == 1  # only the changed chunk was embedded
    assert any(c.kind == "indexed" and c.path == "alpha.md" for c in changes)


def test_a_burst_of_writes_is_indexed_once(live: Live, vault: Path) -> None:
    quire, watcher, changes, spy = live
    note = vault / "burst.md"
    for i in range(50):
        note.write_text(f"# Burst\n\nversion {i} of the storks note\n", "utf-8")
        time.sleep(0.04)
    wait_for(lambda: "burst.md" in paths_for(quire, "storks"))
    settle(quire, watcher)
    assert quire.search("version 49 storks")[0].text.endswith("version 49 of the storks note")
    indexed = [c for c in changes if c.kind == "indexed" and c.path == "burst.md"]
    assert len(indexed) <= 2  # debounced: not fifty times
    assert spy.embedded == len(indexed)


def test_a_pdf_written_in_pieces_is_indexed_once_when_whole(live: Live, vault: Path) -> None:
    from tests.support.documents import write_pdf

    quire, watcher, changes, _ = live
    whole = write_pdf(vault.parent / "manual.pdf", ["The grebe manual, page one."] * 3)
    data = whole.read_bytes()
    target = vault / "manual.pdf"
    with target.open("wb") as f:  # a viewer saving in pieces, half a second apart
        for i in range(4):
            f.write(data[i * len(data) // 4 : (i + 1) * len(data) // 4])
            f.flush()
            time.sleep(0.5)
    wait_for(lambda: "manual.pdf" in paths_for(quire, "grebe manual"))
    settle(quire, watcher)
    seen = [c for c in changes if c.path == "manual.pdf"]
    assert [c.kind for c in seen] == ["indexed"]  # never a failed partial file, never twice
    assert quire.search("grebe manual", top_k=1)[0].page == 1


@pytest.mark.parametrize("editor", ["vim", "gedit", "emacs", "os.replace"])
def test_editor_save_patterns_never_drop_the_note(live: Live, vault: Path, editor: str) -> None:
    quire, watcher, _changes, _ = live
    note = vault / "alpha.md"
    new = "# Alpha\n\nSaved by the editor: cormorants.\n"
    if editor == "vim":  # rename original to backup, write anew, delete backup
        os.rename(note, vault / "alpha.md~")
        note.write_text(new, "utf-8")
        (vault / "alpha.md~").unlink()
    elif editor == "gedit":  # hidden temp file in the same folder, moved over the note
        tmp = vault / ".goutputstream-ABC123"
        tmp.write_text(new, "utf-8")
        os.rename(tmp, note)
    elif editor == "emacs":  # lock symlink, backup copy, write in place, unlock
        lock = vault / ".#alpha.md"
        os.symlink("user@host.1234", lock)
        shutil.copy(note, vault / "alpha.md~")
        note.write_text(new, "utf-8")
        lock.unlink()
    else:
        tmp = vault / "alpha.md.tmp"
        tmp.write_text(new, "utf-8")
        os.replace(tmp, note)
    wait_for(lambda: paths_for(quire, "cormorants") == ["alpha.md"])
    settle(quire, watcher)
    indexed = {f.path for f in quire.status().listed_files()}
    assert indexed == {"alpha.md", "projects/beta.md"}  # no temp or backup file was indexed


def test_rename_moves_the_note_without_re_embedding(live: Live, vault: Path) -> None:
    quire, watcher, changes, spy = live
    os.rename(vault / "alpha.md", vault / "projects" / "gamma.md")
    wait_for(lambda: paths_for(quire, "pelicans") == ["projects/gamma.md"])
    settle(quire, watcher)
    assert spy.embedded == 0
    assert any(c.kind == "moved" for c in changes)


def test_renaming_a_daily_note_to_another_day_dates_it_anew(live: Live, vault: Path) -> None:
    quire, watcher, _, _ = live
    (vault / "2026-11-30.md").write_text("Fed the kestrels in the yard.\n", "utf-8")
    wait_for(lambda: paths_for(quire, "kestrels") == ["2026-11-30.md"])
    os.rename(vault / "2026-11-30.md", vault / "2026-12-01.md")
    wait_for(lambda: paths_for(quire, "kestrels") == ["2026-12-01.md"])
    settle(quire, watcher)
    found = quire.search("kestrels", top_k=1)[0]
    assert (found.day, found.title) == ("2026-12-01", "1 Dec 2026")


def test_delete_and_folder_move(live: Live, vault: Path) -> None:
    quire, watcher, _, spy = live
    os.rename(vault / "projects", vault / "archive")
    wait_for(lambda: paths_for(quire, "herons") == ["archive/beta.md"])
    (vault / "alpha.md").unlink()
    wait_for(lambda: paths_for(quire, "pelicans") == [])
    settle(quire, watcher)
    assert spy.embedded == 0  # a moved folder keeps its vectors
    assert quire.status().integrity_ok


def test_edits_made_while_closed_are_caught_at_start(vault: Path, quire_home: Path) -> None:
    quire = Quire.open(quire_home)
    quire.index([vault])
    quire.close()
    (vault / "alpha.md").write_text("# Alpha\n\nOffline edit about ibises.\n", "utf-8")
    (vault / "new.md").write_text("# New\n\nA note about spoonbills.\n", "utf-8")
    (vault / "projects" / "beta.md").unlink()
    quire = Quire.open(quire_home)
    watcher = live_index(quire, [vault])
    watcher.start()
    try:
        wait_for(lambda: paths_for(quire, "ibises") == ["alpha.md"])
        wait_for(lambda: paths_for(quire, "spoonbills") == ["new.md"])
        # one pass indexes what changed, then drops what is gone: a search may fall between
        wait_for(lambda: paths_for(quire, "herons") == [])
    finally:
        watcher.stop()
        quire.close()


def test_dropped_events_are_caught_by_reconcile(live: Live, vault: Path) -> None:
    quire, watcher, _, _ = live
    observer = watcher._watches.observer
    assert observer is not None
    observer.unschedule_all()  # from now on the OS "drops" every event
    (vault / "alpha.md").write_text("# Alpha\n\nUnseen edit about egrets.\n", "utf-8")
    time.sleep(1.0)
    assert paths_for(quire, "egrets") == []
    watcher.reconcile_now()
    wait_for(lambda: paths_for(quire, "egrets") == ["alpha.md"])


def test_the_watches_start_on_the_indexing_thread_before_its_scan(
    vault: Path, quire_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A native watch walks every subfolder: not on the caller's (the window's) thread. A note
    written while the watches start is still found."""
    started: list[str] = []
    real_start = Watches._start_first

    def start_first(self: Watches, folders: list[Path]) -> None:
        (vault / "during.md").write_text("# During\n\nWritten as the watch began: ibis.\n")
        real_start(self, folders)
        started.append(threading.current_thread().name)

    monkeypatch.setattr(Watches, "_start_first", start_first)
    quire = Quire.open(quire_home)
    watcher = live_index(quire, [vault])
    watcher.start()
    try:
        wait_for(lambda: paths_for(quire, "ibis") == ["during.md"])
        assert started == ["quire-index"]
        (vault / "after.md").write_text("# After\n\nWritten once watched: spoonbill.\n")
        wait_for(lambda: paths_for(quire, "spoonbill") == ["after.md"])
    finally:
        watcher.stop()
        quire.close()
    assert watcher._watches.observer is not None and not watcher._watches.observer.is_alive()


def test_polling_fallback_works_and_says_so(vault: Path, quire_home: Path) -> None:
    quire = Quire.open(quire_home)
    changes: list[Change] = []
    watcher = live_index(quire, [vault], on_change=changes.append, force_polling=True)
    watcher.start()
    try:
        wait_for(lambda: watcher.polling)  # its watches start on the indexing thread
        assert any(c.kind == "notice" and "polling" in c.detail for c in changes)
        wait_for(lambda: paths_for(quire, "herons") == ["projects/beta.md"])
        (vault / "alpha.md").write_text("# Alpha\n\nPolled edit about puffins.\n", "utf-8")
        wait_for(lambda: paths_for(quire, "puffins") == ["alpha.md"])
    finally:
        watcher.stop()
        quire.close()


def test_bad_files_get_a_reason_and_the_rest_keeps_working(live: Live, vault: Path) -> None:
    quire, _watcher, _changes, _ = live
    (vault / "empty.md").write_bytes(b"")
    (vault / "binary.md").write_bytes(b"\x00\x01\x02\x03" * 100)
    (vault / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    (vault / "utf16.md").write_bytes("# Nota\n\nÚtulná chata u jezera.".encode("utf-16"))
    (vault / "czech.txt").write_bytes("Žluťoučký kůň pije z potoka.".encode("cp1250"))
    (vault / "broken.md").write_bytes(b"caf\xe9 au lait \xff\xfe broken bytes")
    deep = vault.joinpath(*[f"d{i}" for i in range(40)])
    deep.mkdir(parents=True)
    (deep / "deep.md").write_text("A very deep note about kingfishers.", "utf-8")
    (vault / "Cafe\u0301 émoji 🦩.md").write_text("Flamingo café note.", "utf-8")
    (vault / "plain.md").write_text("Still indexed: grebes.", "utf-8")
    wait_for(lambda: paths_for(quire, "grebes") == ["plain.md"], timeout=60)
    wait_for(lambda: paths_for(quire, "kingfishers") != [], timeout=30)
    files = {f.path: f for f in quire.status().listed_files()}
    assert files["empty.md"].status == NoteStatus.SKIPPED and "empty" in files["empty.md"].reason
    assert files["binary.md"].status == NoteStatus.SKIPPED
    assert files["picture.png"].status == NoteStatus.FAILED  # a picture, but a broken one
    assert "picture" in files["picture.png"].reason
    assert paths_for(quire, "chata") == ["utf16.md"]
    assert paths_for(quire, "potoka") == ["czech.txt"]
    assert "CP1250" in files["czech.txt"].reason or "decoded" in files["czech.txt"].reason
    assert files["broken.md"].reason
    assert any(p.startswith("Cafe") and p.endswith("🦩.md") for p in files)
    assert quire.status().integrity_ok


@pytest.mark.slow  # chunking 10 MB takes its time, whatever the embedder
def test_a_10_mb_note_on_one_line_is_indexed_and_the_rest_keeps_working(
    live: Live, vault: Path
) -> None:
    quire = live[0]
    (vault / "long-line.md").write_text("word " * 2_000_000, "utf-8")  # 10 MB on one line
    wait_for(
        lambda: "long-line.md" in {f.path for f in quire.status(False).listed_files()}, timeout=300
    )
    (vault / "plain.md").write_text("Still indexed: grebes.", "utf-8")
    wait_for(lambda: paths_for(quire, "grebes") == ["plain.md"], timeout=60)
    files = {f.path: f for f in quire.status().listed_files()}
    assert files["long-line.md"].chunks > 100
    assert quire.status().integrity_ok


def test_unreadable_file_and_folder_fail_with_a_reason(tmp_path: Path) -> None:
    """chmod 000 does not stop root, so as root the check runs without the capabilities that
    bypass file permissions (setpriv drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH)."""
    import json
    import subprocess
    import sys

    from tests.conftest import ROOT

    vault, home = tmp_path / "vault", tmp_path / "home"
    (vault / "locked").mkdir(parents=True)
    (vault / "ok.md").write_text("Readable note about herons.", "utf-8")
    (vault / "secret.md").write_text("hidden", "utf-8")
    (vault / "locked" / "inner.md").write_text("hidden too", "utf-8")
    (vault / "secret.md").chmod(0)
    (vault / "locked").chmod(0)
    home.mkdir()
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from desktop_app.core.as_json import as_json\nfrom desktop_app.core.api import Quire\n"
        "q = Quire.open(Path(sys.argv[1]))\n"
        "r = q.index([Path(sys.argv[2])], embed=False)[0].report\n"
        "print(json.dumps(r.problems))\n"
        "print(json.dumps(as_json(q.status())['files']))\n"
    )

    caps = "-dac_override,-dac_read_search"
    prefix = ["setpriv", "--bounding-set", caps, "--inh-caps", caps] if os.geteuid() == 0 else []
    if prefix and shutil.which("setpriv") is None:
        pytest.skip("setpriv is needed to drop root's permission override")
    out = subprocess.run(
        [*prefix, sys.executable, "-c", code, str(home), str(vault)], capture_output=True,
        text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    (vault / "locked").chmod(0o755)
    assert out.returncode == 0, out.stderr
    files = {f["path"]: f for f in json.loads(out.stdout.splitlines()[-1])}
    assert files["ok.md"]["status"] == "pending embedding"  # keyword-indexed, no vectors yet
    assert files["secret.md"]["status"] == "failed"
    assert "permission" in files["secret.md"]["reason"]
    assert "locked/inner.md" not in files  # an unreadable folder is passed over, not a crash
    problems = json.loads(out.stdout.splitlines()[-2])
    assert ["locked/", "failed", "cannot open folder: Permission denied"] in problems


class _NoSink:
    def event(
        self, kind: str, src: str | bytes, dest: str | bytes | None, is_directory: bool
    ) -> None:
        pass


def test_a_start_interrupted_once_watching_is_stopped_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl+C or SIGTERM right as `quire watch` starts watching: the stop that follows ends
    the observer's threads too."""
    from watchdog.observers.api import BaseObserver  # loaded lazily, as the app loads it

    real_start = BaseObserver.start

    def start_then_interrupted(self: BaseObserver) -> None:
        real_start(self)
        raise KeyboardInterrupt

    monkeypatch.setattr(BaseObserver, "start", start_then_interrupted)
    before = set(threading.enumerate())
    watches = Watches(Handler(_NoSink()), False, lambda notice: None)
    with pytest.raises(KeyboardInterrupt):
        watches.start(lambda: [tmp_path])
    watches.stop(timeout=10)
    assert [t.name for t in set(threading.enumerate()) - before if t.is_alive()] == []


class _Recording(Handler):
    """Every event watchdog hands over."""

    def __init__(self) -> None:
        super().__init__(_NoSink())
        self.events: list[str] = []

    def dispatch(self, event: Any) -> None:
        self.events.append(event.event_type)
        super().dispatch(event)


@pytest.mark.parametrize("polling", [False, True])
def test_reading_notes_wakes_no_watch_and_writing_one_does(tmp_path: Path, polling: bool) -> None:
    notes = [tmp_path / f"n{n}.md" for n in range(50)]
    for note in notes:
        note.write_text("# Note\n\nA heron.\n", "utf-8")
    handler = _Recording()
    watches = Watches(handler, polling, lambda notice: None)
    watches.start(lambda: [tmp_path])
    try:
        time.sleep(1.5)  # past the polling observer's first look
        handler.events.clear()
        for _ in range(3):
            for note in notes:
                note.read_bytes()  # what the note readers do: open, read, close
        time.sleep(1.5)
        assert handler.events == []
        notes[0].write_text("# Note\n\nA heron, changed.\n", "utf-8")
        wait_for(lambda: "modified" in handler.events, "the write seen")
    finally:
        watches.stop(timeout=10)


def test_watches_stopped_before_their_start_never_start(tmp_path: Path) -> None:
    """The live index can stop before its indexing thread has started the watches."""
    before = set(threading.enumerate())
    watches = Watches(Handler(_NoSink()), False, lambda notice: None)
    watches.stop(timeout=10)
    watches.start(lambda: [tmp_path])
    assert watches.observer is None
    assert [t.name for t in set(threading.enumerate()) - before if t.is_alive()] == []
