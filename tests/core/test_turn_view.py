"""The chat's view model, without Qt: a draft the notes did not back shown as a draft (marked,
linking nothing), the answer before its evidence and cautions, citations as links, the page of
a conversation, and every link it writes read back to what it was written for."""

from __future__ import annotations

import re
from pathlib import Path

from desktop_app.core.answer import attribution
from desktop_app.core.answer.ask import draft_of
from desktop_app.core.conversations import Turn
from desktop_app.core.events import Citations, DraftReplaced
from desktop_app.core.passage import Evidence, Passage
from desktop_app.core.turn_view import (
    DRAFT_LABEL,
    DRAFT_NOTICE,
    EMPTY_CHAT,
    MODELS_LINK,
    OFF_QUESTION_NOTICE,
    TYPING_MARK,
    LinkKind,
    TurnLink,
    conversation_markdown,
    evidence_markdown,
    linkify,
    turn_markdown,
)

BERLIN = "Mit dem Zug aus Prag dauert die Fahrt nach Berlin etwa vier Stunden."
TRAIN = "How long does the train from Prague to Berlin take?"
BACK = "Zurück fahren wir am Sonntag um 18 Uhr."
BERLIN_NOTE = f"{BERLIN} {BACK}"


def test_the_draft_is_folded_away_with_why_and_shown_as_such_when_asked() -> None:
    checked = attribution.attribute("It takes 2 hours [1].", {1: BERLIN}, "en")
    draft = draft_of(checked, DraftReplaced.UNBACKED)
    turn = Turn(TRAIN, f"Your notes say: “{BERLIN}” [1]", citations=Citations([1]), draft=draft)
    turn.sources = [_passage()]
    folded = turn_markdown(turn, 0)
    assert "[[1]](quire:source/0/1)" in folded  # the quoted answer links its source
    assert DRAFT_NOTICE in folded and "2 hours" not in folded  # why, but not the draft itself
    assert "[Show the model's draft](quire:draft/0)" in folded
    turn.draft_open = True
    markdown = turn_markdown(turn, 0)
    assert "**2** *(⚠ not found in the notes)*" in markdown
    draft_part = markdown.split(DRAFT_LABEL)[1]
    assert "quire:source" not in draft_part and "\\[1\\]" in draft_part  # a draft links nothing


def test_a_draft_replaced_for_being_off_the_question_says_so() -> None:
    checked = attribution.attribute("Berlin is big [1].", {1: BERLIN}, "en")
    draft = draft_of(checked, DraftReplaced.OFF_QUESTION)
    turn = Turn(TRAIN, f"Your notes say: “{BERLIN}” [1]", citations=Citations([1]), draft=draft)
    turn.sources = [_passage()]
    turn.draft_open = True
    markdown = turn_markdown(turn, 0)
    assert OFF_QUESTION_NOTICE in markdown and DRAFT_NOTICE not in markdown
    assert "> Berlin is big \\[1\\]" in markdown


def test_an_unreadable_draft_says_what_failed() -> None:
    checked = attribution.attribute("Die Fahrt ist Staatsdeutchen [1].", {1: BERLIN}, "de")
    problems = ["words that are not German: “staatsdeutchen”"]
    draft = draft_of(checked, DraftReplaced.UNREADABLE, problems)
    turn = Turn(TRAIN, f"Your notes say: “{BERLIN}” [1]", citations=Citations([1]), draft=draft)
    turn.sources = [_passage()]
    markdown = turn_markdown(turn, 0)
    assert "did not pass the reading checks" in markdown and "staatsdeutchen" in markdown
    assert "Staatsdeutchen [1]" not in markdown  # the draft itself stays folded


def test_one_answer_first_then_the_evidence_then_the_cautions() -> None:
    quote = _evidence()
    offer = "A chat model that writes German well can answer in its own words."
    turn = Turn(TRAIN, f"Your notes say: “{BERLIN}” [1]", citations=Citations([1]), quote=quote,
                evidence=[quote, _evidence(BACK)], caution="Weak evidence: only part.",
                offer=offer)  # fmt: skip
    turn.sources = [_passage()]
    markdown = turn_markdown(turn, 0)
    answer = markdown.index("Your notes say:")
    evidence = markdown.index("From your notes:")
    caution = markdown.index("Weak evidence")
    offered = markdown.index("A chat model that writes German")
    assert answer < evidence < caution < offered
    assert f"]({MODELS_LINK})" in markdown  # the offer opens Settings → Models
    assert markdown.count("Mit dem Zug aus Prag") == 1  # the answer line, not again as evidence
    assert "(quire:evidence/0/1)" in markdown and "(quire:evidence/0/0)" not in markdown
    assert BACK in markdown  # the other evidence keeps its place and its link


