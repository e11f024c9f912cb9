"""A `[n]` is proof, in the window (real widgets, offscreen, the queued fake model): on technical
notes the code that answers is shown first and its `[n]` selects exactly it; an answer of
invented commands gives way to the notes, its draft marked and linking nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

pytest.importorskip("pytestqt")


from desktop_app.core.answer.units import CODE, split_units
from desktop_app.core.events import DraftReplaced
from desktop_app.core.passage import Evidence
from desktop_app.core.turn_view import (
    DRAFT_LABEL,
    FORGED_NOTICE,
    evidence_markdown,
    quote_pieces,
)
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.viewer import _qt_offset
from tests.support.clicks import INDEXED, click_link, indexed_window, link_hrefs
from tests.support.fakes import QueuedModel

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("fake_embedder")]
TIL = Path(__file__).resolve().parents[1] / "data" / "eval-mini" / "til-en" / "notes"


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, quire_home: Path) -> Iterator[MainWindow]:
    yield from indexed_window(qtbot, tmp_path / "notes", TIL, quire_home)


def test_the_code_answer_comes_first_and_invented_commands_vouch_for_nothing(
    qtbot: QtBot, window: MainWindow, queued_model: QueuedModel
) -> None:
    chat = window.chat
    queued_model.answers.append(
        "Run `git ls-clone` [1]. Or `sudo git ls-clone -r` [2] to find the first commit [1]."
    )
    with qtbot.waitSignal(chat.finished, timeout=INDEXED) as done:
        chat.ask("How do I find the very first commit of a repository?")
    assert done.args[0].draft.replaced == DraftReplaced.UNBACKED
    shown = chat.view.toPlainText()
    assert "$ git rev-list --max-parents=0 HEAD" in shown  # the note's answer, in code
    assert "git ls-clone" not in shown  # the failed draft stays folded away…
    click_link(qtbot, chat.view, "quire:draft/0")  # …until the reader asks for it
    draft = chat.view.toPlainText().split(DRAFT_LABEL)[1]
    assert "git ls-clone" in draft and "not found in the notes" in draft
    hrefs = link_hrefs(chat.view)
    assert not any(h.startswith("quire:source") for h in hrefs)  # no [n] vouches for the draft
    evidence = chat.turns[0].evidence[0]
    assert chat.turns[0].quote == evidence  # the answer line is that unit: shown once, as answer
    assert "quire:evidence/0/0" not in hrefs
    click_link(qtbot, chat.view, "quire:quote/0")
    cursor = window.viewer.text.textCursor()
    text = window.viewer.text.toPlainText()
    assert cursor.selectionStart() == _qt_offset(text, evidence.start)
    assert cursor.selectionEnd() == _qt_offset(text, evidence.end)
    assert "$ git rev-list --max-parents=0 HEAD" in cursor.selectedText()


def test_a_forged_quotation_is_never_shown_as_the_notes_words(
    qtbot: QtBot, window: MainWindow, queued_model: QueuedModel
) -> None:
    chat = window.chat
    queued_model.answers.append("Your notes say: “Always bisect with git bisect magic.” [1]")
    with qtbot.waitSignal(chat.finished, timeout=INDEXED) as done:
        chat.ask("What do I do when git bisect picks a commit I cannot evaluate?")
    assert done.args[0].draft.replaced == DraftReplaced.FORGED
    assert FORGED_NOTICE.split(",")[0] in chat.view.toPlainText()
    click_link(qtbot, chat.view, "quire:draft/0")
    answer_part, draft = chat.view.toPlainText().split(DRAFT_LABEL)
    assert "git bisect magic" not in answer_part and "git bisect magic" in draft
    quote = chat.turns[0].quote
    assert quote is not None and " ".join(quote.text.split())[:40] in " ".join(answer_part.split())


@pytest.mark.parametrize(
    ("note", "parts"),
    [
        ("Use it:\n\n```bash\n$ git x\n```\n\nThis lists.", ("Use it:", "$ git x", "This lists.")),
        ("Use it:\n\n```bash\n$ git x\n```\n\n# Next", ("Use it:", "$ git x", "")),
        ("# H\n```\nmake all\n```\nThis builds it.", ("", "make all", "This builds it.")),
        ("Build it:\n\n```\n\nmake all\n```", ("Build it:", "make all", "")),
        (
            "Write:\n\n~~~\n```py\nx = 1\n```\n~~~\n\nDone.",
            ("Write:", "```py\nx = 1\n```", "Done."),
        ),
        ("# B\n\n    make install\n\nThis installs it.", ("", "make install", "This installs it.")),
        ("Then type:\n$ ls -la\nDone.", ("Then type:", "$ ls -la", "Done.")),
    ],
)
def test_a_code_unit_is_shown_as_its_lead_its_code_and_what_explains_it(
    note: str, parts: tuple[str, str, str]
) -> None:
    unit = next(u for u in split_units(note) if u.kind == CODE)
    quote = Evidence(1, "a.md", "/n", "A", unit.start, unit.end, 1, 1, unit.text, CODE, 1.0, 1.0,
                  True, code=unit.code)  # fmt: skip
    lead, code, after = parts
    assert quote_pieces(quote) == [p for p in ((False, lead), (True, code), (False, after)) if p[1]]
    shown = evidence_markdown([quote], turn=0)
    fence = shown.index("> ```") if "> ```" in shown else shown.index("> ~~~")
    assert shown.index(parts[1].splitlines()[0]) > fence  # the code inside the block
    if parts[2].strip():  # the explaining sentence is prose after the block, not code inside it
        assert shown.index(f"“{' '.join(parts[2].split())}”") > shown.rindex("> ```")


def test_a_quote_shows_its_prose_a_paragraph_a_line_and_each_block_as_code() -> None:
    note = (
        "Make it:\n\n```\nmake\n```\n\nIt builds.\n\nThen more words here.\n\n"
        "```\nmake install\n```"
    )
    blocks = tuple((note.index(c), note.index(c) + len(c)) for c in ("make\n", "make install"))
    quote = Evidence(1, "a.md", "/n", "A", 0, len(note), 1, 12, note, CODE, 1.0, 1.0, True,
                  code=((blocks[0][0], blocks[0][1] - 1), blocks[1]))  # fmt: skip
    assert quote_pieces(quote) == [
        (False, "Make it:"),
        (True, "make"),
        (False, "It builds."),
        (False, "Then more words here."),
        (True, "make install"),
    ]
    shown = evidence_markdown([quote], turn=0)
    assert "> “It builds.”\n>\n> “Then more words here.”" in shown
    assert shown.count("> ```") == 4 and shown.count("[[1]]") == 1
