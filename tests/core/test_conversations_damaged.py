"""Damaged conversation files: set aside and reported once, never a crash; bad fields reset."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.conversations import (
    DAMAGED_FOLDER,
    Conversation,
    ConversationStore,
    DamagedConversation,
    Turn,
)
from desktop_app.core.events import Citations
from desktop_app.core.passage import Passage

SOURCE = {"n": 1, "path": "recipes/bread.md", "folder": "/notes", "title": "Bread",
          "heading_path": ["Bread", "Baking"], "start": 10, "end": 60, "lines": [3, 5],
          "score": 0.8, "text": "Bake at 250 °C with the lid on.", "matched": ["bake"]}  # fmt: skip
CITATIONS = {"valid": [1], "invalid": [], "sentences": [{"text": "Bake.", "weak": False}]}
_PASSAGE = Passage.from_json(SOURCE)
assert _PASSAGE is not None
PASSAGE: Passage = _PASSAGE


def good(**changes: Any) -> dict[str, Any]:
    turn = {"question": "How hot?", "answer": "250 °C [1].", "sources": [dict(SOURCE)],
            "citations": dict(CITATIONS), "answerable": True}  # fmt: skip
    turn.update(changes.pop("turn", {}))
    data = {"id": "x", "title": "How hot?", "created": 1_700_000_000.0,
            "updated": 1_700_000_100.0, "turns": [turn]}  # fmt: skip
    data.update(changes)
    return data


@pytest.fixture
def store(tmp_path: Path) -> ConversationStore:
    s = ConversationStore(tmp_path / "conversations")
    ok = Conversation(id="ok")
    ok.add(Turn("A good question?", "A good answer.", [PASSAGE], Citations([1])))
    s.save(ok)
    return s


def write(store: ConversationStore, name: str, content: str) -> Path:
    path = store.folder / f"{name}.json"
    path.write_text(content, encoding="utf-8")
    return path


def aside(store: ConversationStore) -> list[str]:
    return sorted(p.name for p in (store.folder / DAMAGED_FOLDER).glob("*"))


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("null", "holds null"),
        ("[1, 2]", "holds a list"),
        ('"text"', "holds a string"),
        ("42", "holds a number"),
        ('{"title": "cut', "not valid JSON"),
        ("", "not valid JSON"),
        ("[" * 100_000, "not valid JSON"),
        ('{"title": "no turns"}', "no readable question"),
        (json.dumps(good(turns=[{"question": 1, "answer": None}, "x"])), "no readable question"),
    ],
)
def test_unusable_file_is_moved_aside_and_reported_once(
    store: ConversationStore, content: str, reason: str
) -> None:
    path = write(store, "bad", content)
    assert [c.id for c in store.recent()] == ["ok"]
    reports = store.take_reports()
    assert len(reports) == 1 and "bad.json" in reports[0] and reason in reports[0]
    assert not path.exists()
    assert len(aside(store)) == 1 and aside(store)[0].startswith("bad.bad-")
    assert (store.folder / DAMAGED_FOLDER / aside(store)[0]).read_text("utf-8") == content
    assert [c.id for c in store.recent()] == ["ok"] and store.take_reports() == []  # once


def test_invalid_utf8_file_is_set_aside(store: ConversationStore) -> None:
    (store.folder / "latin.json").write_bytes(b'{"title": "caf\xe9"}')
    assert [c.id for c in store.recent()] == ["ok"]
    assert "latin.json" in store.take_reports()[0]


@pytest.mark.parametrize(
    ("data", "field", "check"),
    [
        (good(updated="abc"), "updated", lambda c: c.updated > 1_700_000_100),  # file time
        (good(updated=float("nan")), "updated", lambda c: c.updated > 1_700_000_100),
        (good(updated=-5), "updated", lambda c: c.updated > 0),
        (good(updated=1e300), "updated", lambda c: c.updated <= time.time() + 1),
        (good(created=True), "created", lambda c: c.created == c.updated == 1_700_000_100),
        (good(title=5), "title", lambda c: c.title == "How hot?"),
        (good(title=None), "title", lambda c: c.title == "How hot?"),
        (good(turn={"sources": "nope"}), "turn 1 sources", lambda c: c.turns[0].sources == []),
        (good(turn={"sources": [5, {"n": "1"}, dict(SOURCE)]}), "turn 1 sources",
         lambda c: [s.to_json()["n"] for s in c.turns[0].sources] == [1]),
        (good(turn={"sources": [dict(SOURCE, start="a", lines=[5, 2], heading_path=[1])]}),
         "turn 1 sources", lambda c: (c.turns[0].sources[0].to_json()["start"],
                                      c.turns[0].sources[0].to_json()["lines"],
                                      c.turns[0].sources[0].to_json()["heading_path"])
         == (0, [1, 1], [])),
        (good(turn={"citations": [1]}), "turn 1 citations", lambda c: c.turns[0].citations is None),
        (good(turn={"citations": {"valid": ["1"]}}), "turn 1 citations",
         lambda c: c.turns[0].citations is None),
        (good(turn={"answerable": "yes"}), "turn 1 answerable", lambda c: c.turns[0].answerable),
        (good(turns=[5, good()["turns"][0]]), "turn 1", lambda c: len(c.turns) == 1),
        (good(turns={"a": 1}), None, None),  # no turns left at all: set aside
    ],
)  # fmt: skip
def test_bad_fields_fall_back_to_defaults_and_the_original_is_kept(
    store: ConversationStore, data: dict[str, Any], field: str | None, check: Any
) -> None:
    text = json.dumps(data)  # NaN is written as the bare NaN that json.loads reads back
    write(store, "fixable", text)
    listed = {c.id: c for c in store.recent()}
    reports = store.take_reports()
    assert len(reports) == 1 and aside(store) and aside(store)[0].startswith("fixable.bad-")
    assert (store.folder / DAMAGED_FOLDER / aside(store)[0]).read_text("utf-8") == text
    if field is None:
        assert set(listed) == {"ok"}
        return
    assert set(listed) == {"ok", "fixable"} and field in reports[0]
    conversation = listed["fixable"]
    assert check(conversation)
    assert isinstance(conversation.title, str) and isinstance(conversation.updated, float)
    # repaired in place: the next start lists it again without a new report or a new copy
    assert store.load("fixable").title == conversation.title
    store.recent()
    assert store.take_reports() == [] and len(aside(store)) == 1


def test_good_files_are_left_alone(store: ConversationStore) -> None:
    before = (store.folder / "ok.json").read_bytes()
    assert [c.id for c in store.recent()] == ["ok"]
    assert store.take_reports() == [] and not (store.folder / DAMAGED_FOLDER).exists()
    assert (store.folder / "ok.json").read_bytes() == before


def test_loading_a_damaged_file_raises_a_value_error(store: ConversationStore) -> None:
    write(store, "bad", "null")
    with pytest.raises(DamagedConversation, match="holds null"):
        store.load("bad")
    assert isinstance(DamagedConversation("x"), ValueError)  # what the window already catches
