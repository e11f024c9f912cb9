"""A full disk, simulated with SQLite's own limit (`PRAGMA max_page_count` on the writer gives
the real SQLITE_FULL, "database or disk is full"): a plain message, nothing lost, and the live
index writes what waited as soon as writing works again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_app import cli
from desktop_app.core.api import Quire
from desktop_app.core.events import Change
from desktop_app.core.store.db import Database
from tests.support.hostile import word
from tests.support.live_index import live_index
from tests.support.wait import wait_for

pytestmark = pytest.mark.usefixtures("fake_embedder")


def fill_disk(database: Database) -> None:
    """From now on the writer cannot grow the file by a single page."""
    with database._write_lock:
        writer = database._writer
        writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = writer.execute("PRAGMA page_count").fetchone()[0]
        writer.execute(f"PRAGMA max_page_count = {pages}")


def free_disk(database: Database) -> None:
    with database._write_lock:
        database._writer.execute("PRAGMA max_page_count = 1073741823")


def write_notes(folder: Path, first: int, count: int) -> None:
    folder.mkdir(exist_ok=True)
    filler = " ".join(f"filler{i} words to fill pages" for i in range(200))
    for n in range(first, first + count):
        (folder / f"note{n}.md").write_text(f"# Note {n}\n\n{word(n)}\n\n{filler}\n", "utf-8")


def test_index_on_a_full_disk_says_so_plainly_and_loses_nothing(
    tmp_path: Path,
    quire_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = tmp_path / "notes"
    write_notes(folder, 0, 5)
    assert cli.main(["index", "--no-embed", str(folder)]) == 0
    write_notes(folder, 5, 40)
    capsys.readouterr()

    real_init = Database.__init__

    def full(self: Database, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        fill_disk(self)

    monkeypatch.setattr(Database, "__init__", full)
    code = cli.main(["index", "--no-embed", str(folder)])
    _, err = capsys.readouterr()
    assert code == 1
    assert err.strip().splitlines()[-1] == (
        f"quire: the disk is full: free some space on the drive of {quire_home} (where Quire "
        "keeps its index); nothing indexed so far is lost. Then run the command again."
    )
    assert "rollback" not in err and "Traceback" not in err

    monkeypatch.setattr(Database, "__init__", real_init)
    assert cli.main(["index", "--no-embed", str(folder)]) == 0
    capsys.readouterr()
    assert cli.main(["status", "--json"]) == 0  # integrity ok
    status = json.loads(capsys.readouterr().out)
    assert status["counts"]["notes"] == 45
    assert status["integrity"]["ok"]


def test_a_failed_commit_leaves_no_transaction_open(tmp_path: Path) -> None:
    database = Database(tmp_path / "q.sqlite")
    fill_disk(database)
    from desktop_app.core.store.db import DiskFull

    with pytest.raises(DiskFull), database.write() as db:
        db.execute("CREATE TABLE big (x)")
        db.conn.executemany("INSERT INTO big VALUES (?)", [("x" * 2000,)] * 50)
    assert not database._writer.conn.in_transaction
    free_disk(database)
    with database.write() as db:  # the writer works again
        db.execute("CREATE TABLE small (x)")
    database.close()


def test_live_index_writes_what_waited_once_the_disk_has_room(
    tmp_path: Path, quire_home: Path
) -> None:
    folder = tmp_path / "notes"
    write_notes(folder, 0, 2)
    quire = Quire.open(quire_home)
    quire.index([folder], embed=False)
    changes: list[Change] = []
    live = live_index(quire, [folder], on_change=changes.append, reconcile_every=3600)
    live.start(reconcile=False)
    try:
        wait_for(lambda: any(c.kind == "caught-up" for c in changes), timeout=120)
        fill_disk(quire.database)
        write_notes(folder, 2, 3)
        wait_for(lambda: any("disk is full" in c.detail for c in changes), timeout=60)
        assert "note3.md" not in {f.path for f in quire.status(False).listed_files()}
        assert len([c for c in changes if "disk is full" in c.detail]) == 1  # told once
        free_disk(quire.database)  # no rescan is due for an hour: the retry brings them in
        wait_for(lambda: {"note2.md", "note3.md", "note4.md"}
                 <= {f.path for f in quire.status(False).listed_files()}, timeout=60)  # fmt: skip
        assert any("room again" in c.detail for c in changes)
        assert "note3.md" in [r.path for r in quire.search(word(3), top_k=3)]
    finally:
        live.stop()
        quire.close()
