"""Settings are checked field by field: a bad value or file falls back to defaults, the original
file is kept aside, and the user is told once (the CLI on stderr)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app import cli
from desktop_app.settings import Settings

pytestmark = pytest.mark.usefixtures("fake_embedder")

BAD_VALUES: dict[str, list[object]] = {
    "chunk_tokens": [-5, 0, 10, 100_000, 200.5, "200", True, None],
    "max_file_mb": [-1, 0, float("nan"), float("inf"), "big", False],
    "candidates": [0, -3, 10**9, 2.5],
    "top_k": [-1, 0, 10**6],
    "min_relevance": [float("nan"), -0.1, 1.5, float("-inf")],
    "temperature": [float("nan"), float("inf"), -1, 3],
    "context_tokens": [-1, 10**12],
    "theme": ["purple", 3, ""],
    "embedding_model": [5, ["a"], "bad\x00path"],
    "chat_model": [None, {"x": 1}],
    "multilingual_companion": [1, "yes", None],
}


@pytest.mark.parametrize(
    ("name", "value"), [(n, v) for n, values in BAD_VALUES.items() for v in values]
)
def test_a_bad_value_falls_back_to_its_default(tmp_path: Path, name: str, value: object) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({name: value, "top_k": 7} if name != "top_k" else {name: value}))
    settings = Settings.load(path)
    assert getattr(settings, name) == getattr(Settings(), name)
    if name != "top_k":
        assert settings.top_k == 7  # the good fields are kept
    assert settings.problems and settings.problems[0].startswith(f"{name} = ")
    kept = list(tmp_path.glob("settings.json.bad-*"))
    assert len(kept) == 1 and name in json.loads(kept[0].read_text())
    again = Settings.load(path)  # the corrected file was saved: told once
    assert again.problems == [] and again == settings


def test_good_values_in_range_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    chosen = {
        "chunk_tokens": 50, "max_file_mb": 0.5, "candidates": 1, "top_k": 1, "theme": "dark",
        "min_relevance": 1, "temperature": 0, "context_tokens": 4096, "chat_model": "/m.gguf",
        "multilingual_companion": False,
    }  # fmt: skip
    path.write_text(json.dumps(chosen))
    settings = Settings.load(path)
    assert settings.problems == []
    assert settings.min_relevance == 1.0 and isinstance(settings.min_relevance, float)
    assert {k: getattr(settings, k) for k in chosen} == chosen
    assert not list(tmp_path.glob("settings.json.bad-*"))


@pytest.mark.parametrize("text", ["{not json", "null", "[1, 2]", '"text"', "", "\xff\xfe"])
def test_a_broken_file_is_kept_aside_and_defaults_used(tmp_path: Path, text: str) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(text.encode("latin-1"))
    settings = Settings.load(path)
    assert settings == Settings()
    assert len(settings.problems) == 2  # what was wrong, and where the file is kept
    kept = list(tmp_path.glob("settings.json.bad-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == text.encode("latin-1")
    assert str(kept[0]) in settings.problems[1]
    assert Settings.load(path).problems == []


def test_saving_never_writes_the_problems(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    settings = Settings(top_k=3)
    settings.problems.append("something")
    settings.save(path)
    assert "problems" not in json.loads(path.read_text())


def test_the_cli_reports_bad_settings_once_and_still_works(
    quire_home: Path, notes_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quire_home.mkdir(parents=True, exist_ok=True)
    (quire_home / "settings.json").write_text(
        '{"chunk_tokens": -5, "max_file_mb": -1, "top_k": -1, "min_relevance": NaN,'
        ' "temperature": Infinity}'
    )
    assert cli.main(["index", "--no-embed", str(notes_dir)]) == 0
    out, err = capsys.readouterr()
    assert "3 indexed" in out  # max_file_mb -1 would have skipped every note
    for name in ("chunk_tokens", "max_file_mb", "top_k", "min_relevance", "temperature"):
        assert f"quire: settings: {name} = " in err
    assert cli.main(["status", "--json"]) == 0
    out, err = capsys.readouterr()
    assert "quire: settings" not in err  # told once
    assert json.loads(out)["counts"]["chunks"] < 10  # not thousands of tiny chunks
    assert cli.main(["search", "Tomaten im Garten", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"]  # top_k -1 would return nothing
