"""The one door: typed events with the CLI's fixed JSON lines, one passage and one turn type
(old conversation files still load and save unchanged), and Quire owning the live index."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop_app.core.answer.ask import EMPTY_INDEX, Retrieval, answer_events
from desktop_app.core.answer.evidence import Evidence as Quote
from desktop_app.core.cancel import CancelToken
from desktop_app.core.conversations import ConversationStore, Turn
from desktop_app.core.events import Done, Error, Evidence, Passage, Sources, Token
from desktop_app.core.live import Watching
from desktop_app.core.service import Quire
from desktop_app.paths import sample_notes
from tests.core.test_evidence import QueuedModel
from tests.fakes import FakeEmbedder

DATA = Path(__file__).resolve().parents[1] / "data"
PASSAGE = Passage(2, "recipes/bread.md", "/notes", "Bread", ["Bread", "Baking"], 10, 60, 3, 5,
                  "Bake at 250 °C.", 0.8, [7], 1, {0}, ["bake"])  # fmt: skip
QUOTE = Quote(2, "recipes/bread.md", "/notes", "Bread", 10, 25, 3, 3, "Bake at 250 °C.",
              "sentence", 0.91234, 0.5, True)  # fmt: skip
GATE = {"answerable": True, "outcome": "answered", "reason": "r", "missing": [],
        "coverage": 0.9, "cosine": None}  # fmt: skip
CITATIONS = {"valid": [2], "invalid": [], "sentences": []}
TIMINGS = {"retrieval_seconds": 0.1, "prompt_tokens": 10, "completion_tokens": 3,
           "first_token_seconds": None, "tokens_per_second": 0.0}  # fmt: skip
OLD_SOURCE = {"n": 2, "path": "recipes/bread.md", "folder": "/notes", "title": "Bread",
              "heading_path": ["Bread", "Baking"], "start": 10, "end": 60, "lines": [3, 5],
              "score": 0.8, "text": "Bake at 250 °C.", "matched": ["bake"]}  # fmt: skip
OLD_QUOTE = {"n": 2, "path": "recipes/bread.md", "folder": "/notes", "title": "Bread",
             "start": 10, "end": 25, "lines": [3, 3], "text": "Bake at 250 °C.",
             "kind": "sentence", "score": 0.912, "overlap": 0.5, "cue": True}  # fmt: skip


# -- events: the `quire ask --json` lines, key for key and in order, as the dicts were built ----
@pytest.mark.parametrize(
    ("event", "old"),
    [
        (Sources(True, "answered", GATE, [PASSAGE], 1, 0, ["n"]),
         {"type": "sources", "answerable": True, "outcome": "answered", "gate": GATE,
          "sources": [OLD_SOURCE], "dropped_sources": 1, "dropped_turns": 0, "notices": ["n"]}),
        (Sources(False, "absent", GATE, [PASSAGE]),
         {"type": "sources", "answerable": False, "outcome": "absent", "gate": GATE,
          "sources": [OLD_SOURCE]}),
        (Evidence("weak", "Weak evidence: x.", [QUOTE], 0.25),
         {"type": "evidence", "outcome": "weak", "caution": "Weak evidence: x.",
          "evidence": [OLD_QUOTE], "seconds": 0.25}),
        (Token("Bake "), {"type": "token", "text": "Bake "}),
        (Done("Bake [2].", True, CITATIONS, "length", TIMINGS, "answered", "", [2],
              [{"text": "9", "start": 0, "end": 1}], "Bake [2].", generated="Bake."),
         {"type": "done", "answer": "Bake [2].", "answerable": True, "citations": CITATIONS,
          "stopped": "length", "timings": TIMINGS, "added_citations": [2],
          "unsupported": [{"text": "9", "start": 0, "end": 1}], "marked_answer": "Bake [2].",
          "generated": "Bake.", "outcome": "answered", "caution": "", "backed": True,
          "draft": None, "quote": None}),
        (Done("Your notes say: “Bake at 250 °C.” [2]", True, CITATIONS, "eos", TIMINGS,
              "answered", "", generated="Fry.", draft={"answer": "Fry."}, quote=QUOTE),
         {"type": "done", "answer": "Your notes say: “Bake at 250 °C.” [2]", "answerable": True,
          "citations": CITATIONS, "stopped": "eos", "timings": TIMINGS, "added_citations": [],
          "unsupported": [], "marked_answer": "", "generated": "Fry.", "outcome": "answered",
          "caution": "", "backed": False, "draft": {"answer": "Fry."}, "quote": OLD_QUOTE}),
        (Done("No.", False, CITATIONS, "length", TIMINGS, "absent", "", [], [], "No.",
              reason="nothing matches"),
         {"type": "done", "answer": "No.", "answerable": False, "citations": CITATIONS,
          "stopped": "length", "timings": TIMINGS, "outcome": "absent",
          "reason": "nothing matches", "unsupported": [], "added_citations": [],
          "marked_answer": "No.", "caution": ""}),
        (Error("the question is empty"), {"type": "error", "message": "the question is empty"}),
    ],
)  # fmt: skip
def test_each_event_gives_the_old_json_line(event: Any, old: dict[str, Any]) -> None:
    assert json.dumps(event.to_json(), ensure_ascii=False) == json.dumps(old, ensure_ascii=False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.outcome = "changed"  # frozen: a listener cannot alter it


# What the (fake) model reports about itself: the recording's fake reported nothing.
_MODEL_STATS = ("tokens_per_second", "prompt_tokens", "completion_tokens", "stopped")


def _without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: None if k.endswith("seconds") or k in _MODEL_STATS
                else _without_timings(v) for k, v in value.items()}  # fmt: skip
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def test_the_answer_flow_prints_what_it_printed_before_typed_events(tmp_path: Path) -> None:
    """answer_events_before.jsonl was written by the dict-based code, same notes, same model
    (re-recorded since for the new evidence ranking weights, for light verbs and question words
    no longer counted as key words, for the `backed` and `draft` keys, and for invalid `[n]` taken
    out of the answer with sentence spans, `unverified` and `quote` added, and a passage's note
    `tags`; nothing else changed)."""
    notes = tmp_path / "notes"
    # the text notes it was recorded on (the sample PDF came later)
    shutil.copytree(sample_notes(), notes, ignore=shutil.ignore_patterns("*.pdf"))
    quire = Quire(tmp_path / "home")
    quire.index([notes], embed=False)
    lines = []
    for question, answer in [
        ("How much salt goes into the sourdough bread?", "Use 10 g salt and 900 g flour."),
        ("Who won the 1998 football world cup final?", ""),
        ("  ", ""),
        ("How long does the bread bake?", "About 40 minutes [1]. Maybe [7]."),
    ]:
        events = answer_events(quire.retrieval(), question, [], QueuedModel(answer), CancelToken())
        lines += [json.dumps(_without_timings(e.to_json()), ensure_ascii=False) for e in events]
    quire.close()
    before = (DATA / "answer_events_before.jsonl").read_text("utf-8").replace("{NOTES}", str(notes))
    recorded = [
        json.dumps(_without_timings(json.loads(line)), ensure_ascii=False)
        for line in before.split("\n")
    ]
    assert lines == recorded


def test_answering_needs_no_facade_only_plain_callables() -> None:
    retrieval = Retrieval(search=lambda query, top_k: [], language=lambda q: "en",
                          is_empty=lambda: True)  # fmt: skip
    events = list(answer_events(retrieval, "What is in my notes?", [], QueuedModel(),
                                CancelToken()))  # fmt: skip
    assert events == [Error(EMPTY_INDEX)]


def test_no_any_stands_for_the_facade() -> None:
    import desktop_app

    root = Path(desktop_app.__file__).parent
    pattern = re.compile(r"\b(service|quire|win|window)\s*:\s*Any\b")
    # LiveIndex's constructor gets plain parameters on the store branch of issue 10
    offenders = [f"{p.relative_to(root)}: {m.group(0)}" for p in root.rglob("*.py")
                 for m in pattern.finditer(p.read_text("utf-8"))
                 if p.relative_to(root).as_posix() != "core/ingest/watcher.py"]  # fmt: skip
    assert offenders == []


# -- one turn type; conversation files keep their format ---------------------------------------
def test_an_old_conversation_file_loads_into_turns_and_saves_unchanged(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "conversations")
    old = {"id": "old", "title": "How hot?", "created": 1_700_000_000.0,
           "updated": 1_700_000_100.0,
           "turns": [{"question": "How hot?", "answer": "250 °C [2].", "sources": [OLD_SOURCE],
                      "citations": CITATIONS, "answerable": True},
                     {"question": "And then?", "answer": "Not in your notes.", "sources": [],
                      "citations": {}, "answerable": False}]}  # fmt: skip
    text = json.dumps(old, ensure_ascii=False)  # what SavedTurn + asdict wrote
    (store.folder / "old.json").write_text(text, "utf-8")
    conversation = store.load("old")
    first, second = conversation.turns
    assert isinstance(first, Turn) and isinstance(first.sources[0], Passage)
    assert (first.sources[0].number, first.sources[0].line_end, first.cited) == (2, 5, {2})
    assert second.answerable is False and second.sources == []
    assert store.take_reports() == []  # nothing was damaged
    store.save(conversation)
    assert (store.folder / "old.json").read_text("utf-8") == text  # the format did not change


# -- Quire owns the live index -------------------------------------------------------------------
def _wait(condition: Callable[[], bool], what: str, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {seconds:.0f} s: {what}")
        time.sleep(0.05)


def _found(quire: Quire, word: str) -> bool:
    return any(word in r.text for r in quire.search(word))


def test_watch_and_unwatch_keep_the_index_live(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nThe kettle whistles at dawn.\n", "utf-8")
    quire = Quire(tmp_path / "home")
    try:
        assert quire.watch(folder) and not quire.watch(folder)  # once is enough
        assert quire.folders == [folder.resolve()] and quire.live is None
        live = quire.start_live(Watching())
        assert quire.live is live and list(live.folders) == quire.folders
        _wait(lambda: _found(quire, "kettle"), "the reconcile pass indexes the folder")
        (folder / "b.md").write_text("# B\n\nA zeppelin drifts over the harbour.\n", "utf-8")
        _wait(lambda: _found(quire, "zeppelin"), "a new note is indexed by the watcher")
        quire.unwatch(folder)
        assert quire.folders == []
        _wait(lambda: not _found(quire, "kettle"), "an unwatched folder leaves the index")
        quire.stop_live()
        assert quire.live is None and quire.folders == []
    finally:
        quire.close()
    assert quire.live is None  # close stops a live index too


def test_close_waits_for_a_stopped_live_index_before_closing_the_database(tmp_path: Path) -> None:
    """The window stops the live index with a short timeout; an embedding batch may still run.
    Closing the facade then waits for it instead of closing the database under it."""
    started, release = threading.Event(), threading.Event()

    class SlowEmbedder(FakeEmbedder):
        def encode(self, texts: list[str]) -> np.ndarray:
            started.set()
            release.wait(60)
            return super().encode(texts)

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nThe kettle whistles at dawn.\n", "utf-8")
    quire = Quire(tmp_path / "home", embedder=SlowEmbedder())
    before = set(threading.enumerate())
    quire.watch(folder)
    quire.start_live(Watching())
    assert started.wait(60), "the embedding pass never started"
    quire.stop_live(timeout=0.05)  # returns while the batch is still inside encode()
    threading.Timer(0.3, release.set).start()
    quire.close()
    left = [
        t for t in set(threading.enumerate()) - before if t.is_alive() and "Timer" not in t.name
    ]
    assert left == []
