"""Small pieces of the window: error and crash dialogs, answer links, the test tracker server."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QAbstractButton, QApplication, QMessageBox

from desktop_app.ui.dialogs import offer_crash_report, show_error

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("fake_embedder")]


def _button(box: QMessageBox, text: str) -> QAbstractButton:
    return next(b for b in box.buttons() if b.text() == text)


def test_the_memory_line_names_each_process_and_the_sum() -> None:
    from desktop_app.core.api import ProcessMemory
    from desktop_app.ui.settings_dialog import memory_line

    line = memory_line(
        [
            ProcessMemory("Quire", 1, 400 * 2**20),
            ProcessMemory("passage vectors", 2, 1200 * 2**20),
            ProcessMemory("chat model", 3, None),
        ]
    )
    assert line == "Quire 400 MB · passage vectors 1,200 MB · in all 1,600 MB"
    assert memory_line([]) == "Not shown on this system"


def test_error_details_can_be_copied(qtbot: QtBot) -> None:
    box = show_error(None, "Cannot open the model.", "Traceback: line 1\nModelFileError: x")
    qtbot.addWidget(box)
    assert box.isVisible()
    _button(box, "Copy details").click()
    assert box.isVisible()  # copying does not close the dialog
    copied = QApplication.clipboard().text()
    assert "Cannot open the model." in copied and "ModelFileError: x" in copied


def test_crash_report_is_offered_with_its_text(qtbot: QtBot, tmp_path: Path) -> None:
    report = tmp_path / "crash-20261130-120000.txt"
    report.write_text("Fatal Python error: Segmentation fault", "utf-8")
    box = offer_crash_report(None, report)
    qtbot.addWidget(box)
    assert str(report) in box.text()
    assert box.detailedText() == "Fatal Python error: Segmentation fault"
    assert any(b.text() == "Open reports folder" for b in box.buttons())


def test_the_tracker_server_sees_a_real_fetch(tracker: tuple[str, list[str]]) -> None:
    import urllib.request

    remote, hits = tracker  # so its "never asked" in the rendering tests is an observation
    urllib.request.urlopen(f"{remote}/probe.png", timeout=5).read()
    assert hits == ["/probe.png"]


def test_a_refusal_lists_shared_content_words_not_function_words(qtbot: QtBot) -> None:
    from desktop_app.core.passage import Passage
    from desktop_app.ui.sources import SourcesPanel

    panel = SourcesPanel()
    qtbot.addWidget(panel)
    source = {
        "n": 1, "heading_path": [], "title": "Bread", "path": "bread.md", "lines": [1, 4],
        "score": 0.96, "text": "The bread bakes at 250 °C.", "matched": ["the", "bread"],
    }  # fmt: skip
    passage = Passage.from_json(source)
    assert passage is not None
    panel.show_sources([passage], answerable=False)
    text = panel.toPlainText()
    assert "shares: bread ·" in text and "0.96" not in text
    panel.show_sources([replace(passage, matched=["the", "of"])], answerable=False)
    assert "shares: no content word of the question" in panel.toPlainText()


def test_a_source_preview_shows_the_passage_as_text_not_markdown(qapp: QApplication) -> None:
    from desktop_app.ui.sources import snippet_html

    shown = snippet_html("## Příprava\n**Hovězí** zadní ![[maso.png]] pečeme", ["pečeme"])
    assert shown.startswith("Příprava Hovězí zadní") and "pečeme</span>" in shown
    assert not any(mark in shown for mark in ("##", "**", "![[", "maso.png"))
