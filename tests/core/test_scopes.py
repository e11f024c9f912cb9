"""Scopes: note days and tags, scope words and time phrases, and search inside a scope."""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from desktop_app import cli
from desktop_app.core.answer.gate import GateDecision
from desktop_app.core.api import Answers, Quire
from desktop_app.core.ingest import days_and_tags
from desktop_app.core.ingest.markdown import parse_front_matter
from desktop_app.core.retrieval import dates
from desktop_app.core.retrieval.scope import Scope, parse_query
from desktop_app.core.retrieval.time_phrases import Period

pytestmark = pytest.mark.usefixtures("fake_embedder")

TODAY = date(2026, 12, 2)  # a Wednesday
MTIME_NS = int(1_700_000_000 * 1e9)  # 14 Nov 2023


def day_of(front_matter: str, rel: str = "note.md") -> days_and_tags.NoteDate:
    metadata, _ = parse_front_matter(f"---\n{front_matter}\n---\nbody\n")
    return days_and_tags.note_date(metadata, rel, MTIME_NS)


@pytest.mark.parametrize(
    ("front_matter", "expected"),
    [
        ("date: 2026-11-30", date(2026, 11, 30)),
        ("date: 2026-11-30 18:45", date(2026, 11, 30)),
        ("date: 2026-11-30T18:45:00+01:00", date(2026, 11, 30)),
        ("created: 30.11.2026", date(2026, 11, 30)),
        ("created: 30. 11. 2026", date(2026, 11, 30)),
        ("date: 30 November 2026", date(2026, 11, 30)),
        ("date: November 30, 2026", date(2026, 11, 30)),
        ("date: 30. listopadu 2026", date(2026, 11, 30)),
        ("date: Montag, 30. November 2026", date(2026, 11, 30)),
        ("updated: 2026/11/30", date(2026, 11, 30)),
    ],
)
def test_front_matter_dates_in_their_usual_forms(front_matter: str, expected: date) -> None:
    found = day_of(front_matter)
    assert (found.day, found.source, found.warning) == (expected, "front matter", None)


def test_a_date_that_is_no_day_falls_back_with_a_warning_and_keeps_the_front_matter() -> None:
    metadata, _ = parse_front_matter("---\ndate: 2026-02-31\ntitle: Kept\n---\nbody\n")
    assert metadata["title"] == "Kept"  # YAML would have raised on the whole block
    found = days_and_tags.note_date(metadata, "journal/2026-11-30.md", MTIME_NS)
    assert (found.day, found.source) == (date(2026, 11, 30), "file name")
    assert found.warning and "2026-02-31" in found.warning and "file name" in found.warning
    bad = day_of("date: 31.02.2026")
    assert bad.source == "modified" and "31.02.2026" in (bad.warning or "")
    assert day_of("date: [1, 2]").source == "modified"  # not a date at all: no crash
    assert day_of("date: soon").warning and day_of("date:").warning is None


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        ("2026-11-30.md", date(2026, 11, 30)),
        ("daily/2026_11_30 standup.md", date(2026, 11, 30)),
        ("20261130.md", date(2026, 11, 30)),
        ("calls/30.11.2026 plumber.md", date(2026, 11, 30)),
        ("journal/2026/11/30.md", date(2026, 11, 30)),
        ("journal/2026/11/30/evening.md", date(2026, 11, 30)),
        ("notes/2026-13-45.md", None),  # no such day: a number, not a date
        ("budget 2026.md", None),
    ],
)
def test_dates_in_file_names_and_folders(rel: str, expected: date | None) -> None:
    assert dates.day_in_path(rel) == expected


