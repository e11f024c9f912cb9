"""A `[n]` is proof: what must be verbatim is checked verbatim, code is evidence, and follow-ups
cannot forge the notes' voice. Real SQLite index of technical notes (keyword index), queued
fake models for the event flow; the window's Markdown for what a reader sees."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from desktop_app.core.answer import (
    attribution,
    citations,
    cues,
    evidence,
    grounded,
    units,
    verbatim,
)
from desktop_app.core.answer.ask import answer_events, citations_of
from desktop_app.core.answer.cues import tells_the_fix as cues_fix
from desktop_app.core.answer.decision import decide
from desktop_app.core.api import Quire
from desktop_app.core.cancel import CancelToken
from desktop_app.core.conversations import Turn
from desktop_app.core.events import Done, Evidence, EvidenceShown, SourcesFound
from desktop_app.core.retrieval.scope import Scope
from desktop_app.core.retrieval.search import SearchResult
from desktop_app.paths import sample_notes
from tests.support.fakes import QueuedModel

pytestmark = pytest.mark.usefixtures("fake_embedder")

TIL = Path(__file__).resolve().parents[1] / "data" / "eval-mini" / "til-en" / "notes"
FIRST_COMMIT = "How do I find the very first commit of a repository?"
NOTE = (TIL / "git" / "find-the-initial-commit.md").read_text("utf-8")


@pytest.fixture(scope="module")
def tech(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Quire, Path]]:
    folder = tmp_path_factory.mktemp("til") / "notes"
    shutil.copytree(TIL, folder)
    quire = Quire.open(tmp_path_factory.mktemp("home"))
    quire.index([folder], embed=False)
    yield quire, folder
    quire.close()


def _kinds(answer: str) -> list[tuple[str, str]]:
    return [(s.kind, s.value) for s in verbatim.spans(answer)]


# -- what must be verbatim ---------------------------------------------------------------------
def test_each_kind_of_verbatim_span_is_found_and_prose_is_not() -> None:
    answer = (
        "Run `git ls-clone` or git ls-clone --head=1, edit ~/.bashrc or config.yml, call "
        "os.path.join() or my_var, see https://example.com/x, and he said “rest it”.\n"
        "$ git rev-list HEAD\n```\nmake build\nmake test\n```"
    )
    assert _kinds(answer) == [
        ("code", "git ls-clone"), ("flag", "ls-clone --head=1"), ("path", "~/.bashrc"),
        ("path", "config.yml"), ("identifier", "os.path.join()"), ("identifier", "my_var"),
        ("url", "https://example.com/x"), ("quote", "rest it"),
        ("command", "$ git rev-list HEAD"), ("code", "make build"), ("code", "make test"),
    ]  # fmt: skip
    prose = "Bake it for 40 minutes, e.g. at 250 °C, and/or let it rest 1/2 an hour. Node.js!"
    assert verbatim.spans(prose) == []


def test_a_span_is_found_only_as_written_whitespace_aside() -> None:
    sources = ["Use the `-p` flag.\n\n```bash\n$ git rev-list   --max-parents=0 HEAD\n```"]
    found = "Run `git rev-list --max-parents=0 HEAD` with the -p flag."
    assert verbatim.unfound(found, sources) == []
    invented = "Run `git rev-list --max-parents=1 HEAD` or pass --pretend, or -m."
    assert [s.value for s in verbatim.unfound(invented, sources)] == [
        "git rev-list --max-parents=1 HEAD", "--pretend", "-m"]  # fmt: skip
    assert [s.value for s in verbatim.unfound("Use -e.", ["Use --pretend."])] == ["-e"]


def test_a_quotation_is_checked_whatever_its_case_marks_and_ellipsis() -> None:
    source = "The dough should rest for *one hour*. Then add the starter."
    assert verbatim.unfound("Your notes say: “the dough should rest for one hour.”", [source]) == []
    assert verbatim.unfound("They say „The dough should rest … add the starter“.", [source]) == []
    forged = verbatim.unfound("Your notes say: “The dough should rest for 1 hour.” [1]", [source])
    assert [(s.kind, s.text) for s in forged] == [
        ("quote", "Your notes say: “The dough should rest for 1 hour.”")]  # fmt: skip
    bare = verbatim.unfound("Your notes say: rest it two hours [1].", [source])
    assert [s.kind for s in bare] == ["quote"]


def test_an_invented_command_gets_no_citation_whatever_words_it_shares() -> None:
    answer = "To find the first commit of a repository, run `git ls-clone --head=1`."
    checked = attribution.attribute(answer, {1: NOTE}, "en")
    assert checked.added == [] and "[1]" not in checked.answer
    assert [(f.kind, f.text) for f in checked.unsupported] == [
        ("code", "`git ls-clone --head=1`")]  # fmt: skip  # the "1" inside is not marked twice
    assert "`git ls-clone --head=1` (not found in the notes)" in checked.marked()
    real = attribution.attribute("Run `git rev-list --max-parents=0 HEAD` for the first "
                                 "commit with no parents.", {1: NOTE}, "en")  # fmt: skip
    assert real.unsupported == [] and real.added and real.added[0].number == 1


def test_the_models_own_citation_on_a_forged_sentence_is_unverified() -> None:
    answer = "The initial commit of a repository has no parents: run `git ls-clone -r` [1]."
    report = citations.check(answer, {1: NOTE}, "en")
    (sentence,) = report.sentences
    assert sentence.unverified and not sentence.weak and sentence.cites == [1]
    assert answer[sentence.start : sentence.end] == sentence.text
    assert not report.backed_sentences  # so the answer is not passed off as backed


# -- code is evidence --------------------------------------------------------------------------
def test_code_blocks_are_units_with_the_sentences_that_introduce_and_explain_them() -> None:
    found = list(units.split_units(NOTE, offset=7))
    code = [u for u in found if u.kind == units.CODE]
    assert len(code) == 1
    assert code[0].text.startswith("You can\nexploit that fact and use `rev-list`")
    assert "HEAD\n```\n\nThe `rev-list` command lists" in code[0].text
    assert code[0].text.endswith("in reverse chronological order.")  # one sentence after it
    assert NOTE[code[0].start - 7 : code[0].end - 7] == code[0].text  # the exact span
    assert not any(u.kind == units.SENTENCE and u.text.startswith("You can") for u in found)
    assert not any(u.kind == units.SENTENCE and u.text.startswith("The `rev-list`") for u in found)
    assert not any("[source]" in u.text for u in found)  # a bare link is never a unit


def test_indented_code_command_lines_and_long_blocks_are_units() -> None:
    text = ("Intro.\n\n    make build\n    make test\n\n- an item\n    a continuation\n\n"
            "Then type:\n$ ls -la\nDone.\n\n```\n" + "\n".join(f"line {i}" for i in range(9))
            + "\n\n" + "\n".join(f"more {i}" for i in range(9)) + "\n```\n")  # fmt: skip
    found = [(u.kind, u.text) for u in units.split_units(text)]
    assert ("code", "Intro.\n\n    make build\n    make test") in found
    assert ("item", "an item") in found and ("code", "Then type:\n$ ls -la") in found
    assert any(k == "code" and t.startswith("Done.\n\n```\nline 0") for k, t in found)
    # the sentence after a block says what it does, unless it introduces the next block;
    # after a heading, a list or another block nothing explains it: it ends there
    after = "```\nls\n```\n\nLists the files. Then more.\n\n```\npwd\n```\n# Next\n\nText.\n"
    assert [(u.kind, u.text) for u in units.split_units(after)] == [
        ("code", "ls\n```\n\nLists the files."),
        ("code", "Then more.\n\n```\npwd"),
        ("sentence", "Text."),
    ]
    pieces = [t for k, t in found if k == "code" and ("line 0" in t or "more 0" in t)]
    assert len(pieces) == 2  # a long block is cut at its blank line
    for unit in units.split_units(text):
        assert text[unit.start : unit.end] == unit.text


def test_a_block_cut_short_keeps_its_cut_and_no_sentence_is_lost() -> None:
    long = "Run:\n\n```\n" + "\n".join(f"line {i}" for i in range(40)) + "\n```\n\nIt prints.\n"
    found = [(u.kind, u.text) for u in units.split_units(long)]
    code = [t for k, t in found if k == "code"]
    assert len(code) == 1 and code[0].count("\n") < units.MAX_CODE_LINES + 3  # still cut
    assert ("sentence", "It prints.") in found  # not glued to a block it does not follow
    empty = "```\nmake\n```\n\nThis builds the tree.\n\n```\n```\n"
    assert [u.text for u in units.split_units(empty)] == ["make\n```\n\nThis builds the tree."]
    money = [(u.kind, u.text) for u in units.split_units("We paid\n$ 20 for the taxi.\n")]
    assert money == [("sentence", "We paid\n$ 20 for the taxi.")]  # money, not a command
    for text in (long, empty):
        for unit in units.split_units(text):
            assert text[unit.start : unit.end] == unit.text
            assert all(unit.start <= b <= e <= unit.end for b, e in unit.code)


def test_link_only_units_are_never_units_and_url_words_never_match() -> None:
    assert units.is_link_only("[source](http://stackoverflow.com/questions/1/first-commit)")
    assert units.is_link_only("![diagram](img.png)") and units.is_link_only("<https://a.b/c>")
    assert not units.is_link_only("See [the docs](https://x.y/first-commit) for more.")
    assert "first" not in units.words_of("See [the docs](https://x.y/first-commit-log).")
    assert "docs" in units.words_of("See [the docs](https://x.y/first-commit-log).")


def test_the_answer_in_code_is_shown_first_and_no_link_line_is(tech: tuple[Quire, Path]) -> None:
    quire, folder = tech
    model = QueuedModel("Use git.")
    events = list(answer_events(quire.answers.retrieval(), FIRST_COMMIT, [], model, CancelToken()))
    shown = next(e for e in events if isinstance(e, EvidenceShown)).evidence
    assert shown[0].kind == units.CODE and "$ git rev-list --max-parents=0 HEAD" in shown[0].text
    assert not any(units.is_link_only(e.text) for e in shown)
    for e in shown:
        assert (folder / e.path).read_text("utf-8")[e.start : e.end] == e.text


# -- the whole flow: forged commands and quotations are never vouched for ------------------------
def test_an_answer_of_invented_commands_gives_way_to_the_notes(tech: tuple[Quire, Path]) -> None:
    quire, folder = tech
    invented = ("To find the very first commit of a repository, run `git ls-clone` [1]. "
                "You can also use `sudo git ls-clone -r` [2].")  # fmt: skip
    events = list(answer_events(quire.answers.retrieval(), FIRST_COMMIT, [], QueuedModel(invented),
                                CancelToken()))  # fmt: skip
    done = events[-1]
    assert isinstance(done, Done) and done.draft is not None and done.quote is not None
    assert "ls-clone" not in done.answer and done.answer.startswith(verbatim.NOTES_SAY)
    note = (folder / done.quote.path).read_text("utf-8")
    assert note[done.quote.start : done.quote.end] == done.quote.text
    assert f"“{done.quote.text}”" in done.answer  # Quire's quotation is the note's own text
    marked = {f.text for f in done.draft.unsupported}
    assert {"`git ls-clone`", "`sudo git ls-clone -r`"} <= marked


def test_a_follow_up_cannot_forge_the_notes_voice(tmp_path: Path) -> None:
    """The window case: after one answer, the model imitates Quire's label with a quotation
    that is in no note and cites [1] and [3]–[6] of a one-source answer."""
    from desktop_app.core.turn_view import DRAFT_LABEL, turn_markdown

    folder = tmp_path / "notes"
    shutil.copytree(sample_notes(), folder)
    quire = Quire.open(tmp_path / "home")
    quire.index([folder], embed=False)
    forged = ("Your notes say: “The dough should rest for 1 hour before adding the starter "
              "to the oven.” [1]\n- Knead it well [3]\n- Bake it [6]")  # fmt: skip
    model = QueuedModel("Fold every 30 minutes.", forged)
    first = list(answer_events(quire.answers.retrieval(), "How is the sourdough dough folded?", [],
                               model, CancelToken()))[-1]  # fmt: skip
    assert isinstance(first, Done)
    history = [Turn("How is the sourdough dough folded?", verbatim.NOTES_SAY + " “x” [1]")]
    events = list(answer_events(quire.answers.retrieval(), "how long should the dough rest before "
                                "adding the starter", history, model, CancelToken()))  # fmt: skip
    quire.close()
    assert verbatim.NOTES_SAY not in model.prompts[1]  # the earlier turn reached it unlabelled
    done = events[-1]
    assert isinstance(done, Done)
    assert done.draft is not None  # nothing of it was backed: not shown as the answer
    assert "1 hour before adding the starter to the oven" not in done.answer
    quotes = [f for f in done.draft.unsupported if f.kind == "quote"]
    assert quotes and quotes[0].text.startswith(verbatim.NOTES_SAY)
    assert "[3]" not in done.draft.answer and "[6]" not in done.draft.answer
    assert set(done.citations.invalid) >= {3, 6}
    assert done.quote is not None
    note = (folder / done.quote.path).read_text("utf-8")
    assert note[done.quote.start : done.quote.end] == done.quote.text
    turn = Turn(done.answer, done.answer, citations=done.citations, draft=done.draft,
                quote=done.quote, evidence=next(e for e in events if isinstance(e, EvidenceShown))
                .evidence)  # fmt: skip
    turn.sources = next(e for e in events if isinstance(e, SourcesFound)).sources
    assert "1 hour before" not in turn_markdown(turn, 0)  # folded away until asked for
    turn.draft_open = True
    draft_part = turn_markdown(turn, 0).split(DRAFT_LABEL)[1]
    assert "quire:" not in draft_part  # the pseudo-quote links nothing
    assert "not found in the notes" in draft_part


def test_earlier_turns_reach_the_model_in_its_own_words_only() -> None:
    turns = [
        Turn("q1", "Your notes say: “Bake at 250 °C.\n\n```\n$ oven on\n```” [2]"),
        Turn("q2", "Fold it every 30 minutes [1]. Your notes say: “x” [3]"),
        Turn("q3", "Rest it [1, 2]."),
    ]
    assert grounded.past_turns(turns) == [("q2", "Fold it every 30 minutes."),
                                          ("q3", "Rest it.")]  # fmt: skip


def test_unverified_citations_are_plain_text_in_the_window() -> None:
    from desktop_app.core.turn_view import answer_markdown

    answer = "It has no parents [1]. Run `git ls-clone -r` [1]."
    sentences = citations_of(citations.check(answer, {1: NOTE}, "en")).sentences
    unfound = attribution.unsupported(answer, [NOTE])
    markdown = answer_markdown(answer, unfound, sentences, lambda n: n == 1, turn=2)
    assert markdown.count("(quire:source/2/1)") == 1  # the backed sentence links its source
    assert "\\[1\\] *(unverified)*" in markdown
    assert "**`git ls-clone -r`** *(⚠ not found in the notes)*" in markdown


def _first_evidence(tmp_path: Path, note: str, question: str) -> units.Unit:
    """The first evidence unit shown for `question` over one note (keyword index)."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "note.md").write_text(note, "utf-8")
    quire = Quire.open(tmp_path / "home")
    quire.index([folder], embed=False)
    events = list(
        answer_events(quire.answers.retrieval(), question, [], QueuedModel("x"), CancelToken())
    )
    quire.close()
    first = next(e for e in events if isinstance(e, EvidenceShown)).evidence[0]
    assert note[first.start : first.end] == first.text
    return units.Unit(first.start, first.end, first.text, first.kind, code=first.code)


