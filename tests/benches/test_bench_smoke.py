"""Every script of tests/bench/ run end to end on a tiny input (the eval sets' small copy in
tests/data/eval-mini, a few notes, one or two questions), so a renamed attribute or a changed
signature fails here instead of late in `make bench`. Each test checks the numbers the script
prints, not their values (those are what the benches measure)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.bench import bench_answers, bench_gate, evidence_dev, gate_ceiling, gate_dev
from desktop_app.core.answer import llm
from tests.conftest import MINI_EVAL_DIR
from tests.fakes import QueuedModel

ROOT = Path(__file__).resolve().parents[2]
TIL_NOTES = MINI_EVAL_DIR / "til-en" / "notes"
NUMBER = r"\d+(?:\.\d+)?"


def test_bench_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_gate.main(["--per-side", "3", "--eval", str(MINI_EVAL_DIR), "xquad-en"]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"\| xquad-en \| {NUMBER}% \| {NUMBER}% \| 3 \+ 3 \|", out), out
    assert re.search(rf"coverage 0\.45: cos 0\.40 {NUMBER}/{NUMBER}", out), out


def test_gate_ceiling(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--per-side", "3", "--eval", str(MINI_EVAL_DIR), "xquad-de"]
    assert gate_ceiling.main(argv) == 0
    out = capsys.readouterr().out
    cell = rf"{NUMBER}% / {NUMBER}%"
    assert re.search(rf"\| xquad-de \| {cell} \| {cell} \| {cell} \| {cell} \|", out), out


def test_evidence_dev_and_gate_dev(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """evidence_dev builds its cache (index and search results), measures and fits on it;
    gate_dev re-uses the index it left."""
    cache = ["--cache", str(tmp_path / "cache"), "--eval", str(MINI_EVAL_DIR)]
    assert evidence_dev.main([*cache, "--from", "0", "--to", "6", "xquad-en"]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"xquad-en \[0:6\] n=6: evidence@1 {NUMBER}  @3 {NUMBER}", out), out
    assert evidence_dev.main([*cache, "--from", "0", "--to", "6", "--fit", "xquad-en"]) == 0
    out = capsys.readouterr().out
    assert re.search(r'^\{"ranking": 1\.0, "cue": ', out.splitlines()[-1]), out
    argv = [*cache, "--from", "0", "--to", "4", "sample", "xquad-en"]
    assert gate_dev.main(argv) == 0
    out = capsys.readouterr().out
    shares = rf"answered {NUMBER} weak {NUMBER} absent {NUMBER}"
    assert re.search(rf"sample answerable: {shares}", out), out
    assert re.search(rf"xquad-en answerable \[0:4\]: {shares}", out), out
    assert re.search(rf"xquad-en unanswerable \(all \d+\): {shares}", out), out


def test_bench_answers(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Evidence and outcomes on three sets, til-en's span evidence, and one generated answer per
    set (Quire's and the naive baseline's) and for til-en's commands, from a queued model (the
    bundled one runs in test_bench_generation)."""
    answer = "It takes 42 minutes [1]. Run `git undo --all` first [2]."
    monkeypatch.setattr(llm, "LocalModel", lambda n_ctx: QueuedModel(*[answer] * 10, n_ctx=n_ctx))
    argv = ["--questions", "3", "--generate", "1", "--max-tokens", "8", "--eval",
            str(MINI_EVAL_DIR), "sample", "xquad-en", "til-en"]  # fmt: skip
    assert bench_answers.main(argv) == 0
    out = capsys.readouterr().out
    ms = rf"{NUMBER} / {NUMBER} ms"
    assert re.search(rf"\| xquad-en \| 3 \| {NUMBER} \| {NUMBER} \| {NUMBER} / {NUMBER} \| "
                     rf"{NUMBER} \| {ms} \|", out), out  # fmt: skip
    assert re.search(rf"\| til-en \| {NUMBER} \| {NUMBER} \| {NUMBER} \| {NUMBER} \| \d+ \+ \d+ \|",
                     out), out  # fmt: skip
    assert re.search(rf"\| sample \| 1 \| {NUMBER} / {NUMBER} \|", out), out
    assert re.search(rf"\| xquad-en \| 1 \| {NUMBER} / {NUMBER} \|", out), out
    assert re.search(r"^\| 1 \| [01] \| [01] \| \d+ \| \d+ \| \d+ \|$", out, re.MULTILINE), out
    assert re.search(rf"\| til-en \| \d+ \| {NUMBER} \| {NUMBER} \| {NUMBER} \| {NUMBER} \| "
                     r"\d+ of \d+ \|", out), out  # fmt: skip
