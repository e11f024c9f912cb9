"""A question longer than the model's context: a clear refusal, quickly, never a hang."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app import cli
from desktop_app.core.answer.prompt import (
    INSTRUCTIONS,
    QuestionTooLong,
    assemble,
    user_message,
)
from desktop_app.core.api import Answers, Quire
from desktop_app.core.passage import Passage
from desktop_app.paths import sample_notes
from tests.support.fakes import QueuedModel

pytestmark = pytest.mark.usefixtures("fake_embedder")

HUGE_QUESTION = ("How long do I bake the sourdough bread with the lid on? " * 900)[:50_000]


def source(n: int, text: str) -> Passage:
    return Passage(
        number=n, path=f"n{n}.md", folder="/", title=f"Note {n}", heading_path=[], start=0,
        end=len(text), line_start=1, line_end=1, text=text, score=1.0 / n,
    )  # fmt: skip


class CountingTokens:
    """About four characters a token, like a real tokenizer on prose; counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, messages: list[dict[str, str]]) -> int:
        self.calls += 1
        return sum(4 + len(m["content"]) // 4 for m in messages)


@settings(max_examples=150, deadline=None)
@given(
    question_chars=st.integers(0, 60_000),
    source_sizes=st.lists(st.integers(0, 40_000), max_size=12),
    turn_sizes=st.lists(st.integers(0, 8_000), max_size=8),
    n_ctx=st.integers(0, 9_000),
    answer_tokens=st.integers(0, 1_000),
)
def test_assembly_always_ends_and_fits_the_budget(
    question_chars: int, source_sizes: list[int], turn_sizes: list[int], n_ctx: int,
    answer_tokens: int,
) -> None:  # fmt: skip
    question = ("why " * (question_chars // 4 + 1))[:question_chars]
    sources = [source(n, "x" * size) for n, size in enumerate(source_sizes, start=1)]
    history = [("q" * size, "a" * size) for size in turn_sizes]
    count = CountingTokens()
    try:
        prompt = assemble(question, sources, history, count, n_ctx, answer_tokens)
    except QuestionTooLong as exc:
        alone = [{"role": "system", "content": INSTRUCTIONS},
                 {"role": "user", "content": user_message(question, [])}]  # fmt: skip
        assert CountingTokens()(alone) > n_ctx - answer_tokens  # refused only when too long
        assert "too long" in str(exc) or "too small" in str(exc)
    else:
        assert prompt.tokens + answer_tokens <= n_ctx
        assert count(prompt.messages) == prompt.tokens
        assert [s.number for s in prompt.sources] == list(range(1, len(prompt.sources) + 1))
        assert question in prompt.messages[-1]["content"]  # the question is never cut
    # bounded: one count per dropped turn or source, a few dozen shortenings at most
    assert count.calls <= 3 + len(sources) + len(history) + 80


def test_the_old_endless_case_ends() -> None:
    """One source, a budget that 200 characters of it overshoot: it used to loop forever."""
    count = CountingTokens()
    n_ctx = count([{"role": "system", "content": INSTRUCTIONS},
                   {"role": "user", "content": user_message("q?", [])}]) + 60  # fmt: skip
    prompt = assemble("q?", [source(1, "word " * 5000)], [], count, n_ctx, 0)
    assert prompt.tokens <= n_ctx and prompt.dropped_sources == 1 and count.calls < 40


@pytest.fixture
def indexed(tmp_path: Path, quire_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    notes = tmp_path / "notes"
    shutil.copytree(sample_notes(), notes)
    quire = Quire.open(quire_home)
    quire.index([notes], embed=False)
    quire.close()
    return notes


@pytest.mark.usefixtures("indexed")
def test_cli_ask_json_refuses_a_50000_character_question(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    model = QueuedModel(n_ctx=2048)  # no answer queued: generation would fail the test
    monkeypatch.setattr(Answers, "chat_model", lambda self, path=None: model)
    code = cli.main(["ask", HUGE_QUESTION, "--json"])
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1
    assert [e["type"] for e in events] == ["error"]
    assert "too long for the model" in events[0]["message"]
    assert "Shorten it to about" in events[0]["message"]


@pytest.mark.slow
@pytest.mark.usefixtures("indexed")
def test_cli_ask_plain_refuses_a_50000_character_question_with_the_bundled_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = cli.main(["ask", HUGE_QUESTION])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.startswith("quire: The question is too long for the model")
    assert "Traceback" not in err
