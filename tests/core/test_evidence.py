"""Evidence first, checked answers and the three outcomes: real SQLite index of the sample notes
(keyword index; fast), a queued fake model for the event flow, hand-made answers in en/de/cs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app import cli
from desktop_app.core.answer import attribution, cues, evidence, figures, grounded
from desktop_app.core.answer.ask import answer_events, index_weights
from desktop_app.core.answer.cues import AnswerKind
from desktop_app.core.answer.decision import relevant
from desktop_app.core.answer.prompt import build_sources
from desktop_app.core.answer.question import Question
from desktop_app.core.answer.units import split_units
from desktop_app.core.api import Quire
from desktop_app.core.as_json import as_json
from desktop_app.core.cancel import CancelToken
from desktop_app.core.events import Outcome
from desktop_app.core.ingest import formats
from desktop_app.core.passage import Passage
from desktop_app.core.retrieval.highlight import matching_spans
from desktop_app.paths import sample_notes
from tests.support.fakes import QueuedModel

pytestmark = pytest.mark.usefixtures("fake_embedder")

QUESTIONS = Path(__file__).resolve().parents[1] / "data" / "sample_questions.jsonl"


def _questions() -> list[dict[str, str]]:
    return [json.loads(x) for x in QUESTIONS.read_text("utf-8").splitlines() if x]


def _evidence(quire: Quire, question: str) -> list[evidence.Evidence]:
    results = quire.search(question, top_k=8)
    weights = index_weights(quire.database)
    asked = Question.read(question, quire.searcher.query_language(question), weights)
    return evidence.select(asked, results, build_sources(relevant(results)), weights)


# -- units and spans -------------------------------------------------------------------------
def test_units_round_trip_and_split_lists_and_sentences() -> None:
    for note in sample_notes().rglob("*.*"):
        text = formats.load(note, 10_000_000).text
        units = list(split_units(text))
        assert units
        for unit in units:
            assert text[unit.start : unit.end] == unit.text and unit.text.strip() == unit.text
    bread = (sample_notes() / "recipes" / "bread.md").read_text("utf-8")
    shown = [u.text for u in split_units(bread)]
    assert "500 g bread flour" in shown and "10 g salt" in shown  # list items, marker dropped
    assert (
        "Feed the starter with equal weights of flour and water the evening before baking." in shown
    )
    assert not any(s.startswith("#") for s in shown)  # headings are not evidence


def test_sentences_keep_abbreviations_and_offsets_shift() -> None:
    text = "Intro.\n\nWe met Dr. Novák at 9 a.m. in Brno. Then z. B. Tee trinken! Done?"
    units = list(split_units(text, offset=100))
    assert [u.text for u in units] == ["Intro.", "We met Dr. Novák at 9 a.m. in Brno.",
                                       "Then z. B. Tee trinken!", "Done?"]  # fmt: skip
    assert all(("x" * 100 + text)[u.start : u.end] == u.text for u in units)


def test_every_sample_question_gets_round_tripping_evidence(sample: tuple[Quire, Path]) -> None:
    quire, folder = sample
    for q in _questions():
        found = _evidence(quire, q["question"])
        assert 1 <= len(found) <= 3, q
        for e in found:
            text = formats.load(folder / e.path, 10_000_000).text
            assert text[e.start : e.end] == e.text
            assert text.count("\n", 0, e.start) + 1 == e.line_start


@pytest.mark.parametrize(("question", "expected"), [
    ("How much salt goes into the sourdough bread?", "10 g salt"),
    ("Wie lange dauert die Zugfahrt von Prag nach Berlin?", "vier Stunden"),
    ("Jak dlouho se peče svíčková v troubě?", "dvě a půl hodiny"),
])  # fmt: skip
def test_answer_type_cues_pick_the_answering_sentence(
    sample: tuple[Quire, Path], question: str, expected: str
) -> None:
    assert expected in _evidence(sample[0], question)[0].text


def test_question_kinds_in_three_languages() -> None:
    kinds = {
        q: cues.question_kind(q)
        for q in (
            "How long does it take?",
            "Wie lange dauert es?",
            "Jak dlouho to trvá?",
            "How many museums?",
            "Wie viele Museen?",
            "Kolik muzeí?",
            "When was it built?",
            "Wann wurde es gebaut?",
            "Kdy byl postaven?",
            "Who won?",
            "Wer gewann?",
            "Kdo vyhrál?",
        )
    }
    assert list(kinds.values()) == ["duration"] * 3 + ["quantity"] * 3 + ["date"] * 3 + [
        "person"] * 3  # fmt: skip


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How many degrees should the oven be?", "temperature"),
        ("Bei wie viel Grad backe ich die Vanillekipferl?", "temperature"),
        ("Na kolik stupňů se peče štrúdl?", "temperature"),
        ("At what temperature do I bake it?", "temperature"),
        # opened by "how long": a time is asked, whatever temperature the question names
        ("Jak dlouho vydrží chleba při pokojové teplotě?", "duration"),
        ("How long does the bread keep at room temperature?", "duration"),
        ("Kolik soli dát do těsta?", "quantity"),
    ],
)
def test_a_temperature_is_asked_by_name_or_in_degrees(question: str, kind: str) -> None:
    assert cues.question_kind(question) == kind


# -- checking the generated answer ---------------------------------------------------------------
BREAD = "Bake in a preheated Dutch oven at 250 °C for 20 minutes with the lid on."
BERLIN = "Mit dem Zug aus Prag dauert die Fahrt nach Berlin etwa vier Stunden."
SVICKOVA = "Druhý den maso opečeme a pečeme v troubě zhruba dvě a půl hodiny při 160 °C."


def test_attribution_and_invented_figures_en() -> None:
    answer = "Bake the bread at 250 °C for 20 minutes with the lid on. It takes about 12 hours."
    checked = attribution.attribute(answer, {1: "Starter notes.", 2: BREAD}, "en")
    assert checked.answer.startswith("Bake the bread at 250 °C for 20 minutes with the lid on [2].")
    assert [f.text for f in checked.unsupported] == ["12"]
    f = checked.unsupported[0]
    assert checked.answer[f.start : f.end] == "12"
    assert "12 (not found in the notes) hours" in checked.marked()


def test_attribution_and_invented_figures_de() -> None:
    answer = "Die Fahrt von Prag nach Berlin dauert etwa vier Stunden. Sie kostet 30 Euro."
    checked = attribution.attribute(answer, {1: BERLIN}, "de")
    assert "vier Stunden [1]." in checked.answer
    assert [f.text for f in checked.unsupported] == ["30", "Euro"]


def test_attribution_and_invented_figures_cs() -> None:
    answer = "Maso se peče v troubě zhruba dvě a půl hodiny při 160 °C. Podává se s rýží a 180 g."
    checked = attribution.attribute(answer, {1: SVICKOVA}, "cs")
    assert checked.answer.startswith(
        "Maso se peče v troubě zhruba dvě a půl hodiny při 160 °C [1]."
    )
    assert checked.answer.endswith("s rýží a 180 g.")  # nothing in the notes backs it: no [n]
    assert [f.text for f in checked.unsupported] == ["180"]


def test_a_day_or_an_abbreviation_is_no_sentence_end_for_a_citation() -> None:
    note = "Další kontrola 11. 11. 2024 v 9:40, vzít zprávu. Motor verbraucht ca. 8 kg Dampf."
    answer = "Další kontrola 11. 11. 2024 v 9:40. Der Motor verbraucht ca. 8 kg Dampf."
    checked = attribution.attribute(answer, {1: note}, "cs")
    assert checked.answer == (
        "Další kontrola 11. 11. 2024 v 9:40 [1]. Der Motor verbraucht ca. 8 kg Dampf [1]."
    )


def test_own_valid_citations_kept_invalid_never_become_sources() -> None:
    answer = "Bake at 250 °C for 20 minutes [1]. The lid stays on for 20 minutes at 250 °C [7]."
    checked = attribution.attribute(answer, {1: BREAD}, "en")
    assert checked.answer.count("[1]") == 2 and "[7]" not in checked.answer  # not shown as one
    assert checked.invalid == [7]  # listed once, below the answer
    assert checked.added and checked.added[0].number == 1


def test_invalid_numbers_leave_the_answer_and_valid_groups_stay_as_written() -> None:
    answer = "Bake it [1,7]. Rest it [3][1]. Then [2; 9]."
    checked = attribution.attribute(answer, {1: BREAD, 2: BREAD}, "en")
    assert "[1]" in checked.answer and "[3]" not in checked.answer and "[9]" not in checked.answer
    assert "Rest it [1]." in checked.answer and "Then [2]." in checked.answer
    assert checked.invalid == [7, 3, 9]


def test_german_common_nouns_are_not_names() -> None:
    answer = "Die Reise nach Dresden dauert vier Stunden."
    found = attribution.unsupported_figures(answer, [BERLIN], "de")
    assert [f.text for f in found] == ["Dresden"]


def test_a_word_after_any_citation_form_starts_a_sentence_and_is_no_name() -> None:
    """`[1, 2]` ends a sentence as `[1]` does (the one citation pattern), so the capital of the
    next word is no sign of a name."""
    for cited in ("[1]", "[1, 2]", "[1; 2]"):
        answer = f"Bake it at 250 degrees {cited} Afterwards rest it."
        names = [f.text for f in figures.figures(answer) if f.kind == "name"]
        assert names == [], cited


def test_a_wrong_citation_stays_and_the_backing_source_is_added() -> None:
    answer = "Mit dem Zug dauert die Fahrt nach Berlin etwa vier Stunden [2]."
    checked = attribution.attribute(answer, {1: BERLIN, 2: BREAD}, "de")
    assert checked.answer == "Mit dem Zug dauert die Fahrt nach Berlin etwa vier Stunden [2] [1]."


def test_a_short_fully_backed_answer_is_cited() -> None:
    source = "Kawann Short led the team in sacks with 11 while also forcing three fumbles."
    assert attribution.attribute("Kawann Short.", {1: "Other.", 2: source}).answer == (
        "Kawann Short [2]."
    )


def test_unsupported_sentence_is_not_attributed() -> None:
    checked = attribution.attribute("Rye needs a cooler oven.", {1: BREAD}, "en")
    assert checked.answer == "Rye needs a cooler oven." and not checked.added


def test_figures_spelled_differently_are_found() -> None:
    assert not attribution.unsupported_figures("It takes four hours.", [BERLIN])
    assert not attribution.unsupported_figures("About 4 hours from Prague.", [BERLIN])


# -- the event flow ----------------------------------------------------------------------------
def test_evidence_comes_before_any_token_and_done_is_checked(sample: tuple[Quire, Path]) -> None:
    quire = sample[0]
    model = QueuedModel("Use 10 g salt and 900 g flour.")
    question = "How much salt goes into the sourdough bread?"
    events = [as_json(e) for e in answer_events(quire.answers.retrieval(), question, [], model,
                                                 CancelToken())]  # fmt: skip
    kinds = [e["type"] for e in events]
    assert kinds[:2] == ["sources", "evidence"] and kinds[-1] == "done"
    assert set(kinds[2:-1]) == {"token"}
    shown = events[1]["evidence"]
    assert shown and "10 g salt" in shown[0]["text"] and events[1]["outcome"] != Outcome.ABSENT
    assert "10 g salt" in model.prompts[0]  # the compact prompt names the evidence
    done = events[-1]
    assert {"answer", "answerable", "citations", "timings"} <= set(done)
    # 900 g is in no source: marked in the model's draft, which gives way to the notes' words
    assert [f["text"] for f in done["draft"]["unsupported"]] == ["900"]
    assert done["draft"]["replaced"] == "unreadable" and "10 g salt" in done["answer"]
    assert done["citations"]["valid"] and done["quote"]["text"] in done["answer"]
    assert done["timings"]["evidence_seconds"] >= 0


def test_refusal_says_why_not_a_score(sample: tuple[Quire, Path]) -> None:
    events = [as_json(e) for e in answer_events(
        sample[0].answers.retrieval(), "Who won the 1998 football world cup final?", [],
        QueuedModel(), CancelToken())]  # fmt: skip
    done = events[-1]
    assert done["outcome"] == Outcome.ABSENT and not done["answerable"]
    assert "football" in done["reason"] and "0." not in done["answer"]


def test_empty_question_is_refused(sample: tuple[Quire, Path]) -> None:
    events = [as_json(e) for e in answer_events(sample[0].answers.retrieval(), "  ", [],
                                                 QueuedModel(), CancelToken())]  # fmt: skip
    assert [e["type"] for e in events] == ["error"]


def test_cli_empty_question_and_empty_index(
    capsys: pytest.CaptureFixture[str], queued_model: QueuedModel
) -> None:
    assert cli.main(["ask", ""]) == 2
    assert "empty" in capsys.readouterr().err
    assert cli.main(["ask", "what is in my notes?"]) == 1
    assert "quire index FOLDER" in capsys.readouterr().err
    assert cli.main(["search", "anything"]) == 1
    assert "quire index FOLDER" in capsys.readouterr().err


def test_rerun_reports_files_still_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                           ) -> None:  # fmt: skip
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nSome words.\n", "utf-8")
    (folder / "empty.md").write_text("   \n", "utf-8")
    for _ in range(2):
        assert cli.main(["index", str(folder), "--no-embed"]) == 0
        assert "1 skipped" in capsys.readouterr().out


def test_function_words_are_not_highlighted() -> None:
    text = "Notes from the garden, with tomatoes."
    marked = [text[a:b] for a, b in matching_spans(text, ["from", "with", "garden", "the"])]
    assert marked == ["garden"]


def _passage(number: int, text: str) -> Passage:
    return Passage(number=number, path=f"n{number}.md", folder="/notes", title="", heading_path=[],
                   start=100, end=100 + len(text), line_start=1, line_end=3, text=text,
                   score=1.0)  # fmt: skip


def _said(number: int, source: Passage, sentence: str) -> evidence.Evidence:
    start = source.start + source.text.index(sentence)
    return evidence.Evidence(number=number, path=source.path, folder=source.folder, title="",
                             start=start, end=start + len(sentence), line_start=1, line_end=1,
                             text=sentence, kind="sentence", score=1.0, overlap=0.6,
                             cue=False)  # fmt: skip


def test_the_compact_prompt_holds_only_the_evidence_sentences() -> None:
    one = _passage(1, "Intro line here. The train takes four hours. Tickets are cheap. " * 3)
    two = _passage(2, "Nothing relevant is said in this other note at all. " * 20)
    three = _passage(3, "Book three weeks ahead. Then relax.")
    found = [
        _said(3, three, "Book three weeks ahead."),
        _said(1, one, "The train takes four hours."),
    ]
    sources, renumbered = grounded.choose_sources([one, two, three], found)
    # the source without evidence is left out
    assert [s.path for s in sources] == ["n3.md", "n1.md"]
    assert [e.number for e in renumbered] == [1, 2]
    cut = grounded.excerpts(sources, renumbered)
    assert [s.text for s in cut] == ["Book three weeks ahead.", "The train takes four hours."]
    assert sources[1].text == one.text  # the panel and the checks keep the whole source


def test_without_evidence_the_best_sources_are_cut_to_their_start() -> None:
    long = _passage(1, "word " * 400)
    sources, found = grounded.choose_sources([long], [])
    [cut] = grounded.excerpts(sources, found)
    assert found == [] and cut.text.endswith(" …") and len(cut.text) <= grounded.EXCERPT_CHARS + 2


def test_a_temperature_in_a_sentence_is_what_a_temperature_question_asks_for() -> None:
    question = Question.read("At what temperature do I bake the bread with the lid on?", "en")
    assert question.kind == "temperature"
    assert cues.matches(
        AnswerKind.TEMPERATURE, "Bake at 250 °C for 20 minutes with the lid on.", question
    )
    assert cues.matches(AnswerKind.TEMPERATURE, "Pečeme při 160 stupních asi dvě hodiny.", question)
    assert cues.matches(AnswerKind.TEMPERATURE, "Bei 200 Grad backen.", question)
    assert not cues.matches(AnswerKind.TEMPERATURE, "Add the flour gradually.", question)
    assert not cues.matches(
        AnswerKind.TEMPERATURE, "Bake for 20 minutes with the lid on.", question
    )


def test_a_month_named_in_the_question_matches_a_day_written_in_figures() -> None:
    meetings = (
        "- Porada 2. 10.: jen do konce října hotovo.\n- Další porada 30. 10. v zasedačce Morava.\n"
    )
    question = Question.read("Kde bude porada 30. října?", "cs")
    scored = {u.text: evidence.unit_signals(u, question.keys) for u in split_units(meetings, 0)}
    later, earlier = scored["Další porada 30. 10. v zasedačce Morava."], next(iter(scored.values()))
    assert later.ranking == 1.0 and later.ranking > earlier.ranking
    german = Question.read("Wann ist der Termin am 30. Oktober?", "de")
    unit = next(split_units("Der Termin ist am 30.10. um zehn.", 0))
    assert evidence.unit_signals(unit, german.keys).ranking == 1.0
