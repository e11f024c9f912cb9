"""Generation benchmark: Quire's streaming vs raw `llama_cpp.Llama` on the same prompt.

usage: python tests/bench/bench_generation.py [--model GGUF] [--runs 5] [--max-tokens 64]
                                             [--n-ctx N] [--til NOTES_DIR]

Prints time to first token (goal: Quire ≤ 1.15× raw), streamed tokens/s (goal ≥ 0.95× raw)
and how long a cancel takes to be honoured while the prompt is being read.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from desktop_app.core.answer.decision import relevant  # noqa: E402
from desktop_app.core.answer.llm import Generation, LocalModel  # noqa: E402
from desktop_app.core.answer.prompt import assemble, build_sources  # noqa: E402
from desktop_app.core.api import Quire  # noqa: E402
from desktop_app.core.cancel import Cancelled, CancelToken  # noqa: E402

TIL = ROOT.parent / "shared" / "eval" / "til-en" / "notes"
QUESTION = "How do I set the default branch name for new git repositories?"


def build_prompt(model: LocalModel, work: Path, til: Path = TIL) -> str:
    notes = work / "git"
    shutil.copytree(til / "git", notes)
    quire = Quire.open(work / "home")
    quire.index([notes])
    sources = build_sources(relevant(quire.search(QUESTION, top_k=8), 0.0))
    quire.close()
    prompt = assemble(QUESTION, sources, [], lambda m: len(model.tokenize(model.render(m))),
                      model.n_ctx, 256)  # fmt: skip
    return model.render(prompt.messages)


def quire_run(model: LocalModel, prompt: str, max_tokens: int) -> tuple[float, float]:
    stats = Generation()
    for _ in model.stream(prompt, max_tokens, CancelToken(), temperature=0.0, stats=stats):
        pass
    return stats.first_token_seconds or 0.0, stats.tokens_per_second


def raw_run(llm: Any, prompt: str, max_tokens: int) -> tuple[float, float]:
    llm.reset()  # no prompt cache between runs, as in Quire
    started = time.perf_counter()
    first, count = None, 0
    for _ in llm.create_completion(prompt, max_tokens=max_tokens, temperature=0.0, stream=True):
        count += 1
        if first is None:
            first = time.perf_counter() - started
    total = time.perf_counter() - started
    return first or 0.0, (count - 1) / (total - (first or 0.0))


def cancel_latency(model: LocalModel, prompt: str) -> float:
    cancel = CancelToken()
    fired: list[float] = []

    def fire() -> None:
        fired.append(time.perf_counter())
        cancel.cancel()

    threading.Timer(0.1, fire).start()
    try:
        for _ in model.stream(prompt * 3 if len(prompt) < 20000 else prompt, 16, cancel):
            pass
    except Cancelled:
        pass
    return time.perf_counter() - fired[0] if fired else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--n-ctx", type=int, default=None, help="context (default: the app's)")
    parser.add_argument("--til", type=Path, default=TIL, help="notes with a git/ folder")
    args = parser.parse_args(argv)
    from llama_cpp import Llama

    with tempfile.TemporaryDirectory() as tmp:
        model = LocalModel(args.model, args.n_ctx)
        prompt = build_prompt(model, Path(tmp), args.til)
        raw = Llama(model_path=str(model.path), n_ctx=model.n_ctx, n_threads=model.threads,
                    n_batch=512, verbose=False)  # fmt: skip
        quire_runs, raw_runs = [], []
        quire_run(model, prompt, 8)
        raw_run(raw, prompt, 8)  # warm-up both
        for _ in range(args.runs):
            quire_runs.append(quire_run(model, prompt, args.max_tokens))
            raw_runs.append(raw_run(raw, prompt, args.max_tokens))
        q_ttft = statistics.median(r[0] for r in quire_runs)
        r_ttft = statistics.median(r[0] for r in raw_runs)
        q_tps = statistics.median(r[1] for r in quire_runs)
        r_tps = statistics.median(r[1] for r in raw_runs)
        tokens = len(model.tokenize(prompt))
        print(
            f"model {model.path.name}, n_ctx {model.n_ctx}, prompt {tokens} tokens, "
            f"{args.runs} runs of {args.max_tokens} tokens (medians)"
        )
        print(
            f"  time to first token: quire {q_ttft * 1000:7.0f} ms   raw {r_ttft * 1000:7.0f} ms"
            f"   ratio {q_ttft / r_ttft:.2f}× (goal ≤ 1.15×)"
        )
        print(
            f"  tokens/s:            quire {q_tps:7.1f}      raw {r_tps:7.1f}"
            f"      ratio {q_tps / r_tps:.2f}× (goal ≥ 0.95×)"
        )
        latency = cancel_latency(model, prompt) * 1000
        print(f"  cancel while reading the prompt honoured after {latency:.0f} ms")
    return 0


if __name__ == "__main__":
    from tests.bench.page import record

    raise SystemExit(record(main, "bench_generation"))