def test_a_journal_in_one_file_dates_each_entry_under_its_heading(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "journal.md").write_text(
        "# Journal\n\n## 2026-10-01\n\nBought bread.\n\n## Tuesday, 24 November 2026\n\n"
        "Baked rye sourdough.\n\n## 30. 2. 2026\n\nNot a day: stays with the entry before.\n",
        "utf-8",
    )
    quire = Quire.open(tmp_path / "home", today=lambda: TODAY)
    try:
        quire.index([folder], embed=False)
        rows = quire.database.query("SELECT text, day FROM chunks ORDER BY seq")
        days = {text.strip().split("\n")[-1]: day for text, day in rows}
        assert days["Bought bread."] == "2026-10-01"
        assert days["Not a day: stays with the entry before."] == "2026-11-24"
        found = quire.search("rye sourdough", scope=Scope(period=_week()))
        assert [r.day for r in found] == ["2026-11-24"]
        assert quire.search("bread", scope=Scope(period=_week())) == []
    finally:
        quire.close()


def _week() -> Period:
    return Period(date(2026, 11, 23), date(2026, 11, 29), "last week")


def test_tags_from_front_matter_and_inline_but_not_from_code_or_headings() -> None:
    text = "# Heading\n\nWorked on the #Heating and #house/garden.\n\n```\n#include <x>\n```\n"
    assert days_and_tags.note_tags({"tags": ["Work", "#home"]}, text) == [
        "work", "home", "heating", "house/garden",
    ]  # fmt: skip
    assert days_and_tags.note_tags({"tags": "a, b c"}, "") == ["a", "b", "c"]
    assert days_and_tags.note_tags({}, "a `#notatag` and C# and issue#12") == []


@pytest.mark.parametrize(
    ("question", "rest", "first", "last"),
    [
        ("what did I decide about the heating last month?", "what did I decide about the heating ?",
         "2026-11-01", "2026-11-30"),
        ("was hab ich letzte Woche gekocht?", "was hab ich gekocht?", "2026-11-23", "2026-11-29"),
        ("co jsem psal minulý týden o rozpočtu?", "co jsem psal o rozpočtu?", "2026-11-23",
         "2026-11-29"),
        ("yesterday", "", "2026-12-01", "2026-12-01"),
        ("im März Urlaub", "Urlaub", "2026-03-01", "2026-03-31"),
        ("v březnu 2025 dovolená", "dovolená", "2025-03-01", "2025-03-31"),
        ("in December", "", "2026-12-01", "2026-12-31"),
        ("in 2025", "", "2025-01-01", "2025-12-31"),
        ("am 12. März", "", "2026-03-12", "2026-03-12"),
        ("před 3 dny", "", "2026-11-29", "2026-11-29"),
        ("in the last 7 days", "", "2026-11-26", "2026-12-02"),
        ("this week", "", "2026-11-30", "2026-12-06"),
        ("letos", "", "2026-01-01", "2026-12-31"),
        ("what did I do in the last two weeks?", "what did I do ?", "2026-11-19", "2026-12-02"),
        ("was war in den letzten zwei Wochen", "was war", "2026-11-19", "2026-12-02"),
        ("vor drei Tagen", "", "2026-11-29", "2026-11-29"),
        ("co bylo poslední dva týdny", "co bylo", "2026-11-19", "2026-12-02"),
        ("za poslední tři dny", "", "2026-11-30", "2026-12-02"),
        # word numbers, Czech ones in the case a preposition gives them
        ("what did I cook two weeks ago?", "what did I cook ?", "2026-11-16", "2026-11-22"),
        ("notes from the past three days", "notes", "2026-11-30", "2026-12-02"),
        ("vor zwei Wochen gekocht", "gekocht", "2026-11-16", "2026-11-22"),
        ("was war in den letzten drei Tagen?", "was war ?", "2026-11-30", "2026-12-02"),
        ("co jsem vařil před dvěma týdny?", "co jsem vařil ?", "2026-11-16", "2026-11-22"),
        ("před třemi dny", "", "2026-11-29", "2026-11-29"),
        ("co jsem dělal v posledních třech dnech?", "co jsem dělal ?", "2026-11-30", "2026-12-02"),
        ("posledních třech dnech", "", "2026-11-30", "2026-12-02"),
        ("za poslední dva týdny", "", "2026-11-19", "2026-12-02"),
        ("za posledních pět dní", "", "2026-11-28", "2026-12-02"),
        ("před čtyřmi měsíci", "", "2026-08-01", "2026-08-31"),
        ("v posledních dvou týdnech", "", "2026-11-19", "2026-12-02"),
        ("před dvěma lety", "", "2024-01-01", "2024-12-31"),
        ("před jedním týdnem", "", "2026-11-23", "2026-11-29"),
    ],
)  # fmt: skip
def test_time_phrases_in_three_languages(question: str, rest: str, first: str, last: str) -> None:
    parsed = parse_query(question, TODAY)
    assert parsed.text == rest
    assert parsed.scope.period is not None
    assert (str(parsed.scope.period.first), str(parsed.scope.period.last)) == (first, last)


