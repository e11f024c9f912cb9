"""The window opens with damaged conversation files among good ones (offscreen)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt, QThreadPool

from desktop_app.core.api import Quire
from desktop_app.core.conversations import (
    DAMAGED_FOLDER,
    Conversation,
    ConversationStore,
    Turn,
)
from desktop_app.core.events import Citations
from desktop_app.core.passage import Passage
from desktop_app.ui.main_window import MainWindow

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("fake_embedder")]

SOURCE = {"n": 1, "path": "bread.md", "folder": "/notes", "title": "Bread", "heading_path": [],
          "start": 0, "end": 20, "lines": [1, 2], "score": 0.5, "text": "Bake at 250 °C.",
          "matched": []}  # fmt: skip


def source_passage() -> Passage:
    passage = Passage.from_json(SOURCE)
    assert passage is not None
    return passage


def test_window_lists_the_good_conversations_and_reports_the_damaged(
    qtbot: QtBot, quire_home: Path
) -> None:
    folder = quire_home / "conversations"
    store = ConversationStore(folder)
    for n in range(3):
        good = Conversation(id=f"good{n}")
        good.add(Turn(f"Good question {n}?", f"Good answer {n} [1].", [source_passage()],
                      Citations([1])))  # fmt: skip
        store.save(good)
    (folder / "null.json").write_text("null", "utf-8")
    (folder / "cut.json").write_text('{"title": "Half a conv', "utf-8")
    (folder / "list.json").write_text("[]", "utf-8")
    fixable = json.loads((folder / "good0.json").read_text("utf-8"))
    fixable.update(id="fixable", title=5, updated="abc")
    fixable["turns"][0]["sources"][0]["start"] = "zero"
    (folder / "fixable.json").write_text(json.dumps(fixable), "utf-8")

    quire = Quire.open(quire_home)
    win = MainWindow(quire, [])
    qtbot.addWidget(win)
    win.show()
    try:
        titles = sorted(win.conversations.item(i).text().split("\n")[0]
                        for i in range(win.conversations.count()))  # fmt: skip
        # the repaired copy of good0 keeps its question as its title
        assert titles == ["Good question 0?"] * 2 + ["Good question 1?", "Good question 2?"]
        win.pages.setCurrentWidget(win.main_page)  # (no folder yet: the welcome page is up)
        assert win.conversation_notice.isVisible()
        notice = win.conversation_notice.text() + win.conversation_notice.toolTip()
        for name in ("null.json", "cut.json", "list.json", "fixable"):
            assert name in notice
        assert len(list((folder / DAMAGED_FOLDER).iterdir())) == 4
        # the repaired conversation opens and shows its turn
        items = [win.conversations.item(i) for i in range(win.conversations.count())]
        fixed = next(it for it in items if it.data(Qt.ItemDataRole.UserRole) == "fixable")
        win._open_conversation(fixed)
        assert "Good answer 0" in win.chat.view.toPlainText()
    finally:
        win.close()
        QThreadPool.globalInstance().waitForDone(10_000)
        quire.close()
