"""What Quire shows as *the answer*: right, short, in the question's language, or the notes' own
words — never a draft with labels, loops, invented `[n]` or made-up words."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from desktop_app.core.answer import answer_line, grammar, readability
from desktop_app.core.answer.ask import answer_events
from desktop_app.core.answer.citations import check, numbers_in
from desktop_app.core.answer.gate import missing_words
from desktop_app.core.answer.gguf import GgufInfo
from desktop_app.core.answer.profile import family_of, parse_languages, profile_of
from desktop_app.core.answer.question import Question
from desktop_app.core.answer.units import split_units
from desktop_app.core.api import Quire
from desktop_app.core.cancel import CancelToken
from desktop_app.core.events import Done, DraftReplaced, EvidenceShown
from desktop_app.core.passage import Evidence
from desktop_app.settings import Settings
from tests.support.fakes import QueuedModel
from tests.support.grammar_check import accepts

pytestmark = pytest.mark.usefixtures("fake_embedder")

LID = "At what temperature is the bread baked while the lid is on?"
BAKE = (
    "Bake in a preheated Dutch oven at 250 °C for 20 minutes with the lid on,\n"
    "then 25 minutes at 230 °C without the lid, until the crust is deep brown."
)


def _ask(quire: Quire, question: str, model: QueuedModel) -> list[object]:
    return list(answer_events(quire.answers.retrieval(), question, [], model, CancelToken()))


def _unit(text: str, start: int = 0) -> Evidence:
    return Evidence(1, "bread.md", "/n", "Bread", start, start + len(text), 1, 2, text,
                    "sentence", 1.0, 0.5, True)  # fmt: skip


# -- the answer line ---------------------------------------------------------------------------
def test_the_answer_line_is_the_clause_the_question_qualifies_and_an_exact_span() -> None:
    line = answer_line.compose([_unit(BAKE, 100)], Question.read(LID, "en"))
    assert line is not None and "250 °C" in line.text and "230" not in line.text
    assert BAKE[line.start - 100 : line.end - 100] == line.text  # a span of the note, verbatim


def test_the_line_comes_from_the_best_unit_that_holds_the_kind_asked_for() -> None:
    named = replace(_unit("Svíčková is a Czech dish of beef in a cream sauce.", 0), cue=False)
    roasted = _unit("Roast the beef for two and a half hours at 160 °C.", 60)
    asked = Question.read("At what temperature is svíčková roasted?", "en")
    line = answer_line.compose([named, roasted], asked)
    assert line is not None and "160 °C" in line.text
    untyped = Question.read("Tell me about svíčková", "en")  # no kind of fact asked: the best
    assert answer_line.compose([named, roasted], untyped) == named


def test_with_nothing_to_choose_between_clauses_the_whole_unit_answers() -> None:
    line = answer_line.compose([_unit(BAKE)], Question.read("How long does the bread bake?", "en"))
    assert line is not None and line.text == BAKE  # 20 and 25 minutes: both answer


def test_a_day_written_in_figures_is_the_date_a_when_asks_for() -> None:
    diary = "15. 5. – po zmrzlých mužích jsem konečně vysadila rajčata ven, 8 sazenic u zdi."
    asked = Question.read("Kdy jsem v roce 2024 vysazovala rajčata ven?", "cs")
    line = answer_line.compose([_unit(diary)], asked)
    assert line is not None and line.text.startswith("15. 5.")
    stated = Question.read("Co jsem dělala 15. 5. na zahradě?", "cs")  # the day it names itself
    assert not answer_line.cues.has_date("15. 5. – vysadila jsem rajčata", stated)


FAQ = (
    "# Häufige Fragen\n\n**Kann ich Quire ohne Internet benutzen?**\n"
    "Ja, alle Notizen und Modelle bleiben auf deinem Rechner.\n\n"
    "**Zutaten**\n\n- 500 g Mehl\n\nWas kostet es?\n\nNichts, es ist frei.\n"
)


def test_an_faq_question_or_an_emphasised_line_heads_what_follows_and_is_no_unit() -> None:
    units = {u.text: u.heading for u in split_units(FAQ)}
    assert units == {
        "Ja, alle Notizen und Modelle bleiben auf deinem Rechner.": (
            "Kann ich Quire ohne Internet benutzen?"
        ),
        "500 g Mehl": "Zutaten",
        "Nichts, es ist frei.": "Was kostet es?",
    }


@pytest.mark.parametrize(
    "text",
    [
        "Can I use it offline?",
        "**Kann ich Quire ohne Internet benutzen?**",
        "Ingredients you need:",
        "Source: [[Berlin 2024]] https://example.org/x",
        "Übersetzung: [DeepL](https://deepl.com) #translated",
    ],
)
def test_a_question_an_introduction_or_a_label_of_links_is_never_the_answer_line(
    text: str,
) -> None:
    answer = "Yes, everything stays on your computer."
    asked = Question.read("Can I use Quire offline?", "en")
    assert answer_line.compose([_unit(text)], asked) is None
    line = answer_line.compose([_unit(text), _unit(answer, 200)], asked)
    assert line is not None and line.text == answer


def test_a_label_with_words_after_it_answers() -> None:
    asked = Question.read("How much salt goes into the bread?", "en")
    line = answer_line.compose([_unit("Salt: 10 g, fine sea salt")], asked)
    assert line is not None and "10 g" in line.text


def test_the_faq_answer_not_its_question_is_quoted_without_markup(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "faq.md").write_text(FAQ.replace("alle Notizen", "**alle** Notizen"), "utf-8")
    quire = Quire.open(tmp_path / "home")
    quire.index([notes])
    model = QueuedModel(languages=frozenset({"en"}))  # writes no German: the line is the answer
    events = _ask(quire, "Kann ich Quire ohne Internet benutzen?", model)
    done = events[-1]
    assert isinstance(done, Done) and done.quote is not None, events
    assert done.quote.text.startswith("Ja, **alle** Notizen") and "?" not in done.quote.text
    assert done.answer.startswith("Your notes say: “Ja, alle Notizen") and "**" not in done.answer
    assert done.citations.valid == [1] and not done.citations.invalid
    quire.close()


# -- reading checks ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("draft", "problem"),
    [
        ("Die Fahrt ist eine Auswirkungsweberschutz der Staatsdeutchen [1].", "words that are not"),
        ("The train is fast and the train is fast and the train is fast [1].", "repeats itself"),
        ("The answer is: vier Stunden [1].", "label"),
        ("The key sentence from the source is vier Stunden [1].", "label"),
        ("The source says it takes four hours [1].", "label"),
        ("It takes four hours, as mentioned in the source [1].", "label"),
        ("It takes four hours [7].", "does not exist"),
        ("Mit dem Zug dauert es etwa vier Stunden bis Berlin [1].", "question's language"),
        ("The train from Prague takes four hours but now, [1], [1].", "did not come to an end"),
        ("Quire reads Markdown, PDF and Word documents (. [1]", "did not come to an end"),
        ("The next check-up is on 11 [1]. 11 [1]. 2024 at 9:40 [1].", "breaks into pieces"),
        ("The meeting is on 30 [1]. october in room Morava [1].", "breaks into pieces"),
    ],
)
def test_a_draft_unfit_to_read_is_named_for_what_is_wrong(draft: str, problem: str) -> None:
    source = "Mit dem Zug aus Prag dauert die Fahrt nach Berlin etwa vier Stunden."
    language = "de" if "Staatsdeutchen" in draft else "en"
    question = Question.read(
        "Wie lange dauert die Zugfahrt?" if language == "de" else "How long is the train?", language
    )
    written = readability.Written(draft, True, 1)
    found = readability.problems(written, question, [source], [], None)
    assert any(problem in p for p in found), found


def test_a_plain_backed_draft_passes_the_reading_checks() -> None:
    question = Question.read(LID, "en")
    written = readability.Written("The bread is baked at 250 °C with the lid on [1].", True, 1)
    line = answer_line.compose([_unit(BAKE)], question)
    assert readability.problems(written, question, [BAKE], [_unit(BAKE)], line) == []
    after_stop = readability.Written("The bread is baked at 250 °C with the lid on. [1]", True, 1)
    assert readability.problems(after_stop, question, [BAKE], [_unit(BAKE)], line) == []


def test_a_model_that_keeps_to_no_format_may_only_reword_the_answer_line() -> None:
    dough = "Mix 500 g bread flour, 350 g water, 100 g active starter and 10 g salt."
    question = Question.read("What goes into the dough?", "en")
    line = answer_line.compose([_unit(dough)], question)

    def problems(draft: str, keeps_to_format: bool) -> list[str]:
        written = readability.Written(draft, True, 1, keeps_to_format=keeps_to_format)
        return readability.problems(written, question, [dough], [_unit(dough)], line)

    vague = "The dough takes flour, water, starter and salt [1]."
    assert "it leaves out what your notes say" in problems(vague, keeps_to_format=False)
    assert problems(vague, keeps_to_format=True) == []  # a capable model may choose its words
    full = "The dough takes 500 g bread flour, 350 g water, 100 g starter and 10 g salt [1]."
    assert problems(full, keeps_to_format=False) == []


def test_a_language_named_inside_a_sentence_is_no_label() -> None:
    source = "The statement was in Latin, apart from one line, which was in German."
    question = Question.read("In what language was the statement written?", "en")
    draft = readability.Written("The statement was in Latin, apart from one line in German [1].",
                                True, 1)  # fmt: skip
    assert readability.problems(draft, question, [source], [_unit(source)], None) == []
    label = readability.Written("In German: the statement was in Latin [1].", True, 1)
    assert any("label" in p for p in readability.problems(label, question, [source], [], None))


def test_a_figure_from_the_clause_the_question_does_not_ask_about_fails() -> None:
    question = Question.read(LID, "en")
    written = readability.Written("The bread is baked at 230 °C [1].", True, 1)
    line = answer_line.compose([_unit(BAKE)], question)
    found = readability.problems(written, question, [BAKE], [_unit(BAKE)], line)
    assert any("figure" in p for p in found)


def test_a_figure_from_another_quoted_unit_that_answers_as_fully_stands() -> None:
    patents = "Tesla's patents were upheld in 1903 and Marconi won in 1904."
    died = "Tesla died on 7 January 1943."
    weather = "The winter of 1942 in New York was cold."
    units = [_unit(patents), _unit(died, 100), _unit(weather, 200)]
    question = Question.read("What year did Tesla die?", "en")
    line = answer_line.compose(units, question)  # the ranking put the patents first
    assert line is not None and "1903" in line.text

    def figure_problem(draft: str) -> bool:
        written = readability.Written(draft, True, 1)
        found = readability.problems(written, question, [patents, died, weather], units, line)
        return any("figure" in p for p in found)

    assert not figure_problem("Tesla died on 7 January 1943 [1].")  # "Tesla died": as fully
    assert figure_problem("Tesla died in 1942 [1].")  # a unit holding less of the question


def test_words_of_the_language_inflected_forms_and_the_notes_words_are_not_made_up() -> None:
    assert (
        readability.made_up_words("Wir pečeme die Svíčková lange.", "de", ["pečeme svíčková"]) == []
    )
    assert readability.made_up_words("Svejské jedinice je za konzolacím.", "cs", []) == [
        "svejské", "jedinice", "konzolacím",
    ]  # fmt: skip


# -- the flow, with a fake model ---------------------------------------------------------------
def test_labels_loops_invented_citations_and_made_up_words_never_reach_the_answer(
    sample: tuple[Quire, Path],
) -> None:
    bad = ("In German: The answer is Staatsdeutchen bread [9]. Bread bread bread bread bread "
           "bread bread bread bread.")  # fmt: skip
    model = QueuedModel(bad)
    events = _ask(sample[0], "How much salt goes into the sourdough bread?", model)
    done = events[-1]
    assert isinstance(done, Done) and done.draft is not None
    assert done.draft.replaced == DraftReplaced.UNREADABLE and done.draft.problems
    for junk in ("In German", "answer is", "Staatsdeutchen", "[9]", "bread bread"):
        assert junk not in done.answer
    assert done.quote is not None and "10 g salt" in done.answer and done.offer
    assert model.grammars[0] is not None and '"1"' in model.grammars[0]  # generation was shaped


def test_a_czech_question_with_an_english_only_model_gets_the_notes_words(
    sample: tuple[Quire, Path],
) -> None:
    quire, folder = sample
    model = QueuedModel("should never be asked", languages=frozenset({"en"}))
    events = _ask(quire, "Jak dlouho se peče svíčková?", model)
    done = events[-1]
    assert isinstance(done, Done) and model.prompts == []  # no generation at all
    assert done.declined and "Czech" in done.declined and "Czech" in done.offer
    assert done.quote is not None and "dvě a půl hodiny" in done.answer
    note = (folder / done.quote.path).read_text("utf-8")
    assert note[done.quote.start : done.quote.end] == done.quote.text
    assert not any(isinstance(e, EvidenceShown) and "peče" in e.caution for e in events)


def test_the_inflected_form_in_the_note_is_no_missing_word(sample: tuple[Quire, Path]) -> None:
    quire = sample[0]
    question = Question.read("Jak dlouho se peče svíčková?", "cs")
    results = quire.search("Jak dlouho se peče svíčková?", top_k=5)
    assert "peče" not in missing_words(question, results)  # the note says "pečeme"


# -- the model's profile -----------------------------------------------------------------------
def _info(name: str, architecture: str = "llama", template: str = "") -> GgufInfo:
    return GgufInfo(Path(f"/m/{name}.gguf"), 3, architecture, name, 8192, template, 1)


def test_families_write_what_their_model_cards_say_and_the_user_corrects_them() -> None:
    assert profile_of(_info("SmolLM2-135M-Instruct"), 2048).languages == frozenset({"en"})
    assert profile_of(_info("Qwen2.5-1.5B-Instruct", "qwen2"), 2048).writes("de")
    assert profile_of(_info("gemma-3-1b-it", "gemma3"), 2048).writes("cs")
    assert family_of(_info("mystery", "x", "<|im_start|>user")).name == "Qwen"
    assert not profile_of(_info("mystery", "x"), 2048).writes("de")  # unknown: English only
    corrected = profile_of(_info("SmolLM2-135M-Instruct"), 2048, ["en", "cs"])
    assert corrected.writes("cs") and corrected.corrected
    assert profile_of(_info("SmolLM2"), 2048, ["*"]).writes("de")
    assert parse_languages("en, de cs") == ["en", "de", "cs"] and parse_languages(" ") is None
    with pytest.raises(ValueError, match="not a language code"):
        parse_languages("english")


def test_settings_keep_each_models_languages_and_drop_bad_values(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"model_languages": {"/m/a.gguf": ["en", "de", 3, "x y"], "/m/b": "cs"}}')
    settings = Settings.load(path)
    assert settings.languages_of(Path("/m/a.gguf")) == ["en", "de"]
    assert settings.languages_of(Path("/m/b")) is None


# -- the grammar, on the real model ------------------------------------------------------------
def _written_under_the_grammar(ask: str, sources: int, max_tokens: int = 40) -> str:
    """What the bundled model writes for `ask` under the answer grammar for `sources` sources."""
    from desktop_app.core.answer.llm import LocalModel

    model = LocalModel(n_ctx=1024)
    prompt = model.render([{"role": "user", "content": ask}])
    shape = grammar.answer_grammar(sources, sentences=1)
    return "".join(model.stream(prompt, max_tokens, CancelToken(), temperature=0.0, grammar=shape))


@pytest.mark.slow
def test_the_grammar_cannot_write_a_citation_that_does_not_exist() -> None:
    text = _written_under_the_grammar("Repeat exactly: 'The sky is blue [7].'", 2)
    assert text.rstrip(".").endswith("]") and "[7]" not in text  # cited, before or after "."
    assert set(numbers_in(text)) <= {1, 2}


@pytest.mark.slow
def test_a_figure_may_end_a_sentence_before_its_citation() -> None:
    text = _written_under_the_grammar("Repeat exactly: Tesla died in 1943. [1]", 1)
    assert "1943" in text and not re.search(r"1943[.,:]\d", text)  # no decimal forced on it
    sentences = check(text, {1: "Nikola Tesla died in New York in 1943."}).sentences
    assert [s.cites for s in sentences] == [[1]] and not sentences[0].weak


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("Tesla starb am 7. Januar 1943 in New York [1].", True),  # a day's point
        ("Tesla died in 1943. [1]", True),  # the citation after the full stop
        ("Der Motor verbraucht ca. 8 kg Dampf, z. B. im Winter [2].", True),  # abbreviations
        ("Porada je 30. 10. v zasedačce Morava [1].", True),
        ("It ended in 1943 [3].", False),  # no such source
        ("The answer is: 1943 [1].", False),  # a label
        ("It was big. then it was small [1].", False),  # a full stop goes on only after a day
        ("It ended in 1943", False),  # no citation
    ],
)
def test_what_the_grammar_lets_a_model_write(text: str, written: bool) -> None:
    assert accepts(grammar.answer_grammar(2, sentences=1), text) is written


@pytest.mark.slow
def test_the_grammar_closes_every_quotation() -> None:
    ask = 'Repeat exactly: The key sentence from the source is "10 g salt [1].'
    text = _written_under_the_grammar(ask, 2, max_tokens=60)
    assert text.rstrip(".").endswith("]")
    assert text.count('"') % 2 == 0 and text.count("“") + text.count("„") == text.count("”")


def test_a_sentence_may_run_as_long_as_the_evidence_for_a_model_that_keeps_to_a_format() -> None:
    long = "word " * 50  # 250 characters: a sentence of the notes a model may restate
    assert grammar.sentence_bound([BAKE, long], follows_format=True) == len(long)
    assert grammar.sentence_bound([BAKE, long * 3], True) == grammar.LONGEST_SENTENCE
    assert grammar.sentence_bound([BAKE, long], follows_format=False) == grammar.SENTENCE_CHARS
    assert grammar.sentence_bound(["short"], True) == grammar.SENTENCE_CHARS
    assert "piece{1,250}" in grammar.answer_grammar(2, 1, sentence_chars=250)
    question = Question.read("What does the note say about words?", "en")
    draft = f"The note says {long.strip()} again [1]."
    cut = readability.problems(readability.Written(draft, True, 1), question, [long], [], None)
    kept = readability.Written(draft, True, 1, bound=grammar.LONGEST_SENTENCE)
    assert any("come to an end" in p for p in cut)
    assert not any(
        "come to an end" in p for p in readability.problems(kept, question, [long], [], None)
    )


def test_the_answer_is_shaped_by_the_evidence_given(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "ferry.md").write_text(
        "# Ferry\n\nThe night ferry from Kiel to Oslo leaves at 14:00 every day from the Norwegian "
        "quay, arrives in Oslo at 10:00 the next morning, and cabins with a window cost about "
        "twice as much as the inside ones.\n",
        "utf-8",
    )
    quire = Quire.open(tmp_path / "home")
    try:
        quire.index([notes])
        keeps, loose = QueuedModel("At 14:00 [1]."), QueuedModel("At 14:00 [1].")
        loose.profile = replace(loose.profile, follows_format=False)
        for model in (keeps, loose):
            events = _ask(quire, "When does the night ferry to Oslo leave?", model)
    finally:
        quire.close()
    found = next(e for e in events if isinstance(e, EvidenceShown)).evidence
    longest = max(len(e.text) for e in found)
    assert grammar.SENTENCE_CHARS < longest < grammar.LONGEST_SENTENCE
    assert f"piece{{1,{longest}}}" in str(keeps.grammars[0])
    assert f"piece{{1,{grammar.SENTENCE_CHARS}}}" in str(loose.grammars[0])


def test_a_loop_is_a_run_of_words_written_twice() -> None:
    assert grammar.repeats(["a", "b", "c", "d", "e", "a", "b", "c", "d"])
    assert not grammar.repeats(["a", "b", "c", "d", "e", "f", "g", "h"])