@pytest.mark.parametrize(
    "question",
    ["v posledních třech kapitolách", "dva psi a tři kočky", "mit drei Freunden", "two cats"],
)
def test_word_numbers_without_a_unit_of_time_are_no_scope(question: str) -> None:
    parsed = parse_query(question, TODAY)
    assert parsed.scope.empty and parsed.text == question


@pytest.mark.parametrize(
    "question",
    ["How may I help?", "version 3.2026", "the 1990s", "May", "the last day of the trip"],
)
def test_words_that_only_look_like_time_are_left_alone(question: str) -> None:
    assert parse_query(question, TODAY).scope.empty


def test_scope_words_quoted_values_combination_and_removal() -> None:
    parsed = parse_query('folder:work tag:"Home Office" path:2026 after:2026-03 heating', TODAY)
    scope = parsed.scope
    assert parsed.text == "heating"
    assert (scope.folders, scope.tags, scope.paths) == (("work",), ("home office",), ("2026",))
    assert scope.period is not None and str(scope.period.first) == "2026-04-01"
    chips = scope.chips()
    assert [c.kind for c in chips] == ["folder", "tag", "path", "time"]
    narrower = scope.without(chips[1]).without(chips[3])
    assert narrower.tags == () and narrower.period is None and narrower.folders == ("work",)
    assert Scope.from_json(json.loads(json.dumps(scope.to_json()))) == scope
    assert parse_query("after:someday x", TODAY).problems == [
        "after:someday is not a date Quire can read"
    ]
    empty = parse_query('folder:"" tag:# heating', TODAY)
    assert empty.scope.empty and empty.text == "heating" and len(empty.problems) == 2


# -- end to end ------------------------------------------------------------------------------


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    (folder / "daily").mkdir(parents=True)
    (folder / "work").mkdir()
    entries = {
        "daily/2026-11-24.md": "Cooked a lentil soup with smoked paprika. #cooking",
        "daily/2026-11-03.md": "Cooked a pumpkin risotto for the neighbours. #cooking",
        "daily/2026-03-14.md": "Cooked goulash while it snowed. #cooking",
        "work/heating.md": "---\ntags: [house]\ndate: 2026-11-25\n---\nThe heating pump was "
        "replaced; we decided on a heat pump.",
        "work/budget.md": "The budget for the heating is 9000 euros.",
    }
    for rel, text in entries.items():
        (folder / rel).write_text(text + "\n", "utf-8")
    os.utime(folder / "work/budget.md", (1_700_000_000, 1_700_000_000))  # Nov 2023
    return folder


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def search_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[list[str], str]:
    code, out, err = run(capsys, "search", *args, "--json")
    assert code == 0, err
    return [r["path"] for r in json.loads(out)["results"]], err


