"""Fakes for fast core tests: a deterministic hashing embedder and a queued chat model.

Both have the interface the core uses of the real ones (`TextEmbedder`; the part of `LocalModel`
that `answer_events` and `Quire.chat_model` read), and both are checked against the real ones
by tests/core/test_fakes.py. The real models stay covered by the tests marked `slow`.
"""

from __future__ import annotations

import re
import threading
import zlib
from collections import Counter
from collections.abc import Generator, Iterator
from functools import lru_cache
from pathlib import Path

import numpy as np

from desktop_app.core.answer.llm import Generation
from desktop_app.core.answer.profile import ModelProfile
from desktop_app.core.cancel import CancelToken

_PIECE = re.compile(r"\w+|[^\w\s]")
_WORD = re.compile(r"\w+")


def word_offsets(text: str) -> list[tuple[int, int]]:
    """A stand-in tokenizer: one token per whitespace-separated word."""
    return [m.span() for m in re.finditer(r"\S+", text)]


class FakeEmbedder:
    """Words (and their 4-letter prefixes, so "tomato" and "tomatoes" meet) hashed into a fixed
    number of buckets, normalized: texts sharing words are near, the same text is the same
    vector in every process (crc32, not Python's salted hash)."""

    def __init__(
        self,
        dimension: int = 256,
        max_tokens: int = 254,
        languages: frozenset[str] | None = frozenset({"en"}),
    ) -> None:
        self.dimension = dimension
        self.max_tokens = max_tokens
        self.languages = languages
        self.model_id = f"fake-hash-{dimension}"
        self.multilingual = False
        self.cosine_range = (0.0, 1.0)
        self.crossed_shift = 0.0
        self.encoded = 0  # texts encoded so far (tests check what was embedded again)

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in _PIECE.finditer(text)]

    def encode_query(self, texts: list[str]) -> np.ndarray:
        return self.encode(texts)

    def encode_few(self, texts: list[str]) -> np.ndarray:
        return self.encode(texts)

    def encode(self, texts: list[str]) -> np.ndarray:
        self.encoded += len(texts)
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word, count in Counter(_WORD.findall(text.lower())).items():
                vectors[row, _bucket(word, self.dimension)] += count
                vectors[row, _bucket(word[:4] + "…", self.dimension)] += count
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)


@lru_cache(maxsize=1 << 16)
def _bucket(feature: str, dimension: int) -> int:
    return zlib.crc32(feature.encode()) % dimension


class QueuedModel:
    """A chat model that answers from a queue (one answer per question, streamed word by word)
    and records the prompts it was given. Honours `max_tokens` and the cancel token like
    `LocalModel` (stops within one piece) and fills the `Generation` stats."""

    def __init__(
        self,
        *answers: str,
        n_ctx: int = 4096,
        path: Path | None = None,
        languages: frozenset[str] | None = None,
    ) -> None:
        self.answers = list(answers)
        self.grammars: list[str | None] = []  # the GBNF each answer was asked to keep to
        # Writes any language unless told otherwise (the bundled model's profile is English).
        self.profile = ModelProfile("fake", languages, n_ctx, follows_format=True)
        self.prompts: list[str] = []
        self.n_ctx = n_ctx
        self.requested_ctx: int | None = None
        self.path = path or Path("queued-fake.gguf")
        self.notices: list[str] = []
        self.lock = threading.Lock()

    def render(self, messages: list[dict[str, str]]) -> str:
        return "\n".join(f"<{m['role']}>{m['content']}" for m in messages)

    def tokenize(self, text: str) -> list[int]:
        return [zlib.crc32(p.encode()) for p in _PIECE.findall(text)]

    def stream(
        self,
        prompt: str,
        max_tokens: int,
        cancel: CancelToken,
        temperature: float = 0.2,
        stats: Generation | None = None,
        grammar: str | None = None,
    ) -> Generator[str, None, None]:
        stats = stats or Generation()
        self.grammars.append(grammar)
        if not self.answers:
            raise AssertionError(f"QueuedModel: no answer queued for prompt {prompt[-200:]!r}")
        with self.lock:
            self.prompts.append(prompt)
            stats.prompt_tokens = len(self.tokenize(prompt))
            if stats.prompt_tokens + max_tokens > self.n_ctx:
                raise ValueError(f"prompt of {stats.prompt_tokens} tokens exceeds {self.n_ctx}")
            cancel.raise_if_cancelled()
            yield from self._pieces(self.answers.pop(0), max_tokens, cancel, stats)

    def _pieces(
        self, answer: str, max_tokens: int, cancel: CancelToken, stats: Generation
    ) -> Iterator[str]:
        stats.stopped = "eos"
        for word in answer.split(" "):
            if stats.completion_tokens >= max_tokens:
                stats.stopped = "length"
                return
            if cancel.cancelled:
                stats.stopped = "cancelled"
                return
            stats.completion_tokens += 1
            if stats.first_token_seconds is None:
                stats.first_token_seconds = 0.0
            yield word + " "
