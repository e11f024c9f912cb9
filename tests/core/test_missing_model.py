"""Case 6 of issue 13 (one part): an `embedding_model` folder that vanished leaves keyword
search and keyword indexing working, with one clear notice instead of a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app import cli

pytestmark = pytest.mark.usefixtures("fake_embedder")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.real_embedder
def test_vanished_embedding_model(
    notes_dir: Path, tmp_path: Path, quire_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "index", str(notes_dir), "--no-embed")[0] == 0
    gone = tmp_path / "my-model"
    quire_home.mkdir(exist_ok=True)
    (quire_home / "settings.json").write_text(json.dumps({"embedding_model": str(gone)}), "utf-8")

    code, out, err = run(capsys, "search", "selective sync", "--json")
    assert code == 0, err
    assert json.loads(out)["results"][0]["path"] == "sync/settings.md"
    assert err.count("keyword-only search") == 1 and str(gone) in err

    (notes_dir / "new.md").write_text("# New\n\nA fresh note about sourdough.\n", "utf-8")
    code, out, err = run(capsys, "index", str(notes_dir))
    assert code == 0, err
    assert "1 indexed" in out and "0 embedded" in out
    assert err.count("no vectors made") == 1 and str(gone) in err
    code, out, _ = run(capsys, "search", "sourdough", "--json")
    assert json.loads(out)["results"][0]["path"] == "new.md"