def test_a_how_to_question_gets_the_fix_not_the_problem_restated(tmp_path: Path) -> None:
    note = (
        "# Sort In Numerical Order\n\nWhen I list files named 1.txt to 12.txt in the shell and "
        "sort them, 10.txt comes before 2.txt in the order.\n\n```bash\n$ ls | sort\n1.txt\n10.txt"
        "\n2.txt\n```\n\nHowever, with the `-n` flag I get numerical order.\n\n"
        "```bash\n$ ls | sort -n\n```\n"
    )
    question = "How do I sort files named 1.txt to 12.txt so 10.txt comes after 2.txt?"
    first = _first_evidence(tmp_path, note, question)
    assert "sort -n" in first.text and first.kind == units.CODE


def test_the_code_and_the_sentence_that_explains_it_are_shown_as_one(tmp_path: Path) -> None:
    note = (
        "# Read-Only Input Elements\n\nReact warns about an input that has a value but no "
        "onChange handler.\n\n```jsx\n<input value={name} readOnly />\n```\n\nThe `readOnly` "
        "prop tells React the input is not meant to be edited, so the warning goes away.\n"
    )
    question = "How do I stop the React warning about an input with a value but no onChange?"
    first = _first_evidence(tmp_path, note, question)
    assert first.kind == units.CODE and "<input value={name} readOnly />" in first.text
    assert first.text.endswith("so the warning goes away.")


