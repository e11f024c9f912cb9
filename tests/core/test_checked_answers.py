"""Checked generation: an answer the notes back nowhere gives way to the quoted evidence; a
paraphrase is cited where all its figures stand in one source; evidence ranking signals."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from desktop_app.core.answer import attribution, citations, cues, evidence, gate
from desktop_app.core.answer.ask import answer_events
from desktop_app.core.answer.cues import AnswerKind
from desktop_app.core.answer.question import KeyWords, Question
from desktop_app.core.api import Quire
from desktop_app.core.as_json import as_json
from desktop_app.core.cancel import CancelToken
from desktop_app.core.events import Outcome
from desktop_app.core.retrieval import languages
from tests.support.fakes import QueuedModel

pytestmark = pytest.mark.usefixtures("fake_embedder")


def _read(question: str) -> Question:
    return Question.read(question, "en")


BREAD = "Bake in a preheated Dutch oven at 250 °C for 20 minutes with the lid on."
BERLIN = "Mit dem Zug aus Prag dauert die Fahrt nach Berlin etwa vier Stunden."
TRAIN = "How long does the train from Prague to Berlin take?"


def _done(quire: Quire, question: str, answer: str) -> tuple[dict, dict]:
    model = QueuedModel(answer)
    events = [as_json(e) for e in answer_events(quire.answers.retrieval(), question, [], model,
                                                 CancelToken())]  # fmt: skip
    return next(e for e in events if e["type"] == "evidence"), events[-1]


def test_an_answer_the_notes_back_nowhere_gives_way_to_the_quoted_evidence(
    sample_keywords: Quire,
) -> None:
    shown, done = _done(
        sample_keywords, TRAIN, "The train takes approximately 2 hours and 19 minutes."
    )
    best = shown["evidence"][0]
    assert "vier Stunden" in best["text"]
    assert done["answer"] == f"Your notes say: “{best['text']}” [{best['n']}]"
    assert done["citations"]["valid"] == [best["n"]] and not done["backed"]
    draft = done["draft"]
    assert draft["answer"].startswith("The train takes approximately 2 hours")
    assert [f["text"] for f in draft["unsupported"]] == ["2", "19"]  # marked in the draft
    assert done["generated"].strip() == "The train takes approximately 2 hours and 19 minutes."


def test_a_backed_answer_stays_the_answer(sample_keywords: Quire) -> None:
    _, done = _done(
        sample_keywords, "How much salt goes into the sourdough bread?", "Use 10 g salt."
    )
    assert done["backed"] and done["draft"] is None
    assert done["answer"].startswith("Use 10 g salt") and done["citations"]["valid"]


def test_a_paraphrase_whose_figures_all_stand_in_the_source_is_cited() -> None:
    en = attribution.attribute("Heat everything strongly: 250 °C during 20 minutes.", {1: BREAD})
    assert en.answer == "Heat everything strongly: 250 °C during 20 minutes [1]."
    invented = attribution.attribute("Heat everything strongly: 300 °C during 20 minutes.",
                                     {1: BREAD})  # fmt: skip
    assert "[1]" not in invented.answer and [f.text for f in invented.unsupported] == ["300"]
    de = attribution.attribute("Man braucht mit der Bahn ungefähr vier Stunden bis Berlin.",
                               {1: BERLIN}, "de")  # fmt: skip
    assert de.answer.endswith("bis Berlin [1].")
    wrong = attribution.attribute("Man braucht mit der Bahn ungefähr fünf Stunden bis Berlin.",
                                  {1: BERLIN}, "de")  # fmt: skip
    assert "[1]" not in wrong.answer and [f.text for f in wrong.unsupported] == ["fünf"]


def test_an_article_stands_for_one_only_before_a_unit_of_time() -> None:
    assert not attribution.unsupported_figures("It rests for 1 hour.", ["Let it rest an hour."])
    found = attribution.unsupported_figures("It has 1 lid.", ["Bake it with a lid on."])
    assert [f.text for f in found] == ["1"]


def test_question_words_standing_together_count_for_a_unit() -> None:
    q = KeyWords.of("When does the night train to Vienna leave?", "en")
    together = evidence.Unit(0, 0, "The night train to Vienna leaves at ten.", "sentence")
    apart = evidence.Unit(0, 0, "Vienna is far; at night no train leaves before ten.", "sentence")
    assert evidence.unit_signals(together, q).order > evidence.unit_signals(apart, q).order
    assert evidence.unit_signals(together, q).plain == evidence.unit_signals(apart, q).plain


def test_a_passage_near_the_bar_answers_when_a_sentence_holds_what_is_asked() -> None:
    weak = gate.GateDecision(True, "part", 0.5, None, Outcome.WEAK, [])
    assert gate.refine(weak, 0.26, True, AnswerKind.DURATION).outcome == Outcome.ANSWERED
    assert (
        gate.refine(weak, 0.26, False, AnswerKind.DURATION).outcome == Outcome.WEAK
    )  # no duration in it
    assert (
        gate.refine(weak, 0.26, True, AnswerKind.OTHER).outcome == Outcome.WEAK
    )  # nothing typed asked
    assert (
        gate.refine(weak, 0.1, True, AnswerKind.DURATION).outcome == Outcome.WEAK
    )  # too few key words
    far = gate.GateDecision(True, "part", 0.4, None, Outcome.WEAK, [])
    assert gate.refine(far, 0.26, True, AnswerKind.DURATION).outcome == Outcome.WEAK


def test_light_verbs_and_question_words_are_not_key_words(sample_keywords: Quire) -> None:
    for word in ("get", "goes", "sollte", "potřebuji", "much", "long"):
        assert not languages.is_key_word(word), word
    results = sample_keywords.search("Where should I get a Döner in Berlin?", top_k=8)
    decision = gate.classify(_read("Where should I get a Döner in Berlin?"), results)
    assert decision.coverage == 1.0 and decision.outcome == Outcome.ANSWERED
    assert "get" not in decision.missing


def test_a_number_with_points_is_never_cut_by_a_citation() -> None:
    source = "Die betroffene Region umfasste etwa 1.160.000 Quadratmeilen Regenwald."
    answer = "Die betroffene Region umfasste etwa 1.160.000 Quadratmeilen Regenwald."
    checked = attribution.attribute(answer, {1: "Anderes.", 2: source}, "de")
    assert (
        checked.answer
        == "Die betroffene Region umfasste etwa 1.160.000 Quadratmeilen Regenwald [2]."
    )
    assert not checked.unsupported


def test_a_bare_number_is_not_cited_for_appearing_somewhere_in_a_source() -> None:
    checked = attribution.attribute("The answer is: 2.", {1: "Es gab 2 Spiele in Berlin."}, "en")
    assert "[1]" not in checked.answer


def test_both_retrievers_just_short_of_their_bar_agree_on_one_passage(
    sample_keywords: Quire,
) -> None:
    question = _read("What ingredients go into the sourdough dough?")
    top = sample_keywords.search(question.text, top_k=8)[0]
    near = replace(top, evidence=0.5, cosine=0.56, trusted_dense=True)
    assert gate.classify(question, [near]).outcome == Outcome.ANSWERED
    assert gate.classify(question, [replace(near, trusted_dense=False)]).outcome == Outcome.WEAK
    assert gate.classify(question, [replace(near, cosine=0.5)]).outcome == Outcome.WEAK
    assert gate.classify(question, [replace(near, evidence=0.4)]).outcome == Outcome.WEAK
    # the two signals from different passages are no agreement
    apart = [replace(near, cosine=0.2), replace(near, evidence=0.1, chunk_id=near.chunk_id + 1)]
    assert gate.classify(question, apart).outcome == Outcome.WEAK


def test_a_figure_the_question_states_is_no_answer_to_it() -> None:
    question = _read("How long did the fighting last in the Seven Years War?")
    conflict = "The whole conflict is known as the Seven Years' War."
    assert not cues.matches(AnswerKind.DURATION, conflict, question)
    assert cues.matches(AnswerKind.DURATION, "The fighting was concluded in six years.", question)
    asked = _read("When did the 1756 war end?")
    assert not cues.matches(AnswerKind.DATE, "The war of 1756 began in Europe.", asked)
    assert cues.matches(AnswerKind.DATE, "It ended in 1763.", asked)
    teams = _read("How many points did two teams score?")
    assert not cues.matches(AnswerKind.QUANTITY, "Two teams played.", teams)


BOILER = "# Boiler\n\nThe boiler service is booked for 14 March at nine. The technician is Jana.\n"
CELLAR = (
    "# Cellar\n\nLast winter the boiler service was booked twice by mistake. The spare key "
    "hangs by the cellar door.\n"
)


@pytest.mark.parametrize(
    ("answer", "replaced"),
    [
        ("The spare key hangs by the cellar door [2].", "off_question"),  # backed, but not about it
        ("The boiler service is booked for 14 March [1].", None),
        ("Last winter the boiler service was booked twice by mistake [2].", None),  # on it too
        ("It is a nice day.", "unbacked"),
    ],
)
def test_an_answer_repeating_a_lower_passage_off_the_question_gives_way_to_the_evidence(
    tmp_path: Path, answer: str, replaced: str | None
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "boiler.md").write_text(BOILER, "utf-8")
    (notes / "cellar.md").write_text(CELLAR, "utf-8")
    quire = Quire.open(tmp_path / "home")
    quire.index([notes], embed=False)
    found, done = _done(quire, "When is the boiler service booked?", answer)
    quire.close()
    assert [e["path"] for e in found["evidence"]][:2] == ["boiler.md", "cellar.md"]
    assert (done["draft"] or {}).get("replaced") == replaced
    if replaced:
        assert done["answer"].startswith(attribution.NOTES_SAY) and "14 March" in done["answer"]
        assert done["backed"] is False and done["generated"].strip() == answer
    else:
        assert done["answer"] == answer and done["backed"] is True


def test_a_copy_that_echoes_the_question_counts_only_what_its_source_holds() -> None:
    """The off-question rule weighs a backed sentence by the question's key words it holds; a
    copy of a lower passage that echoes the question holds them all, the passage it copies does
    not hold "Schlacht": only the key words both hold count."""
    keys = KeyWords.of("Was war die erste Schlacht von 1754?", "de")
    echo = "Die erste Schlacht von 1754 wurde eine Kompanie von 40 Männern unter William Trent."
    copied = (
        "Dinwiddie hatte eine Kompanie von 40 Männern unter William Trent an jenen Ort geschickt, "
        "wo sie in den ersten Monaten 1754 mit dem Bau einer kleinen Festung begann."
    )
    assert evidence.question_overlap(echo, keys) == 1.0
    assert evidence.question_overlap(echo, keys, copied) == pytest.approx(2 / 3)
    assert evidence.question_overlap(echo, keys, "Nichts davon.") == 0.0


GURUS = (
    "Im Hinduismus werden spirituelle Lehrer Guru genannt, und Gurus haben oft ein großes Maß an "
    "Kontrolle über das Leben ihrer Schüler."
)
CHURCH = "Die Generalkonferenz tagt alle vier Jahre; christliche Gemeinden senden Delegierte."


def test_a_shared_word_beginning_is_no_support() -> None:
    """'kontrollieren' / 'Kontrolle', 'General' / 'Generalkonferenz', 'Christian' / 'christliche'
    share five letters, not a word: a question echo or an English guess at a German note is not
    backed by them, neither by the model's own `[1]` nor by a `[1]` Quire would add."""
    echo = citations.check("Wenn kontrollieren Gurus [1]?", {1: GURUS}, "de")
    assert [s.weak for s in echo.sentences] == [True]
    guess = "The answer: The General Association of Christian Churches."
    assert citations.check(guess[:-1] + " [1].", {1: CHURCH}, "de").sentences[0].weak
    assert "[1]" not in attribution.attribute(guess, {1: CHURCH}, "de").answer
    backed = citations.check("Gurus haben Kontrolle über das Leben ihrer Schüler [1].", {1: GURUS})
    assert [s.weak for s in backed.sentences] == [False]
