"""The languages registry, the one content-word rule, the question read once, and the gate's one
decision shared by `ask` and `quire search --queries`."""

from __future__ import annotations

import tomllib
from datetime import date
from pathlib import Path

import pytest

from desktop_app.core.answer import cues
from desktop_app.core.answer.ask import answer_events
from desktop_app.core.answer.decision import gate_decision
from desktop_app.core.answer.question import Question
from desktop_app.core.api import Quire
from desktop_app.core.as_json import as_json
from desktop_app.core.cancel import CancelToken
from desktop_app.core.retrieval import dates, languages, time_phrases
from desktop_app.core.retrieval.languages import language
from tests.support.fakes import QueuedModel

pytestmark = pytest.mark.usefixtures("fake_embedder")


def test_every_registered_language_names_each_kind_of_answer() -> None:
    folder = Path(language.__file__).parent
    assert {lang.code for lang in languages.REGISTERED} == {p.stem for p in folder.glob("*.toml")}
    assert {"en", "de", "cs"} <= {lang.code for lang in languages.REGISTERED}
    for lang in languages.REGISTERED:
        assert set(lang.answer_kinds) == set(cues.KINDS), lang.code
        assert languages.registered(lang.code) is lang
    assert languages.registered("fr") is None


def test_a_languages_words_are_data_and_a_bad_file_says_what_is_wrong() -> None:
    english = languages.registered("en")
    assert english is not None
    assert "the" in english.function_words and english.number_words["dozen"] == 12.0
    assert english.time_units[0] == "hour" and english.answer_kinds["place"] == ("where",)
    good = 'code = "xx"\nname = "Test"\n'
    with pytest.raises(ValueError, match=r"xx\.toml: unknown key\(s\) stopwords"):
        language.parse(good + 'stopwords = "a b"\n', "xx.toml")
    with pytest.raises(ValueError, match=r"xx\.toml: .*expected words or an array of strings"):
        language.parse(good + "function_words = [1, 2]\n", "xx.toml")
    with pytest.raises(ValueError, match=r"xx\.toml: .*question_words"):  # a required list missing
        language.parse(good + 'function_words = "a b"\n', "xx.toml")
    with pytest.raises(ValueError, match=r"xx\.toml: "):
        language.parse('code = "xx\n', "xx.toml")  # not TOML
    words = (Path(language.__file__).with_name("en.toml")).read_text("utf-8")
    for key, wrong, says in (
        ("name", ["English"], "expected a string"),
        ("procedure", "how (?:do|can) i", "procedure: write its regular expressions as an array"),
        ("procedure", ["how (to"], "missing \\)"),  # a regular expression that does not compile
        ("number_words", {"one": True}, "expected a number"),
        ("number_words", "one two", "expected a table"),
        ("answer_kinds", {"place": "where is"}, "answer_kinds: write its phrases as an array"),
        ("month_forms", ["january jan", "february"], "twelve months, January first, not 2"),
        ("period_words", {"fortnight": "fortnight"}, "period_words: no unit fortnight"),
        ("last_period", "last past", "last_period: write its regular expressions as an array"),
        ("days_back", {"today": "0"}, "expected a number"),
    ):
        data = tomllib.loads(words) | {key: wrong}
        with pytest.raises(ValueError, match=rf"en\.toml: .*{says}"):
            language.from_data(data, "en.toml")


def test_dates_and_time_phrases_read_the_language_files() -> None:
    """Month forms, weekdays and the words of time phrases come from each language's file (no
    second list in `dates` or `time_phrases`)."""
    german, english = languages.registered("de"), languages.registered("en")
    assert german is not None and english is not None
    assert german.month_forms[2].split() == ["marz", "maerz"] and german.days_back["gestern"] == 1
    assert dates.MONTHS["maerz"] == 3 and {"may", "mai", "zari"} <= dates.MONTH_NAMES
    assert dates.parse_day("Mon, 30 Nov 2026") == date(2026, 11, 30)  # English's abbreviation
    found = time_phrases.find_time_phrase("Was war vor 3 Wochen?", date(2026, 12, 2))
    assert found is not None and (found[0].first, found[0].last) == (
        date(2026, 11, 9),
        date(2026, 11, 15),
    )


def test_one_content_word_rule_for_every_language() -> None:
    assert languages.content_words(["the", "bread", "die", "Brot", "jak", "chleba"]) == [
        "bread",
        "Brot",
        "chleba",
    ]
    # short words count only where asked for (support, highlighting), numbers always
    assert languages.content_words(["lid", "oven", "2"], shortest=4) == ["oven", "2"]
    assert languages.key_words(["how", "long", "bake"]) == ["bake"]
    assert languages.key_words(["how", "long"]) == ["long"]  # nothing else left: the asking word


def test_a_questions_key_words_leave_out_only_its_own_languages_function_words() -> None:
    english = Question.read("What year did Tesla die in the war?", "en")
    assert [k.word for k in english.keys.words] == ["year", "tesla", "die", "war"]
    german = Question.read("Wann starb die Königin im Krieg?", "de")
    assert [k.word for k in german.keys.words] == ["starb", "konigin", "krieg"]
    # A shorter one says nothing: the "s" of "Melbourne's" is a Czech preposition.
    possessive = Question.read("What party rules in Melbourne's inner regions?", "en")
    assert [k.word for k in possessive.keys.words] == ["party", "rules", "melbourne", "inner",
                                                       "regions"]  # fmt: skip
    # Read as English for the notes' sake, the question's own words are German: "man" is none.
    borrowed = Question.read("Wann backt man Brot?", "en")
    assert [k.word for k in borrowed.keys.words] == ["backt", "brot"]
    # No language to go by: every registered language's function words are left out.
    assert languages.key_words(["year", "tesla", "die"]) == ["year", "tesla"]


def test_a_question_is_read_once_with_all_it_says() -> None:
    question = Question.read("How long did the seven sieges of Vienna last in 1683?", "en")
    assert question.kind == "duration"
    assert 7 in question.numbers and "1683" in question.years
    assert [k.word for k in question.keys.words] == ["seven", "sieges", "vienna", "last", "1683"]
    assert not question.follow_up
    assert Question.read("and then?", "en", has_history=True).follow_up
    assert not Question.read("and then?", "en").follow_up


@pytest.mark.parametrize(
    "question",
    [
        "How long do I bake sourdough bread with the lid on?",
        "What is the orbital period of Neptune?",
        "Where should I get a Döner in Berlin?",
    ],
)
def test_search_queries_reports_the_decision_ask_makes(
    sample_keywords: Quire, question: str
) -> None:
    retrieval = sample_keywords.answers.retrieval()
    results = retrieval.search(question, 8)
    model = QueuedModel("The notes say so [1].")
    events = list(answer_events(retrieval, question, [], model, CancelToken()))
    done = as_json(events[-1])
    assert gate_decision(retrieval, question, results).answerable == done["answerable"]
    assert sample_keywords.answers.gate(question, results).answerable == done["answerable"]
