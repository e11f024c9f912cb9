"""The fixed command-line interface, end to end with the real embedding model."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from desktop_app import cli
from tests.conftest import EMBEDDERS, MINI_EVAL_DIR, ROOT

pytestmark = pytest.mark.usefixtures("fake_embedder")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(params=EMBEDDERS)
def indexed(notes_dir: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    (notes_dir / "fake.md").write_bytes(b"\x00\x01\x02binary pretending to be markdown")
    (notes_dir / "legacy.txt").write_bytes("Stará poznámka o řetězech a kolech".encode("cp1250"))
    code, out, err = run(capsys, "index", str(notes_dir))
    assert code == 0
    assert "Indexing" in err  # progress on stderr
    assert "skipped: fake.md: binary content" in out
    return notes_dir


def test_search_returns_exact_spans_in_json(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "search", "výměna řetězu na kole", "--json", "--top", "3")
    assert code == 0
    results = json.loads(out)["results"]
    assert results[0]["path"] in ("kolo.md", "legacy.txt")
    for r in results:
        assert set(r) >= {"path", "start", "end", "score", "text"}
        assert "\\" not in r["path"]
        note = (indexed / r["path"]).read_bytes()
        text = note.decode("utf-8") if r["path"] != "legacy.txt" else note.decode("cp1250")
        assert text[r["start"] : r["end"]] == r["text"]


def test_batch_search_prints_one_line_per_query(
    indexed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = tmp_path / "q.jsonl"
    lines = [
        {"id": "a", "question": "which folders get copied to the laptop?"},
        {"id": "b", "question": "Wie viel Wasser brauchen Tomaten?"},
        {"id": "c", "question": 'NOT "* -'},
    ]
    queries.write_text("\n".join(json.dumps(q) for q in lines) + "\n", "utf-8")
    code, out, _ = run(capsys, "search", "--queries", str(queries), "--json")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in rows] == ["a", "b", "c"]
    assert rows[0]["results"][0]["path"] == "sync/settings.md"
    assert rows[1]["results"][0]["path"] == "garten.txt"
    for row in rows:  # the gate's decision as `ask` makes it, with its outcome
        assert row["outcome"] in ("answered", "weak", "absent")
        assert row["answerable"] == (row["outcome"] != "absent")
    code, out, _ = run(capsys, "search", "--queries", str(queries), "--json", "--no-gate")
    fast = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [sorted(r) for r in fast] == [["id", "results", "scope"]] * 3
    assert [r["results"] for r in fast] == [r["results"] for r in rows]


def test_status_reports_every_file_and_integrity(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "status", "--json")
    assert code == 0
    status = json.loads(out)
    by_path = {f["path"]: f for f in status["files"]}
    assert by_path["fake.md"]["status"] == "skipped"
    assert by_path["kolo.md"]["status"] == "indexed"
    assert "CP1250" in by_path["legacy.txt"]["reason"]
    assert status["integrity"] == {
        "sqlite_integrity": True, "fts_integrity": True, "fts_error": "", "fts_in_sync": True,
        "ok": True,
    }  # fmt: skip
    assert status["counts"]["pending_embedding"] == 0
    code, out, _ = run(capsys, "status")
    assert "integrity: ok" in out and "skipped: fake.md" in out


def test_status_json_keeps_its_keys_in_their_order(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`quire status --json` is an interface: the typed status prints the keys the dicts had."""
    code, out, _ = run(capsys, "status", "--json")
    status = json.loads(out)
    assert code == 0 and out.startswith('{\n  "database": ')  # indented by two, as before
    assert list(status) == [
        "database",
        "embedding_model",
        "counts",
        "migrations",
        "integrity",
        "files",
        "recovery",
        "companion_model",
    ]
    assert list(status["counts"]) == [
        "folders",
        "notes",
        "skipped",
        "failed",
        "chunks",
        "pending_embedding",
    ]
    assert list(status["integrity"]) == [
        "sqlite_integrity",
        "fts_integrity",
        "fts_error",
        "fts_in_sync",
        "ok",
    ]
    assert all(
        list(f) == ["folder", "path", "status", "reason", "language", "chunks", "ocr_pages"]
        for f in status["files"]
    )
    assert {f["status"] for f in status["files"]} <= {"indexed", "pending embedding", "skipped"}
    assert all(isinstance(m, str) for m in status["migrations"]) and status["recovery"] is None