def test_streamed_words_are_provisional_until_checked() -> None:
    turn = Turn(TRAIN, "It takes 2 hours [1]", evidence=[_evidence()])
    turn.sources = [_passage()]
    live = turn_markdown(turn, 0, live=True)
    assert "to be checked against your notes" in live and "quire:source" not in live


def test_answer_links_use_the_same_citation_forms_as_the_validator() -> None:
    markdown = linkify("A [1]. B [1, 3][2] and [ 2 ] <b>", lambda n: n <= 2, turn=4)
    assert markdown.count("(quire:source/4/1)") == 2
    assert markdown.count("(quire:source/4/2)") == 2  # "[ 2 ]" too, as numbers_in reads it
    assert "\\[3\\]" in markdown and "quire:source/4/3" not in markdown  # not a source: plain
    assert "<b>" not in markdown  # raw HTML from the model is escaped


def test_every_link_a_turn_writes_reads_back_to_what_it_was_written_for() -> None:
    checked = attribution.attribute("It takes 2 hours [1].", {1: BERLIN}, "en")
    quote = _evidence()
    turn = Turn(TRAIN, f"Your notes say: “{BERLIN}” [1]", citations=Citations([1]), quote=quote,
                evidence=[quote, _evidence(BACK)], draft=draft_of(checked, DraftReplaced.UNBACKED),
                offer="A better model can answer in its own words.")  # fmt: skip
    turn.sources = [_passage()]
    refused = Turn(TRAIN, "Your notes don't seem to cover this.", answerable=False,
                   citations=Citations([]))  # fmt: skip
    refused.sources = [_passage()]
    page = conversation_markdown([turn, refused])
    links = {
        TurnLink.read(*href.split(":", 1)) for href in re.findall(r"\]\((quire:[^)]+)\)", page)
    }
    assert links == {
        TurnLink(LinkKind.QUOTE, 0),  # the answer line selects its words in the note
        TurnLink(LinkKind.EVIDENCE, 0, 1),  # the first evidence is the answer line: shown once
        TurnLink(LinkKind.DRAFT, 0),
        TurnLink(LinkKind.MODELS),
        TurnLink(LinkKind.ANYWAY, 1),
    }
    assert TurnLink.read("quire", "source/2/3") == TurnLink(LinkKind.SOURCE, 2, 3)
    assert TurnLink.read("https", "source/0/1") is None  # a link of the note's text
    assert TurnLink.read("quire", "source/0") is None and TurnLink.read("quire", "x/0") is None


def test_the_page_numbers_turns_by_place_the_live_one_last_then_the_hint() -> None:
    assert conversation_markdown([]) == EMPTY_CHAT
    done = Turn("First?", "One [1].", citations=Citations([1]))
    done.sources = [_passage()]
    live = Turn("Second?", "Two [1]")
    page = conversation_markdown([done], live, hint="Type a question first.")
    assert page.index("First?") < page.index("Second?") < page.index("*Type a question first.*")
    assert "(quire:source/0/1)" in page
    assert "quire:source/1/" not in page  # the live words link nothing yet
    assert page.endswith(f"{TYPING_MARK}\n*Type a question first.*")  # still being written
    assert EMPTY_CHAT not in page


def _evidence(text: str = BERLIN) -> Evidence:
    start = BERLIN_NOTE.index(text)
    return Evidence(1, "travel/berlin.md", "/notes", "Berlin", start, start + len(text), 1, 1,
                    text, "sentence", 1.0, 1.0, True)  # fmt: skip


def _passage() -> Passage:
    return Passage(number=1, path="travel/berlin.md", folder=str(Path("/notes")),
                            title="Berlin", heading_path=[], start=0, end=len(BERLIN),
                            line_start=1, line_end=1, text=BERLIN, score=1.0)  # fmt: skip


def test_a_quote_is_shown_as_read_without_its_markup() -> None:
    text = "**Salz:** 10 g, siehe [[Brot|Brotrezept]] ![[salz.png#icon]] <b>fein</b>"
    quote = Evidence(2, "r.md", "/n", "R", 40, 40 + len(text), 3, 3, text, "item", 1.0, 1.0, True)
    shown = evidence_markdown([quote], turn=0)
    assert "“Salz: 10 g, siehe Brotrezept fein” [[2]](quire:evidence/0/0)" in shown
    assert "**" not in shown.replace("**From your notes:**", "") and "salz.png" not in shown