def test_cli_each_scope_kind_alone_and_combined(
    journal: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_TODAY", "2026-12-02")
    assert run(capsys, "index", "--no-embed", str(journal))[0] == 0
    everywhere, _ = search_json(capsys, "what did I cook")
    assert len(everywhere) == 3
    last_week, err = search_json(capsys, "what did I cook last week")
    assert last_week == ["daily/2026-11-24.md"] and "last week" in err
    _, out, _ = run(capsys, "search", "lentil soup", "--json")
    first = json.loads(out)["results"][0]
    assert (first["title"], first["day"]) == ("24 Nov 2026", "2026-11-24")  # not "2026 11 24"
    assert search_json(capsys, "what did I cook in March")[0] == ["daily/2026-03-14.md"]
    assert search_json(capsys, "heating", "--folder", "work", "--since", "2026-11")[0] == [
        "work/heating.md"
    ]
    assert search_json(capsys, "tag:house heating")[0] == ["work/heating.md"]
    assert search_json(capsys, "path:budget heating")[0] == ["work/budget.md"]
    until, _ = search_json(capsys, "cooked", "--tag", "cooking", "--until", "2026-11-10")
    assert sorted(until) == ["daily/2026-03-14.md", "daily/2026-11-03.md"]
    combined, err = search_json(capsys, "folder:daily tag:cooking in November soup")
    assert combined == ["daily/2026-11-24.md"]
    assert "folder: daily" in err and "#cooking" in err and "in November" in err


def test_a_scope_that_matches_nothing_says_so(
    journal: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_TODAY", "2026-12-02")
    run(capsys, "index", "--no-embed", str(journal))
    paths, err = search_json(capsys, "heating", "--tag", "garden")
    assert paths == [] and "no note in this scope matches" in err
    with pytest.raises(SystemExit, match="'next blue moon' is not a date"):  # as argparse does
        run(capsys, "search", "heating", "--since", "next blue moon")
    lines = [json.dumps({"id": "q1", "question": "soup folder:work"})]
    queries = journal.parent / "q.jsonl"
    queries.write_text("\n".join(lines) + "\n", "utf-8")
    code, out, _ = run(capsys, "search", "--queries", str(queries), "--json")
    assert code == 0
    line = json.loads(out)
    assert line["results"] == [] and line["scope"]["folders"] == ["work"]


def test_batch_search_judges_a_scoped_question_as_ask_does(
    journal: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gate of `search --queries` reads the question without its scope words, as `ask`
    does: "folder:work" and "last week" say where to look, not words a passage must hold."""
    monkeypatch.setenv("QUIRE_TODAY", "2026-12-02")
    run(capsys, "index", "--no-embed", str(journal))
    judged: list[str] = []
    gate = Answers.gate

    def spy(self: Answers, question: str, *args: Any, **kwargs: Any) -> GateDecision:
        judged.append(question)
        return gate(self, question, *args, **kwargs)

    monkeypatch.setattr(Answers, "gate", spy)
    asked = ["What is the budget for the heating folder:work", "What did I cook last week"]
    queries = journal.parent / "q.jsonl"
    queries.write_text(
        "".join(json.dumps({"id": n, "question": q}) + "\n" for n, q in enumerate(asked))
    )
    code, out, _ = run(capsys, "search", "--queries", str(queries), "--json")
    assert code == 0 and [json.loads(line)["outcome"] for line in out.splitlines()]
    assert judged == ["What is the budget for the heating", "What did I cook"]


def test_a_year_no_note_is_dated_in_stays_part_of_the_question(
    journal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "index", "--no-embed", str(journal))
    paths, err = search_json(capsys, "budget 1999 heating")
    assert paths and "within" not in err  # "1999" is a topic here, not a scope


def test_only_a_day_the_note_gives_is_said_to_the_model_and_saved(
    journal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop_app.core.answer.prompt import build_sources, fence
    from desktop_app.core.passage import Passage

    run(capsys, "index", "--no-embed", str(journal))
    quire = Quire.open()
    try:
        found = [*quire.search("budget", top_k=5), *quire.search("heating pump", top_k=5)]
        results = {r.path: r for r in found}
    finally:
        quire.close()
    assert results["work/budget.md"].written is None  # dated only by its file's time
    assert results["work/budget.md"].day == "2023-11-14"  # …which scopes still filter on
    assert results["work/heating.md"].written == "2026-11-25"
    assert results["work/heating.md"].tags == ["house"]
    sources = {s.path: s for s in build_sources(list(results.values()))}
    assert 'written="2026-11-25"' in fence(sources["work/heating.md"])
    assert "written=" not in fence(sources["work/budget.md"])
    saved = Passage.from_json(json.loads(json.dumps(sources["work/heating.md"].to_json())))
    assert saved is not None and (saved.day, saved.tags) == ("2026-11-25", ["house"])


def test_a_query_of_scope_words_only_lists_what_is_within_newest_first(
    journal: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_TODAY", "2026-12-02")
    run(capsys, "index", "--no-embed", str(journal))
    paths, err = search_json(capsys, "tag:cooking")
    assert paths == ["daily/2026-11-24.md", "daily/2026-11-03.md", "daily/2026-03-14.md"]
    assert "no note" not in err
    assert search_json(capsys, "last month")[0] == [
        "work/heating.md", "daily/2026-11-24.md", "daily/2026-11-03.md",
    ]  # fmt: skip


def test_the_picker_offers_the_folders_and_tags_of_the_index(
    journal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "index", "--no-embed", str(journal))
    quire = Quire.open()
    try:
        assert quire.scope_choices() == (["daily", "notes", "work"], [("cooking", 3), ("house", 1)])
    finally:
        quire.close()


def test_a_guessed_time_that_hides_every_answer_is_dropped_and_said(
    journal: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "in October" in a question is Quire's guess at a scope: when it leaves nothing (alone or
    with the user's own tag:), the question is searched on all dates, and the notice says so."""
    monkeypatch.setenv("QUIRE_TODAY", "2026-12-02")
    (journal / "garden").mkdir()
    garlic = journal / "garden" / "garlic.md"
    garlic.write_text("---\ntags: [garden]\n---\nPlanted garlic in October by the fence.\n")
    os.utime(garlic, (1_795_000_000, 1_795_000_000))  # Nov 2026: written after October
    (journal / "daily" / "2026-10-02.md").write_text("Raked the leaves. #chores\n", "utf-8")
    run(capsys, "index", "--no-embed", str(journal))
    for question in ("tag:garden what did I plant in October?", "what was planted in October?"):
        paths, err = search_json(capsys, question)
        assert paths[:1] == ["garden/garlic.md"], question
        assert "nothing written in October; searched all dates" in err
    paths, err = search_json(capsys, "tag:garden what did I plant in October?")
    assert "#garden" in err and "in October" not in err.replace("written in October", "")
    # the user's own limits are kept as before
    paths, err = search_json(capsys, "garlic", "--tag", "garden", "--until", "2026-10-31")
    assert paths == [] and "no note in this scope matches" in err
    quire = Quire.open()
    try:
        scoped = quire.answer_scope("tag:garden what did I plant in October?")
        assert scoped.scope.tags == ("garden",) and scoped.scope.period is None
        assert scoped.text == "what did I plant in October?"
        kept = quire.answer_scope("what did I rake in October?")
        assert kept.scope.period is not None and kept.notice == ""
    finally:
        quire.close()


def test_the_windows_chip_of_the_questions_own_phrase_is_still_a_guess(
    journal: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chat puts the question's time phrase in its scope bar and asks with that scope: the
    phrase is still Quire's guess, dropped when it leaves nothing."""
    monkeypatch.setenv("QUIRE_TODAY", "2026-12-02")
    run(capsys, "index", "--no-embed", str(journal))
    quire = Quire.open()
    try:
        question = "what did I cook in November with pumpkin"
        bar = quire.scoped(question).scope
        assert bar.period is not None
        assert quire.answer_scope(question, bar).notice == ""
        question = "where is the budget in November"  # budget.md is dated Nov 2023
        scoped = quire.answer_scope(question, quire.scoped(question).scope)
        assert scoped.notice.startswith("nothing written in November") and not scoped.scope.period
    finally:
        quire.close()
