"""Conversations kept between runs: one JSON file per conversation under QUIRE_HOME.

Each turn keeps its question, answer, sources (with their exact spans) and citation report, so a
reopened conversation shows the same answer and its `[n]` still open the same passages.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

TITLE_CHARS = 60


@dataclass
class SavedTurn:
    question: str
    answer: str
    sources: list[dict[str, Any]] = field(default_factory=list)
    citations: dict[str, Any] = field(default_factory=dict)
    answerable: bool = True


@dataclass
class Conversation:
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    title: str = ""
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    turns: list[SavedTurn] = field(default_factory=list)

    def add(self, turn: SavedTurn) -> None:
        if not self.turns:
            self.title = _title(turn.question)
        self.turns.append(turn)
        self.updated = time.time()


def _title(question: str) -> str:
    line = " ".join(question.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


class ConversationStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def _path(self, conversation_id: str) -> Path:
        return self.folder / f"{conversation_id}.json"

    def save(self, conversation: Conversation) -> None:
        path = self._path(conversation.id)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(conversation), ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)  # a crash mid-write never leaves half a conversation

    def load(self, conversation_id: str) -> Conversation:
        data = json.loads(self._path(conversation_id).read_text(encoding="utf-8"))
        turns = [SavedTurn(**t) for t in data.pop("turns", [])]
        return Conversation(**data, turns=turns)

    def delete(self, conversation_id: str) -> None:
        self._path(conversation_id).unlink(missing_ok=True)

    def recent(self) -> list[Conversation]:
        """Every readable conversation, most recently updated first (damaged files are skipped)."""
        found = []
        for path in self.folder.glob("*.json"):
            try:
                found.append(self.load(path.stem))
            except (OSError, ValueError, TypeError):
                continue
        return sorted(found, key=lambda c: c.updated, reverse=True)
