"""The chat view shows a draft the notes did not back as a draft: marked, linking nothing."""

from __future__ import annotations

from pathlib import Path

from desktop_app.core.answer import attribution
from desktop_app.core.answer.done_parts import draft_of
from desktop_app.core.conversations import Turn
from desktop_app.core.events import Citations, DraftReplaced
from desktop_app.core.passage import Passage
from desktop_app.ui.answer_view import DRAFT_NOTICE, OFF_QUESTION_NOTICE, turn_markdown

BERLIN = "Mit dem Zug aus Prag dauert die Fahrt nach Berlin etwa vier Stunden."
TRAIN = "How long does the train from Prague to Berlin take?"


def test_the_draft_is_shown_as_such_with_its_figures_marked() -> None:
    checked = attribution.attribute("It takes 2 hours [1].", {1: BERLIN}, "en")
    draft = draft_of(checked, DraftReplaced.UNBACKED)
    turn = Turn(TRAIN, f"Your notes say: “{BERLIN}” [1]", citations=Citations([1]), draft=draft)
    turn.sources = [_passage()]
    markdown = turn_markdown(turn, 0)
    assert "[[1]](quire:source/0/1)" in markdown  # the quoted answer links its source
    assert DRAFT_NOTICE in markdown and "**2** *(⚠ not found in the notes)*" in markdown
    draft_part = markdown.split(DRAFT_NOTICE)[1]
    assert "quire:source" not in draft_part and "\\[1\\]" in draft_part  # a draft links nothing


def test_a_draft_replaced_for_being_off_the_question_says_so() -> None:
    checked = attribution.attribute("Berlin is big [1].", {1: BERLIN}, "en")
    draft = draft_of(checked, DraftReplaced.OFF_QUESTION)
    turn = Turn(TRAIN, f"Your notes say: “{BERLIN}” [1]", citations=Citations([1]), draft=draft)
    turn.sources = [_passage()]
    markdown = turn_markdown(turn, 0)
    assert OFF_QUESTION_NOTICE in markdown and DRAFT_NOTICE not in markdown
    assert "> Berlin is big \\[1\\]" in markdown


def _passage() -> Passage:
    return Passage(number=1, path="travel/berlin.md", folder=str(Path("/notes")),
                            title="Berlin", heading_path=[], start=0, end=len(BERLIN),
                            line_start=1, line_end=1, text=BERLIN, score=1.0)  # fmt: skip
