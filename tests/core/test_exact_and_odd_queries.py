"""Exact words rank their own note first; queries with invalid UTF-8 bytes search normally."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_app import cli
from desktop_app.core.api import Quire
from desktop_app.core.as_json import as_json
from desktop_app.core.text import clean_text
from tests.conftest import EMBEDDERS, ROOT

pytestmark = pytest.mark.usefixtures("fake_embedder")

FINAL_WORDS = ["final", "finally", "finals", "finalize", "finalist", "finality", "finalised"]
TOPICS = ["garden", "bread", "bicycle", "python", "travel", "music", "budget", "chess", "coffee",
          "running", "camera", "kitchen", "laptop", "river", "mountain", "library", "winter",
          "meeting", "invoice", "printer"]  # fmt: skip
CHECKLIST = (
    "Tag the build, update the changelog, run the smoke tests on every supported platform, "
    "write the release notes, upload the installers, announce it on the mailing list and close "
    "the milestone. "
)


@pytest.fixture(scope="module", params=EMBEDDERS)  # the dense half ranks with either
def vault(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """60 short notes full of "final…" words (a quarter of the vault, close in meaning to
    "final mark"), 190 on other things, and one long checklist holding the marker word once:
    BM25 scores the short prefix matches higher, and the embedder prefers them too."""
    base = tmp_path_factory.mktemp("exact")
    notes, home = base / "notes", base / "home"
    notes.mkdir()
    for n in range(60):
        word = FINAL_WORDS[n % len(FINAL_WORDS)]
        (notes / f"final{n:02}.md").write_text(
            f"# {word.title()} mark {n}\n\nThe {word} mark of exam {n} went well. "
            f"We {word} the {word} marks and mark the {word} date.\n",
            "utf-8",
        )
    for n in range(190):
        topic, other = TOPICS[n % len(TOPICS)], TOPICS[(n * 7 + 3) % len(TOPICS)]
        (notes / f"{topic}{n:03}.md").write_text(
            f"# {topic.title()} note {n}\n\nSome thoughts on {topic} and {other}, "
            f"written down on day {n}.\n",
            "utf-8",
        )
    (notes / "target.md").write_text(
        "# Release checklist\n\n" + CHECKLIST * 4 + "The build id is finalmark3r59. "
        + "Then archive the logs, rotate the signing keys and plan the next sprint. " * 4,
        "utf-8",
    )  # fmt: skip
    (notes / "cafe.md").write_text("# Café\n\nThe café opens at nine.\n", "utf-8")
    quire = Quire.open(home)
    quire.index([notes])  # embeddings included: the dense half used to outrank it as well
    quire.close()
    yield notes, home


@pytest.fixture(scope="module")
def quire(vault: tuple[Path, Path]) -> Iterator[Quire]:
    q = Quire.open(vault[1])
    yield q
    q.close()


def test_an_exact_unique_word_ranks_its_own_note_first(quire: Quire) -> None:
    results = quire.search("finalmark3r59")
    assert results[0].path == "target.md"
    assert results[0].matched_terms == ["finalmark3r59"]
    # other notes matched only by the prefix "final": they never claim to hold the word
    assert all(r.matched_terms == [] for r in results[1:])
    assert quire.search("FinalMark3r59 tag")[0].path == "target.md"


def test_prefix_only_matches_are_not_listed_as_matched(quire: Quire) -> None:
    results = quire.search("finalmarker")  # in no note (nor its stem); shares "final" with many
    assert results and all(r.matched_terms == [] for r in results)
    assert "finally" in quire.search("finally marks")[0].matched_terms  # stems still count


def test_cli_search_exact_word(
    vault: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUIRE_HOME", str(vault[1]))
    assert cli.main(["search", "finalmark3r59", "--json"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert results[0]["path"] == "target.md" and results[0]["matched_terms"] == ["finalmark3r59"]


def test_clean_text() -> None:
    assert clean_text("caf\udce9") == "caf\ufffd"
    assert clean_text("a\ud800b\x00c") == "a\ufffdb c"
    assert clean_text("příliš žluťoučký 😀") == "příliš žluťoučký 😀"


def test_core_search_with_surrogate_escaped_bytes(quire: Quire) -> None:
    results = quire.search("caf\udce9 opens")  # 'café' typed in a Latin-1 terminal
    assert results[0].path == "cafe.md"
    assert isinstance(quire.search("\udcff\udcfe"), list)  # nothing to match, and no error
    json.dumps([as_json(r) for r in results]).encode("utf-8")


def test_cli_search_with_invalid_utf8_argv(tmp_path: Path) -> None:
    """Real bytes on the command line, as a Latin-1 terminal sends them (a keyword index of
    its own: the process runs the real embedder, which never loads without vectors)."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "cafe.md").write_text("# Café\n\nThe café opens at nine.\n", "utf-8")
    quire = Quire.open(tmp_path / "home")
    quire.index([tmp_path / "notes"], embed=False)
    quire.close()
    env = dict(os.environ, QUIRE_HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT),
               PYTHONUTF8="1", LC_ALL="C.UTF-8")  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "desktop_app", "search", b"caf\xe9 opens", "--json"],
        env=env, capture_output=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stderr
    out = json.loads(done.stdout)
    assert out["query"] == "caf\ufffd opens" and out["results"][0]["path"] == "cafe.md"


def test_cli_plain_search_with_a_surrogate_escaped_query(
    vault: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUIRE_HOME", str(vault[1]))
    assert cli.main(["search", "caf\udce9 opens"]) == 0
    assert "cafe.md" in capsys.readouterr().out


def test_a_passage_preview_reads_as_rendered_text() -> None:
    from desktop_app.core.text import plain_text

    note = (
        "## Příprava\n**Hovězí** maso ![[obsidian.svg#icon]] s [[Omáčka|omáčkou]], "
        "[recept](https://example.org) a <b>smetana</b>\n> citát\nsnake_case__name 2 * 3"
    )
    assert plain_text(note) == (
        "Příprava\nHovězí maso  s omáčkou, recept a smetana\ncitát\nsnake_case__name 2 * 3"
    )
