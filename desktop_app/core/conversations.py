"""Conversations kept between runs: one JSON file per conversation under QUIRE_HOME.

Each turn keeps its question, answer, sources (with their exact spans) and citation report, so a
reopened conversation shows the same answer and its `[n]` still open the same passages.

Files are read field by field: a field of the wrong type or out of range falls back to its
default, a turn without a question and answer is left out, and a file with nothing usable
(not JSON, `null`, a list…) is moved into `damaged/`. Either way the original is kept there,
the repaired conversation is saved in its place, and the problem is reported once.
"""

from __future__ import annotations

import json
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_app.core.as_json import JsonDict, citations_json
from desktop_app.core.events import Citations, CitedSentence, Draft, Evidence, Unfound
from desktop_app.core.passage import Passage, is_number

TITLE_CHARS = 60


@dataclass
class Turn:
    """One question and its answer: what the window shows, what the next question follows up
    on, and what is saved (the saved file keeps question, answer, sources, citations and
    answerable; the rest is shown only while the answer is on screen)."""

    question: str
    answer: str
    sources: list[Passage] = field(default_factory=list)  # what its `[n]` open
    citations: Citations | None = None  # the `Done` event's report (None: none yet, unreadable)
    answerable: bool = True
    evidence: list[Evidence] = field(default_factory=list)  # verbatim sentences, shown first
    caution: str = ""  # "weak evidence" notice
    unsupported: list[Unfound] = field(default_factory=list)  # what no source holds
    draft: Draft | None = None  # the model's answer when the notes backed none of it
    quote: Evidence | None = None  # the evidence unit the answer quotes instead of the draft
    declined: str = ""  # why the model wrote nothing (a language it does not write)
    offer: str = ""  # one line offering a better model
    draft_open: bool = False  # the reader unfolded the model's failed draft

    @property
    def cited(self) -> set[int]:
        return set() if self.citations is None else set(self.citations.valid)

    def to_json(self) -> JsonDict:
        return {
            "question": self.question,
            "answer": self.answer,
            "sources": [s.to_json() for s in self.sources],
            "citations": {} if self.citations is None else citations_json(self.citations),
            "answerable": self.answerable,
        }


@dataclass
class Conversation:
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    title: str = ""
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    turns: list[Turn] = field(default_factory=list)
    scope: dict[str, Any] = field(default_factory=dict)  # Scope.to_json(): kept with the chat

    def add(self, turn: Turn) -> None:
        if not self.turns:
            self.title = _title(turn.question)
        self.turns.append(turn)
        self.updated = time.time()

    def to_json(self) -> dict[str, Any]:
        data = {
            "id": self.id,
            "title": self.title,
            "created": self.created,
            "updated": self.updated,
            "turns": [t.to_json() for t in self.turns],
        }
        return {**data, "scope": self.scope} if self.scope else data  # older files: as they were


