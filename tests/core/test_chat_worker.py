"""The chat model in a process of its own (the window's): the same prompt and tokens as in
this process, a streamed answer, cancels and early stops that leave it ready, and a process
that stops or a file llama.cpp cannot load, each with a clear message (real llama.cpp, the
bundled model)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_app.core.answer.chat_worker import ChatWorker
from desktop_app.core.answer.gguf import ModelFileError
from desktop_app.core.answer.llm import Generation, LocalModel, bundled_chat_model_path
from desktop_app.core.cancel import Cancelled, CancelToken
from tests.support.fake_gguf import write_gguf

pytestmark = pytest.mark.slow

MESSAGES = [
    {"role": "system", "content": "Answer briefly."},
    {"role": "user", "content": "Name three colours of the rainbow."},
]
LONG = [{"role": "user", "content": "Write a long story about a cat who sails to Norway."}]


@pytest.fixture(scope="module")
def worker() -> Iterator[ChatWorker]:
    chat = ChatWorker(bundled_chat_model_path(), n_ctx=1024)
    chat.load()
    yield chat
    chat.close()


def test_the_worker_renders_tokenizes_and_streams_as_this_process_would(
    worker: ChatWorker,
) -> None:
    here = LocalModel(n_ctx=1024)
    prompt = worker.render(MESSAGES)
    assert prompt == here.render(MESSAGES)
    assert worker.tokenize(prompt) == here.tokenize(prompt)
    stats = Generation()
    pieces = list(worker.stream(prompt, 24, CancelToken(), stats=stats))
    assert "".join(pieces).strip()
    assert 0 < stats.completion_tokens <= 24
    assert stats.stopped in ("eos", "length") and stats.prompt_tokens == len(
        worker.tokenize(prompt)
    )
    assert worker.n_ctx == 1024 and worker._process.pid != os.getpid()


def test_a_cancel_stops_the_answer_and_the_worker_serves_the_next(worker: ChatWorker) -> None:
    prompt = worker.render(LONG)
    cancel, stats = CancelToken(), Generation()
    pieces = []
    for piece in worker.stream(prompt, 200, cancel, stats=stats):
        pieces.append(piece)
        cancel.cancel()  # after the first piece
    assert stats.stopped == "cancelled" and stats.completion_tokens < 100
    early = worker.stream(prompt, 200, CancelToken())
    next(early)
    early.close()  # the reader stops early: the worker is stopped and drained
    assert worker.tokenize("salt") == LocalModel(n_ctx=1024).tokenize("salt")
    cancelled = CancelToken()
    cancelled.cancel()
    with pytest.raises(Cancelled):  # cancelled before the prompt is read
        list(worker.stream(prompt, 20, cancelled))


def test_a_prompt_too_long_fails_as_in_process_and_the_worker_serves_the_next(
    worker: ChatWorker,
) -> None:
    prompt = worker.render([{"role": "user", "content": "salt " * 1500}])  # over 1,024 tokens
    raised: list[BaseException] = []

    def answer() -> None:
        try:
            list(worker.stream(prompt, 8, CancelToken()))
        except BaseException as exc:  # what it raised is the assertion
            raised.append(exc)

    reader = threading.Thread(target=answer, daemon=True)
    reader.start()
    reader.join(120)
    assert not reader.is_alive(), "the answer never ended"
    assert isinstance(raised[0], ValueError) and "exceeds the context" in str(raised[0])
    assert worker.tokenize("salt") == LocalModel(n_ctx=1024).tokenize("salt")


def test_a_worker_that_stops_mid_answer_says_so_and_starts_again(worker: ChatWorker) -> None:
    prompt = worker.render(LONG)
    answer = worker.stream(prompt, 200, CancelToken())
    next(answer)
    os.kill(worker._process.pid, signal.SIGKILL)
    with pytest.raises(ModelFileError, match=r"chat model's process .* stopped"):
        list(answer)
    assert list(worker.stream(prompt, 8, CancelToken()))  # a new worker, the model loaded again


def test_a_file_llama_cpp_cannot_load_fails_in_the_worker_with_a_message(tmp_path: Path) -> None:
    bad = write_gguf(tmp_path / "bad.gguf")  # a header that reads, no tensors behind it
    chat = ChatWorker(bad)
    with pytest.raises(ModelFileError, match=r"bad\.gguf"):
        chat.load()
    assert chat._process is None  # nothing left running