def test_a_what_question_on_a_note_with_code_is_answered_by_the_code(tmp_path: Path) -> None:
    note = (
        "# Generate A UUID In The Browser\n\nThe Web Crypto API provides a built-in browser "
        "function for generating random unique IDs.\n\nIt works like this:\n\n```javascript\n"
        "> crypto.randomUUID()\n'f2050c5e-af52-4ca2-b4d6-23758b3396c9'\n```\n"
    )
    question = "What built-in browser function gives me a random unique ID?"
    assert cues.question_kind(question) == cues.AnswerKind.OTHER
    first = _first_evidence(tmp_path, note, question)
    assert first.kind == units.CODE and "crypto.randomUUID()" in first.text
    assert cues_fix("However, use `-n`.") and cues_fix("Stattdessen nimm -n.")
    assert not cues_fix("Sorting puts 10 before 2.")


def test_a_citation_never_lands_inside_code_or_a_dotted_name() -> None:
    source = "I can do that with the `.mise.local.toml` file, on top of any mise configuration."
    answer = "Put your settings in `.mise.local.toml` on top of the mise configuration."
    checked = attribution.attribute(answer, {1: source}, "en")
    assert "`.mise.local.toml`" in checked.answer and checked.answer.endswith("configuration [1].")
    marked = verbatim.unfound("Run `echo '[1, 2]' | jq` now.", ["nothing"])
    assert [s.text for s in marked] == ["`echo '[1, 2]' | jq`"]  # as written, citation-like or not