def _title(question: str) -> str:
    line = " ".join(question.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


class DamagedConversation(ValueError):
    """A conversation file with nothing usable in it."""


DAMAGED_FOLDER = "damaged"
_FUTURE_SLACK = 366 * 86400  # a clock set wrong by up to a year is not damage


class ConversationStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._reports: list[str] = []

    def _path(self, conversation_id: str) -> Path:
        return self.folder / f"{conversation_id}.json"

    def save(self, conversation: Conversation) -> None:
        path = self._path(conversation.id)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(conversation.to_json(), ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)  # a crash mid-write never leaves half a conversation

    def load(self, conversation_id: str) -> Conversation:
        """The conversation, repaired field by field; raises DamagedConversation (a ValueError)
        or OSError when the file has nothing usable (it is then moved into `damaged/`)."""
        path = self._path(conversation_id)
        raw = path.read_bytes()
        try:
            data = json.loads(raw.decode("utf-8"))
            conversation, problems = parse_conversation(data, path.stem, path.stat().st_mtime)
        except (ValueError, RecursionError) as exc:
            kept = self._set_aside(path, move=True)
            reason = exc if isinstance(exc, DamagedConversation) else "it is not valid JSON"
            self._report(f"Conversation file {path.name} is damaged ({reason}); moved to {kept}.")
            raise DamagedConversation(f"{path.name}: {reason}") from exc
        if problems:
            kept = self._set_aside(path, move=False)
            self.save(conversation)
            self._report(
                f"Conversation “{conversation.title}” had unreadable fields "
                f"({', '.join(problems)}); they were reset. The original is kept as {kept}."
            )
        return conversation

    def delete(self, conversation_id: str) -> None:
        self._path(conversation_id).unlink(missing_ok=True)

    def recent(self) -> list[Conversation]:
        """Every readable conversation, most recently updated first (damaged files are set
        aside and reported through `take_reports`)."""
        found = []
        for path in self.folder.glob("*.json"):
            try:
                found.append(self.load(path.stem))
            except (OSError, ValueError):
                continue
        return sorted(found, key=lambda c: c.updated, reverse=True)

    def take_reports(self) -> list[str]:
        """Problems found since the last call (each damaged file is reported once: afterwards
        it is in `damaged/` or repaired)."""
        reports, self._reports = self._reports, []
        return reports

    def _report(self, message: str) -> None:
        self._reports.append(message)

    def _set_aside(self, path: Path, move: bool) -> Path:
        folder = self.folder / DAMAGED_FOLDER
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = folder / f"{path.stem}.bad-{stamp}{path.suffix}"
        n = 1
        while target.exists():
            n += 1
            target = folder / f"{path.stem}.bad-{stamp}-{n}{path.suffix}"
        try:
            folder.mkdir(exist_ok=True)
            if move:
                path.replace(target)
            else:
                shutil.copy2(path, target)
        except OSError:
            return path  # a read-only folder: the file stays where it is, and is skipped
        return target


# -- field-by-field reading ---------------------------------------------------------------------
def parse_conversation(
    data: Any, conversation_id: str, mtime: float
) -> tuple[Conversation, list[str]]:
    """A Conversation from decoded JSON and the names of the fields that had to be reset."""
    if not isinstance(data, dict):
        raise DamagedConversation(f"it holds {_kind(data)}, not a conversation")
    problems: list[str] = []
    raw_turns = data.get("turns")
    if not isinstance(raw_turns, list):
        raw_turns = []
        problems.append("turns")
    turns = []
    for n, raw in enumerate(raw_turns, start=1):
        turn = _turn(raw, f"turn {n}", problems)
        if turn is not None:
            turns.append(turn)
    if not turns:
        raise DamagedConversation("it has no readable question and answer")
    updated = _timestamp(data.get("updated"), "updated", mtime, problems)
    created = _timestamp(data.get("created"), "created", updated, problems)
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        problems.append("title")
        title = _title(turns[0].question)
    scope = data.get("scope", {})
    if not isinstance(scope, dict):
        problems.append("scope")
        scope = {}
    conversation = Conversation(
        conversation_id, title, min(created, updated), updated, turns, scope
    )
    return conversation, problems


def _kind(data: Any) -> str:
    return {type(None): "null", list: "a list", str: "a string"}.get(type(data), "a number")


def _timestamp(value: Any, name: str, default: float, problems: list[str]) -> float:
    if is_number(value) and 0 <= value <= time.time() + _FUTURE_SLACK:
        return float(value)
    if value is not None:
        problems.append(name)
    return default


def _is_int(value: Any, low: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _turn(raw: Any, where: str, problems: list[str]) -> Turn | None:
    if not isinstance(raw, dict) or not all(
        isinstance(raw.get(k), str) for k in ("question", "answer")
    ):
        problems.append(where)
        return None
    raw_sources = raw.get("sources", [])
    if not isinstance(raw_sources, list):
        problems.append(f"{where} sources")
        raw_sources = []
    sources = [s for s in (Passage.from_json(s) for s in raw_sources) if s is not None]
    if len(sources) != len(raw_sources) or any(
        k in given and given[k] != kept[k]
        for given, kept in zip(raw_sources, (s.to_json() for s in sources), strict=True)
        for k in kept
    ):
        problems.append(f"{where} sources")
    given = raw.get("citations", {})  # {}: no report (the turn was saved before it came)
    citations = None if given == {} else _citations(given)
    if citations is None and given != {}:
        problems.append(f"{where} citations")
    answerable = raw.get("answerable", True)
    if not isinstance(answerable, bool):
        problems.append(f"{where} answerable")
        answerable = True
    return Turn(raw["question"], raw["answer"], sources, citations, answerable)


def _citations(raw: Any) -> Citations | None:
    """The citation report, or None when it is unreadable (a field of a sentence that is
    missing or of the wrong type gets its default: older files lack some)."""
    if not isinstance(raw, dict):
        return None
    numbers = {key: raw.get(key, []) for key in ("valid", "invalid")}
    if not all(isinstance(v, list) and all(_is_int(n) for n in v) for v in numbers.values()):
        return None
    sentences = raw.get("sentences", [])
    if not (isinstance(sentences, list) and all(isinstance(s, dict) for s in sentences)):
        return None
    return Citations(numbers["valid"], numbers["invalid"], [_sentence(s) for s in sentences])


def _sentence(raw: dict[str, Any]) -> CitedSentence:
    text, cites, support = raw.get("text"), raw.get("cites"), raw.get("support")
    return CitedSentence(
        text=text if isinstance(text, str) else "",
        start=raw["start"] if _is_int(raw.get("start")) else 0,
        end=raw["end"] if _is_int(raw.get("end")) else 0,
        cites=cites if isinstance(cites, list) and all(_is_int(n) for n in cites) else [],
        support=raw["support"] if is_number(support) else 1.0,
        weak=raw.get("weak") is True,
        unverified=raw.get("unverified") is True,
    )
