"""Saved conversations, crash reports, passage highlights and settings that change the index."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_app import crash
from desktop_app.core.conversations import Conversation, ConversationStore, Turn
from desktop_app.core.ingest import indexer
from desktop_app.core.passage import Passage
from desktop_app.core.retrieval.highlight import matching_spans
from desktop_app.core.store.db import Database

pytestmark = pytest.mark.usefixtures("fake_embedder")


def test_conversations_round_trip_newest_first(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "conversations")
    older, newer = Conversation(), Conversation()
    passage = Passage.from_json({"n": 1, "path": "b.md"})
    older.add(Turn("How do I bake bread?", "At 250 °C [1].", [passage] if passage else []))
    store.save(older)
    newer.add(Turn("Kolik stál řetěz? " * 10, "600 Kč [1]."))
    newer.updated = older.updated + 10
    store.save(newer)
    (store.folder / "damaged.json").write_text("{not json", "utf-8")
    found = store.recent()
    assert [c.id for c in found] == [newer.id, older.id]  # the damaged file is skipped
    [source] = found[1].turns[0].sources  # read back field by field, missing ones defaulted
    assert (source.to_json()["n"], source.to_json()["path"]) == (1, "b.md")
    assert found[0].title.endswith("…") and len(found[0].title) <= 60
    store.delete(older.id)
    assert [c.id for c in store.recent()] == [newer.id]


def test_a_clean_exit_leaves_no_report(tmp_path: Path) -> None:
    crash.start_run(tmp_path)
    crash.clean_exit(tmp_path)
    assert crash.previous_crash(tmp_path) is None


def test_a_run_that_dies_leaves_a_report_for_the_next_start(tmp_path: Path) -> None:
    code = (
        "import sys, os; from pathlib import Path; from desktop_app import crash\n"
        "home = Path(sys.argv[1]); crash.start_run(home)\n"
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n"
        "    crash.record_exception(home, type(e), e, e.__traceback__)\n"
        "os.abort()\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True)
    assert done.returncode != 0
    report = crash.previous_crash(tmp_path)
    assert report is not None and report.exists()
    text = report.read_text()
    assert "ZeroDivisionError" in text and "Fatal Python error: Aborted" in text
    assert crash.previous_crash(tmp_path) is None  # offered once


FATAL_CHILD = (
    "import ctypes, sys; from pathlib import Path; from desktop_app import crash\n"
    "crash.start_run(Path(sys.argv[1]))\n"
    "print('window is up', file=sys.stderr, flush=True)\n"
    "ctypes.pythonapi.Py_FatalError(b'bool_dealloc: deallocating True or False')\n"
)


def test_a_fatal_error_in_the_supervised_window_leaves_a_report(tmp_path: Path) -> None:
    # CPython turns faulthandler off before a fatal error aborts, so its last words reach only
    # stderr: without the supervisor the report had nothing but "did not close normally".
    from desktop_app.supervisor import run_supervised

    code = run_supervised([sys.executable, "-c", FATAL_CHILD, str(tmp_path)], tmp_path)
    assert code == 128 + 6  # SIGABRT
    report = crash.previous_crash(tmp_path)
    assert report is not None
    text = report.read_text()
    assert "Fatal Python error" in text and "bool_dealloc" in text
    assert "signal 6 (SIGABRT)" in text and "window is up" in text


def test_a_clean_supervised_run_adds_nothing(tmp_path: Path) -> None:
    from desktop_app.supervisor import run_supervised

    child = (
        "import sys; from pathlib import Path; from desktop_app import crash\n"
        "home = Path(sys.argv[1]); crash.start_run(home); crash.clean_exit(home)\n"
    )
    assert run_supervised([sys.executable, "-c", child, str(tmp_path)], tmp_path) == 0
    assert crash.previous_crash(tmp_path) is None


def test_quire_without_a_command_opens_the_window_supervised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from desktop_app import cli, supervisor

    calls: list[list[str]] = []
    monkeypatch.delenv(supervisor.SUPERVISED_ENV, raising=False)

    def run_supervised(command: list[str], home: Path) -> int:
        calls.append(command)
        return 0

    monkeypatch.setattr(supervisor, "run_supervised", run_supervised)
    assert cli.main(["--notes", "x"]) == 0
    assert calls == [[sys.executable, "-m", "desktop_app", "--notes", "x"]]


def test_matching_words_are_found_across_inflections_and_diacritics() -> None:
    text = "Pečeme chléb při 250 °C; the Temperatures vary and the bread rises."
    found = [
        text[a:b] for a, b in matching_spans(text, ["chleba", "temperature", "bread", "the", "250"])
    ]
    assert found == ["chléb", "250", "Temperatures", "bread"]
    assert matching_spans(text, []) == []


def test_a_new_passage_size_rechunks_every_note_but_keeps_vectors(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    body = "\n\n".join(f"Paragraph {i} is about topic {i} at some length." * 3 for i in range(12))
    (notes / "long.md").write_text(f"# Long\n\n{body}\n", "utf-8")
    database = Database(tmp_path / "q.sqlite")
    indexer.index_folder(database, notes, indexer.IndexOptions(chunk_tokens=200))
    count = lambda: database.query("SELECT count(*) FROM chunks")[0][0]  # noqa: E731
    before = count()
    again = indexer.index_folder(database, notes, indexer.IndexOptions(chunk_tokens=200))
    assert again.unchanged == 1 and count() == before
    smaller = indexer.index_folder(database, notes, indexer.IndexOptions(chunk_tokens=60))
    assert smaller.indexed == 1 and count() > before
    meta = database.query("SELECT value FROM meta WHERE key = 'chunking'")[0]
    assert json.dumps(meta[0]).startswith('"tokens=60')
    database.close()


def test_heavy_imports_map_shared_objects_and_restore_the_collector() -> None:
    import gc

    from desktop_app.core import heavy

    assert heavy.preload_shared_objects(("llama_cpp",)) > 0  # libllama and ggml are mapped
    assert gc.isenabled()
    with heavy.collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    assert heavy.import_heavy("llama_cpp").Llama is not None


def test_keyword_search_works_before_any_vector_exists(tmp_path: Path) -> None:
    from desktop_app.core.api import Quire
    from desktop_app.paths import sample_notes

    quire = Quire.open(tmp_path / "home")
    quire.index([sample_notes()], embed=False)
    status = quire.status(check_integrity=False)
    assert status.counts.pending_embedding == status.counts.chunks > 0
    results = quire.search("Museumsinsel Eintritt")
    assert results and results[0].path == "travel/berlin.md"
    assert results[0].cosine is None  # found by the lexical side alone
    quire.close()