def test_a_what_question_on_a_diary_with_an_indented_line_is_not_read_as_a_how_to(
    tmp_path: Path,
) -> None:
    note = (
        "# Lisbon\n\nOur hotel in Lisbon was the Pestana Palace, quiet and friendly.\n\n"
        "The museum closed early on Monday.\n\n    Rua do Jau 54, Lisbon\n\n"
        "Next year we go to Porto again.\n"
    )
    first = _first_evidence(tmp_path, note, "What was the hotel in Lisbon like?")
    assert first.text.startswith("Our hotel in Lisbon was the Pestana Palace")


HEX_NOTE = (
    "# Determine The Latest Release Of A Hex Package\n\n"
    + " ".join(
        f"Finding the latest release of a package used to mean a browser search ({n})."
        for n in range(14)
    )
    + "\nThe `mix` CLI can look it up and we never leave the terminal to use it.\n\n"
    "For instance, for the `postgrex` package I can run the following command.\n\n"
    "```bash\n$ mix hex.info postgrex\n"
    + "\n".join(f"Releases: 0.{n}.0, 0.{n}.1" for n in range(12))
    + "\n```\n\nThe config line is what goes into `mix.exs`.\n"
)


def test_a_how_to_reads_on_into_the_passage_after_the_one_that_names_the_problem(
    tmp_path: Path,
) -> None:
    """The note's first passage holds the question's words, the next one the command: a "how
    do I" reads on, and its quoted evidence and the prompt's source [1] hold the command."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "hex.md").write_text(HEX_NOTE, "utf-8")
    quire = Quire.open(tmp_path / "home")
    quire.index([folder], embed=False)
    question = "How do I find the latest release of a package without leaving the terminal?"
    retrieval = quire.answers.retrieval()
    asked = retrieval.read(question)
    results = quire.search(question, top_k=8)
    assert "mix hex.info" not in results[0].text  # the best passage names the problem only
    decided = decide(retrieval, asked, results)
    alone = decide(replace(retrieval, following=lambda _p: None), asked, results[:1])
    assert any("$ mix hex.info postgrex" in e.text for e in decided.evidence)
    assert "$ mix hex.info postgrex" in decided.sources[0].text
    for e in decided.evidence:
        assert HEX_NOTE[e.start : e.end] == e.text
    assert not any("mix hex.info" in e.text for e in alone.evidence)
    when = retrieval.read("When was the latest release of the package?")  # no "how do I"
    assert evidence.read_on(when, results[:1], retrieval.following) == results[:1]
    after = retrieval.following(results[0])
    assert after is not None and "mix hex.info" in after.text
    low = replace(after, score=results[0].score / 10)  # found by the search, far below the best
    moved = evidence.read_on(asked, [results[0], low], lambda _p: None)
    assert [(r.chunk_id, r.score) for r in moved][1] == (after.chunk_id, results[0].score)
    scoped = quire.answers.retrieval(
        Scope(folders=("notes",))
    )  # a scope never reads past its search
    assert scoped.following(results[0]) is None
    quire.close()


STEPS_NOTE = (
    "# Publish A New Branch\n\nA new branch lives only on my machine until I publish it.\n\n"
    "First I create the branch and switch to it:\n\n```bash\n$ git switch -c fix-typo\n```\n\n"
    "Then I push the branch and set its upstream:\n\n```bash\n$ git push -u origin fix-typo\n```"
    "\n\n## Aside\n\nThe weather was fine that day, and the coffee machine broke again.\n"
)


def test_units_that_stand_side_by_side_are_quoted_as_one(tmp_path: Path) -> None:
    """Both steps are kept on their own scores and stand next to each other in the note: one
    quote holds them (exact span), so the sentence between them is not cut out and a second
    quote is free for what stands elsewhere; the sentence off the question stays out."""
    question = "How do I create a new branch and push it with its upstream?"
    first = _first_evidence(tmp_path, STEPS_NOTE, question)
    assert "git switch -c fix-typo" in first.text and "git push -u origin fix-typo" in first.text
    assert "coffee" not in first.text and first.kind == units.CODE
    from desktop_app.core.turn_view import evidence_markdown  # the window's rendering, Qt-free

    quote = Evidence(1, "n.md", "/n", "P", first.start, first.end, 1, 1, first.text, first.kind,
                  1.0, 1.0, True, code=first.code)  # fmt: skip
    shown = evidence_markdown([quote], turn=0)
    assert shown.count("> ```") == 4  # two code blocks, each fenced as code
    assert "> $ git switch -c fix-typo" in shown and "> $ git push -u origin fix-typo" in shown
    assert "“Then I push the branch and set its upstream:”" in shown
    assert shown.count("[[1]]") == 1  # one quote, one citation


JOIN_NOTE = (
    "# T\n\nFirst I make it:\n\n```python\nx = 1\n```\n\nThen I test it:\n\n```python\nassert x\n"
    "```\n\nIt passes.\n\n- an item here\n- another item here\n\nA closing sentence of the note. "
    "And one more sentence after it.\n"
)


def test_units_join_only_side_by_side_sentences_and_code_within_the_limit() -> None:
    make, check, item, other, closing, more = units.split_units(JOIN_NOTE)
    for passage, offset in ((JOIN_NOTE, 0), (JOIN_NOTE[5:], 5)):  # a passage further in its note
        both = units.joined(check, make, passage, offset, 600)  # in either order
        assert both is not None and JOIN_NOTE[both.start : both.end] == both.text
        assert both.kind == units.CODE and both.code == make.code + check.code
    assert units.joined(closing, more, JOIN_NOTE, 0, 600) is None  # prose: a sentence a quote
    assert units.joined(check, closing, JOIN_NOTE, 0, 600) is None  # the list stands between
    assert units.joined(item, other, JOIN_NOTE, 0, 600) is None  # list items stay apart
    assert units.joined(make, check, JOIN_NOTE, 0, check.end - make.start - 1) is None  # too long
    lines = (
        "\n".join(f"line {i}" for i in range(14)) + "\n\n" + "\n".join(f"m {i}" for i in range(8))
    )
    block = f"Run:\n\n```\n{lines}\n```\n"
    head, tail = units.split_units(block)  # a long block is cut at a blank line…
    whole = units.joined(head, tail, block, 0, 600)
    assert whole is not None and whole.code == ((head.code[0][0], tail.code[0][1]),)  # …one again


def test_a_unit_between_two_shown_ones_makes_them_one_quote() -> None:
    """Scored first, third, second in note order: the second joins the first, then the third
    (already a quote of its own) joins them — one quote, the best one's place."""
    text = "".join(f"Step {n}:\n\n```\nrun {n}\n```\n\n" for n in ("one", "two", "three", "four"))
    result = SearchResult("n.md", 0, len(text), 1.0, text, "/n", "N", [], 1, 1, 7, 7, [], 1, None)
    one, two, three, four = units.split_units(text)

    def scored(unit: units.Unit, score: float) -> evidence.ScoredUnit:
        return evidence.ScoredUnit(result, unit, 0, evidence.Signals(score, score, 0.0), False)

    quotes = evidence._runs([scored(one, 3), scored(three, 2), scored(two, 1)])
    assert [(q.unit.start, q.unit.end) for q in quotes] == [(one.start, three.end)]
    assert quotes[0].signals.ranking == 3  # the best unit's signals, its place
    assert quotes[0].unit.code == one.code + two.code + three.code
    far = evidence._runs([scored(one, 3), scored(three, 2), scored(four, 1)])
    assert [(q.unit.start, q.unit.end) for q in far] == [
        (one.start, one.end),
        (three.start, four.end),
    ]
