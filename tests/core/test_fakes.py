"""The fakes (tests/support/fakes.py) behave like the real models where the core relies on it,
and the harness uses them: every test not marked `slow` in a module using `fake_embedder`
indexes with FakeEmbedder."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

from desktop_app.core.answer.llm import Generation, LocalModel
from desktop_app.core.api import Quire
from desktop_app.core.cancel import Cancelled, CancelToken
from desktop_app.core.retrieval.embedder import Embedder, TextEmbedder
from tests.conftest import ROOT
from tests.support.fakes import FakeEmbedder, QueuedModel

pytestmark = pytest.mark.usefixtures("fake_embedder")

PROTOCOL = [n for n in vars(TextEmbedder) if not n.startswith("_")]


def test_fake_embedder_is_deterministic_normalized_and_near_for_shared_words() -> None:
    fake = FakeEmbedder()
    texts = ["Tomatoes need sun and water.", "The tomato plant needs water.", "Chess openings."]
    vectors = fake.encode(texts)
    assert vectors.shape == (3, fake.dimension) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert np.array_equal(vectors, FakeEmbedder().encode(texts))
    assert vectors[0] @ vectors[1] > 0.3 > vectors[0] @ vectors[2]
    assert fake.encode([]).shape == (0, fake.dimension)
    text = "Two words, then: three."
    assert [text[a:b] for a, b in fake.token_offsets(text)] == [
        "Two", "words", ",", "then", ":", "three", ".",
    ]  # fmt: skip


def test_quire_uses_the_fake_embedder_outside_slow_tests(notes_dir: Path, tmp_path: Path) -> None:
    quire = Quire.open(tmp_path / "home")
    try:
        assert isinstance(quire.embedder, FakeEmbedder)
        quire.index([notes_dir])
        assert quire.embedder.encoded > 0
        assert quire.search("selective sync folders")[0].path == "sync/settings.md"
    finally:
        quire.close()


def test_an_embedder_passed_to_quire_is_used_and_kept(tmp_path: Path) -> None:
    mine = FakeEmbedder(dimension=32)
    quire = Quire.open(tmp_path / "home", embedder=mine)
    try:
        assert quire.embedder is mine and quire.searcher.embedder is mine
        quire.apply_settings(quire.settings.__class__(embedding_model=str(tmp_path)))
        assert quire.embedder is mine  # an injected embedder outlives a settings change
    finally:
        quire.close()


def test_queued_model_streams_its_answers_in_order_and_stops_on_cancel() -> None:
    model = QueuedModel("first answer here", "second")
    stats = Generation()
    assert "".join(model.stream("p", 10, CancelToken(), 0.2, stats)) == "first answer here "
    assert (stats.completion_tokens, stats.stopped, model.prompts) == (3, "eos", ["p"])
    cancel = CancelToken()
    pieces = model.stream("q", 10, cancel)
    cancel.cancel()
    with pytest.raises(Cancelled):
        next(pieces)
    short = QueuedModel("one two three")
    stats = Generation()
    assert list(short.stream("p", 2, CancelToken(), stats=stats)) == ["one ", "two "]
    assert stats.stopped == "length"
    with pytest.raises(AssertionError, match="no answer queued"):
        next(QueuedModel().stream("p", 1, CancelToken()))


LEAKY = """
import threading

def test_leaves_a_thread() -> None:
    stop = threading.Event()
    threading.Thread(target=stop.wait, name="leaky", daemon=True).start()

def test_joins_its_thread() -> None:
    thread = threading.Thread(target=lambda: None, name="tidy")
    thread.start()
"""


def test_a_test_that_leaves_a_thread_running_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the subprocess imports tests.conftest
    pytester.makepyfile(test_planted=LEAKY)
    result = pytester.runpytest_subprocess(
        "-p", "tests.conftest", "-p", "no:cacheprovider", "-q", "test_planted.py"
    )  # the second test's thread ends by itself, within the grace
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*test_leaves_a_thread left threads running: leaky (daemon*"])


@pytest.mark.slow
def test_the_fakes_have_what_the_core_uses_of_the_real_models() -> None:
    real = Embedder()
    for name in PROTOCOL:
        assert hasattr(real, name) and hasattr(FakeEmbedder(), name), name
    assert real.encode(["x"]).dtype == FakeEmbedder().encode(["x"]).dtype
    for name in ("render", "tokenize", "stream"):
        ours = inspect.signature(getattr(QueuedModel, name)).parameters
        theirs = inspect.signature(getattr(LocalModel, name)).parameters
        assert list(ours) == list(theirs), name
    local = LocalModel(n_ctx=1024)
    for name in ("n_ctx", "notices", "path", "requested_ctx", "lock"):
        assert hasattr(local, name) and hasattr(QueuedModel(), name), name
