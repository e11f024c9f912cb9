"""Prompt speed and a short generation with whichever llama_cpp is first on PYTHONPATH.

Run by bench_package.py under several llama.cpp builds (and under qemu's older CPU models):
    python tests/bench/llama_probe.py MODEL.gguf PROMPT_TOKENS GEN_TOKENS REPEATS
Prints one JSON line: the build's CPU library actually mapped, prompt tokens/s per repeat, text.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

TEXT = (
    "Sourdough needs a lively starter, flour, water and salt. Mix, rest, fold every half hour, "
    "shape, proof overnight in the fridge, then bake covered at 250 degrees for twenty minutes "
    "and uncovered for twenty-five more until the crust is deep brown. "
)


def mapped_cpu_libraries() -> list[str]:
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return []
    return sorted({Path(line.split()[-1]).name for line in maps.splitlines() if "ggml" in line})


def main(model: str, n_prompt: int, n_gen: int, repeats: int) -> None:
    import llama_cpp

    from desktop_app.core.answer.backends import load_cpu_backend

    backends = load_cpu_backend()
    llm = llama_cpp.Llama(
        model_path=model, n_ctx=max(512, n_prompt + n_gen + 8), n_batch=512, n_threads=2,
        verbose=False,
    )  # fmt: skip
    tokens = llm.tokenize((TEXT * (1 + n_prompt // 40)).encode())[:n_prompt]
    speeds = []
    for _ in range(repeats):
        llm.reset()
        started = time.perf_counter()
        llm.eval(tokens)
        speeds.append(round(len(tokens) / (time.perf_counter() - started), 1))
    out = llm.create_completion("The bread bakes for", max_tokens=n_gen, temperature=0.0)
    assert isinstance(out, dict)  # not streamed: one response
    print(json.dumps({
        "llama_cpp": str(Path(llama_cpp.__file__).parent), "backends": backends,
        "libraries": mapped_cpu_libraries(), "prompt_tokens": len(tokens),
        "prompt_tokens_per_s": speeds, "text": out["choices"][0]["text"],
    }))  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
