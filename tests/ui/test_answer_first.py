"""The window shows one answer first — the model's checked words or the notes' own — then the
evidence, then one-line cautions; a failed draft never stands on screen unasked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from desktop_app.core.answer.profile import ModelProfile
from desktop_app.core.turn_view import MODELS_LINK
from desktop_app.paths import sample_notes
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.settings_dialog import SettingsDialog
from desktop_app.ui.welcome import WelcomePage
from tests.support.clicks import INDEXED, click_link, indexed_window
from tests.support.fakes import QueuedModel

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("fake_embedder")]


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, quire_home: Path) -> Iterator[MainWindow]:
    yield from indexed_window(qtbot, tmp_path / "notes", sample_notes(), quire_home)


def test_a_failed_draft_gives_way_and_stays_folded(
    qtbot: QtBot, window: MainWindow, queued_model: QueuedModel
) -> None:
    chat = window.chat
    queued_model.answers.append("In German: The answer is Staatsdeutchen salt [7].")
    with qtbot.waitSignal(chat.finished, timeout=INDEXED):
        chat.ask("How much salt goes into the sourdough bread?")
    shown = chat.view.toPlainText()
    assert "Staatsdeutchen" not in shown and "In German" not in shown
    answer, evidence = shown.index("Your notes say:"), shown.index("From your notes:")
    notice, offer = shown.index("Show the model's draft"), shown.index("A chat model that writes")
    assert answer < evidence < notice < offer and "staatsdeutchen" in shown[notice - 300 : notice]
    click_link(qtbot, chat.view, "quire:draft/0")  # the reader may still look at it
    assert "Staatsdeutchen" in chat.view.toPlainText()


def test_a_czech_question_is_answered_in_the_notes_words_and_offers_a_model(
    qtbot: QtBot, window: MainWindow, queued_model: QueuedModel
) -> None:
    queued_model.profile = ModelProfile("SmolLM", frozenset({"en"}), 4096, False)
    chat = window.chat
    with qtbot.waitSignal(chat.finished, timeout=INDEXED):
        chat.ask("Jak dlouho se peče svíčková?")
    shown = chat.view.toPlainText()
    assert queued_model.prompts == []  # the model was not asked to write Czech
    answer = shown.index("Your notes say:")
    assert answer < shown.index("dvě a půl hodiny")
    assert shown.count("dvě a půl hodiny") == 1  # the answer line, not again as evidence
    assert "From your notes:" not in shown or answer < shown.index("From your notes:")
    assert "does not write Czech" in shown and "nothing about" not in shown
    with qtbot.waitSignal(chat.models_wanted, timeout=5_000):
        click_link(qtbot, chat.view, MODELS_LINK)
    dialog = next(w for w in window.findChildren(SettingsDialog) if w.isVisible())
    assert dialog.tabs.currentWidget() is dialog.models_page
    dialog.model_languages.setText("en cs")
    dialog.accept()
    wanted = dialog.chosen().model_languages
    assert list(wanted.values()) == [["en", "cs"]]
    assert window.quire.settings.model_languages == wanted


def test_a_wrong_language_code_keeps_the_dialog_open(qtbot: QtBot, window: MainWindow) -> None:
    dialog = window.open_models()
    dialog.model_languages.setText("english")
    dialog.accept()
    assert dialog.isVisible() and "not a language code" in dialog.problem.text()
    dialog.reject()


def test_the_welcome_page_names_every_kind_of_file(qtbot: QtBot) -> None:
    page = WelcomePage()
    qtbot.addWidget(page)
    labels = " ".join(label.text() for label in page.findChildren(QLabel))
    for kind in ("Markdown", "PDF", "Word", "Web pages", "Org", "AsciiDoc"):
        assert kind in labels, labels
