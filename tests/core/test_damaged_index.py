"""Case 2 of issue 13: a damaged index is moved aside, rebuilt from the notes folders and
reported once; the folder list survives. Real SQLite files, damaged for real, through the CLI."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from desktop_app import cli
from desktop_app.core.api import Quire
from desktop_app.core.store.health import IndexDamaged, check_file
from tests.support.corruption import PNG, damage_fts, replace_with, truncate

pytestmark = pytest.mark.usefixtures("fake_embedder")

WORDS = 24


def unique_word(n: int) -> str:
    rng = random.Random(n)
    return "q" + "".join(rng.choice("bcdfghjklmnpstvwxz") for _ in range(9))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def vault(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    folder = tmp_path / "vault"
    folder.mkdir()
    for n in range(WORDS):
        (folder / f"note{n:02d}.md").write_text(
            f"# Note {n}\n\nA plain note about gardening, with the marker {unique_word(n)} "
            "somewhere in the middle of an ordinary sentence.\n",
            "utf-8",
        )
    code, _, _ = run(capsys, "index", str(folder), "--no-embed")
    assert code == 0
    return folder


def damage(kind: str, db: Path) -> None:
    if kind == "truncated":
        truncate(db, db.stat().st_size // 3)
    elif kind == "png":
        replace_with(db, PNG)
    elif kind == "text":
        replace_with(db, b"these are not the droids you are looking for\n" * 50)
    else:
        damage_fts(db, random.Random(13), pages=2)


def assert_rebuilt(capsys: pytest.CaptureFixture[str], home: Path, vault: Path) -> None:
    assert list(home.glob("quire.sqlite.damaged-*")), "the damaged file is kept"
    code, out, _ = run(capsys, "status", "--json")
    status = json.loads(out)
    assert code == 0 and status["integrity"]["ok"]
    assert status["counts"]["folders"] == 1 and status["counts"]["notes"] == WORDS
    assert status["recovery"]["problems"]
    for n in range(WORDS):
        code, out, err = run(capsys, "search", unique_word(n), "--json", "--top", "1")
        assert code == 0, err
        assert json.loads(out)["results"][0]["path"] == f"note{n:02d}.md"


KINDS = ["truncated", "png", "text", "fts-bytes"]


@pytest.mark.parametrize("kind", KINDS)
def test_status_reports_damage_and_rebuilds(
    kind: str, vault: Path, quire_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damage(kind, quire_home / "quire.sqlite")
    code, out, err = run(capsys, "status")
    assert code == 0
    assert "index was damaged" in err and "kept as" in err
    assert "index rebuilt" in err
    assert "last repair" in out and "integrity: ok" in out
    assert_rebuilt(capsys, quire_home, vault)
    code, _, err = run(capsys, "status")
    assert "damaged" not in err  # told once


@pytest.mark.parametrize("kind", KINDS)
def test_search_after_damage_finds_every_note(
    kind: str, vault: Path, quire_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damage(kind, quire_home / "quire.sqlite")
    code, out, err = run(capsys, "search", unique_word(3), "--json")
    assert code == 0, err
    assert "index was damaged" in err
    assert json.loads(out)["results"][0]["path"] == "note03.md"
    assert_rebuilt(capsys, quire_home, vault)


@pytest.mark.parametrize("kind", ["truncated", "fts-bytes"])
def test_index_detects_and_repairs(
    kind: str, vault: Path, quire_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damage(kind, quire_home / "quire.sqlite")
    code, out, err = run(capsys, "index", str(vault), "--no-embed")
    assert code == 0
    assert "index was damaged" in err
    assert f"{WORDS} indexed, 0 unchanged" in out
    assert_rebuilt(capsys, quire_home, vault)


def test_repair_verb(vault: Path, quire_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "repair", "--no-embed")
    assert code == 0 and "nothing to repair" in out
    assert not list(quire_home.glob("quire.sqlite.*-*"))
    damage("fts-bytes", quire_home / "quire.sqlite")
    code, out, err = run(capsys, "repair", "--no-embed")
    assert code == 0
    assert "index was damaged" in err and "found:" in out
    assert f"{WORDS} indexed" in out
    assert_rebuilt(capsys, quire_home, vault)
    code, out, err = run(capsys, "repair", "--rebuild", "--no-embed")
    assert code == 0 and list(quire_home.glob("quire.sqlite.replaced-*"))


def test_folder_list_survives_an_unreadable_file(
    vault: Path, tmp_path: Path, quire_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.md").write_text("# X\n\nqwertzuiop lives here.\n", "utf-8")
    assert run(capsys, "index", str(other), "--no-embed")[0] == 0
    saved = json.loads((quire_home / "folders.json").read_text("utf-8"))
    assert [f["path"] for f in saved["folders"]] == [str(vault.resolve()), str(other.resolve())]
    (quire_home / "settings.json").write_text('{"top_k": 7}', "utf-8")
    replace_with(quire_home / "quire.sqlite", PNG)
    quire = Quire.open(quire_home)
    try:
        assert quire.repair.recovery is not None
        assert quire.known_folders() == [vault.resolve(), other.resolve()]
        assert quire.settings.top_k == 7
    finally:
        quire.close()


def test_search_error_from_damage_is_index_damaged(
    vault: Path, quire_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Damage that appears while Quire is open: search raises IndexDamaged, never a raw
    SQLite error, and the CLI turns it into the repair path."""
    quire = Quire.open(quire_home)
    try:
        damage("fts-bytes", quire.database.path)
        assert not check_file(quire.database.path).ok
        failures = 0
        for n in range(WORDS):
            try:
                quire.search(unique_word(n))
            except IndexDamaged:
                failures += 1
        assert failures, "the damage shows in some searches"
    finally:
        quire.close()


def test_large_index_opens_cheaply_and_search_finds_the_damage(
    vault: Path,
    quire_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Above the size limit, `search` opens with the cheap check only; damage inside the
    full-text index then surfaces in a query, which takes the same repair path."""
    from desktop_app.core.store import health

    monkeypatch.setattr(health, "QUICK_ON_OPEN_MAX_BYTES", 0)
    damage("fts-bytes", quire_home / "quire.sqlite")
    reported = 0
    for n in range(WORDS):
        code, out, err = run(capsys, "search", unique_word(n), "--json", "--top", "1")
        assert code == 0, err
        assert json.loads(out)["results"][0]["path"] == f"note{n:02d}.md"
        reported += "index was damaged" in err
    assert reported == 1
    assert_rebuilt(capsys, quire_home, vault)
