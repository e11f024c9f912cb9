"""Whether a llama.cpp grammar (GBNF) lets a model write a given text: llama.cpp's own grammar
sampler is asked, token by token of the bundled model's vocabulary, whether each token of the
text may come next, and at the end whether the text may stop there. Exact where a model's
choices are not: a small model may never try the form a test is about."""

from __future__ import annotations

import ctypes
import math
from functools import cache
from typing import Any


@cache
def _vocabulary() -> Any:
    import llama_cpp

    from desktop_app.core.answer.llm import bundled_chat_model_path

    return llama_cpp.Llama(str(bundled_chat_model_path()), vocab_only=True, verbose=False)


def _allowed(sampler: Any, token: int) -> bool:
    import llama_cpp

    data = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 0.0, 0.0))
    array = llama_cpp.llama_token_data_array(data, 1, -1, False)
    llama_cpp.llama_sampler_apply(sampler, ctypes.byref(array))
    return not math.isinf(data[0].logit)


def accepts(grammar: str, text: str) -> bool:
    """The grammar lets `text` be written, whole, and end there."""
    import llama_cpp

    model = _vocabulary()
    vocab = model._model.vocab
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
    try:
        for token in model.tokenize(text.encode(), add_bos=False, special=False):
            if not _allowed(sampler, token):
                return False
            llama_cpp.llama_sampler_accept(sampler, token)
        return _allowed(sampler, llama_cpp.llama_vocab_eos(vocab))
    finally:
        llama_cpp.llama_sampler_free(sampler)