def test_search_json_keeps_its_keys_in_their_order(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "search", "výměna řetězu na kole", "--json", "--top", "3")
    line = json.loads(out)
    assert code == 0 and list(line) == ["query", "scope", "results"]
    for r in line["results"]:
        assert list(r) == ["path", "start", "end", "score", "text", "title", "heading_path",
                           "lines", "matched_terms", "folder", "day"]  # fmt: skip


def test_missing_folder_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "index", str(tmp_path / "nope"))
    assert code == 2 and "not a folder" in err


def _mini_set(tmp_path: Path) -> Path:
    """A copy of the repository's small xquad-en: six notes and their questions."""
    source = MINI_EVAL_DIR / "xquad-en"
    questions = [
        json.loads(x) for x in (source / "questions.jsonl").read_text("utf-8").splitlines()
    ]
    notes = sorted({q["path"] for q in questions})[:6]
    target = tmp_path / "mini"
    (target / "notes").mkdir(parents=True)
    for name in notes:
        shutil.copy(source / "notes" / name, target / "notes" / name)
    chosen = [q for q in questions if q["path"] in notes][:80]
    (target / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in chosen), "utf-8")
    return target


def test_eval_matches_score_py_on_batch_search_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mini = _mini_set(tmp_path)
    code, out, _ = run(capsys, "eval", str(mini))
    assert code == 0
    ours = dict(line.split("\t") for line in out.splitlines())
    assert float(ours["Hit@10"]) > 0.8
    code, out, _ = run(capsys, "search", "--queries", str(mini / "questions.jsonl"), "--json")
    results = tmp_path / "results.jsonl"
    results.write_text(out, "utf-8")
    scored = subprocess.run(
        [sys.executable, str(MINI_EVAL_DIR / "score.py"), str(mini / "questions.jsonl"),
         str(results)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    theirs = {line.split("\t")[0]: line.split("\t")[-1] for line in scored.splitlines()}
    for key in ("Hit@1", "Hit@3", "Hit@5", "Hit@10", "MRR@10"):
        assert theirs[key] == ours[key], key


def test_console_script_runs_as_a_module(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "desktop_app", "status", "--json"],
        capture_output=True, text=True, cwd=ROOT, check=True,
    ).stdout  # fmt: skip
    assert json.loads(out)["counts"]["notes"] == 0


@pytest.mark.parametrize(
    ("replaced", "said"),
    [("unbacked", "Your notes back none of the model's answer above. Instead:"),
     ("off_question", "The model's answer above repeats a passage off the question. Instead:")],
)  # fmt: skip
def test_ask_says_why_the_model_answer_gave_way_to_the_notes(
    replaced: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop_app.cli.ask import _print_checks
    from desktop_app.core.events import Citations, Done, Draft, DraftReplaced, Outcome, Timings

    draft = Draft("It takes 2 hours [2].", [], [], "It takes 2 hours [2].", DraftReplaced(replaced))
    quoted = "Your notes say: “The train takes four hours.” [1]"
    timings = Timings(0.1, 10, 3, None, 0.0)
    _print_checks(Done(quoted, True, Citations(), "stop", timings, Outcome.ANSWERED, draft=draft))
    printed = capsys.readouterr().out
    assert said in printed and printed.rstrip().endswith(quoted)
    assert "Checked: It takes 2 hours [2]." in printed


def test_watch_stops_on_sigterm_and_a_second_one_would_end_it(tmp_path: Path) -> None:
    """SIGTERM ends `quire watch` cleanly, as Ctrl+C does (it must not wait on a lock its own
    thread holds); once stopping, SIGTERM is the system's again."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nWatched.\n", "utf-8")
    before = signal.getsignal(signal.SIGTERM)
    returned = threading.Event()

    def terminate_once_watching() -> None:
        while signal.getsignal(signal.SIGTERM) is before:  # until `watch` has its handler
            if returned.wait(0.05):
                return
        os.kill(os.getpid(), signal.SIGTERM)

    sender = threading.Thread(target=terminate_once_watching)
    sender.start()
    try:
        code = cli.main(["watch", str(folder)])
    finally:
        returned.set()
        sender.join()
        after = signal.getsignal(signal.SIGTERM)
        signal.signal(signal.SIGTERM, before)
    assert code == 0 and after == signal.SIG_DFL
