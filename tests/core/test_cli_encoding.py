"""The command line writes UTF-8 whatever the code page (Windows writes a pipe or file in the
ANSI code page, cp1252 on most Western machines: simulated here with PYTHONIOENCODING)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.usefixtures("fake_embedder")

NOTE = "# Řetěz\n\nVýměna řetězu na kole: povolte osu a nasaďte nový řetěz. Grüße aus Köln.\n"


def _quire(*args: str, home: Path) -> str:
    env = {
        **os.environ,
        "PYTHONIOENCODING": "cp1252",
        "PYTHONUTF8": "0",
        "QUIRE_HOME": str(home),
        "QUIRE_EMBEDDING_BACKEND": "numpy",  # the installers' encoder
    }
    done = subprocess.run(
        [sys.executable, "-m", "desktop_app", *args],
        capture_output=True, env=env, cwd=ROOT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    done.stderr.decode("utf-8")  # the progress bar and messages too
    return done.stdout.decode("utf-8")  # strict: bytes that are not UTF-8 fail here


@pytest.mark.slow
def test_search_and_ask_json_are_utf8_under_cp1252(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "kolo.md").write_text(NOTE, "utf-8")
    home = tmp_path / "home"
    _quire("index", str(notes), home=home)
    found = json.loads(_quire("search", "výměna řetězu", "--json", home=home))
    assert "Výměna řetězu na kole" in found["results"][0]["text"]
    question = "Jak se dělá výměna řetězu na kole?"
    asked = _quire("ask", question, "--json", "--max-tokens", "8", home=home)  # a short answer
    events = [json.loads(line) for line in asked.splitlines() if line.strip()]
    assert events and "řetěz" in asked and "Grüße" in asked
