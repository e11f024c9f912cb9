"""A chat model whose generations are recorded by prompt and replayed on later runs.

The bundled model answers 100 benchmark questions in about 20 minutes; the checks that follow
generation (citations, support, attribution, marking) take seconds. With a record file, a change
to those checks is re-measured on the very same generated text in minutes: each prompt already in
the file is answered from it (text and timings as recorded), any other prompt by the real model,
and appended. Generation is greedy (temperature 0 in the benches), so a recorded answer is the
answer the model gives to that prompt.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from desktop_app.core.answer.llm import Generation
from desktop_app.core.cancel import CancelToken


class RecordedModel:
    """Wraps a model with `render`, `tokenize` and `stream`; `hits` / `misses` count replays."""

    def __init__(self, model: Any, path: Path) -> None:
        self.model = model
        self.path = path
        self.hits = 0
        self.misses = 0
        self.records: dict[str, dict[str, Any]] = {}
        path_of_model = Path(getattr(model, "path", "") or "")
        size = path_of_model.stat().st_size if path_of_model.is_file() else 0
        self._model_id = f"{path_of_model.name}:{size}"  # another GGUF is another model
        if path.exists():
            for line in path.read_text("utf-8").splitlines():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:  # a run killed mid-line: that one is generated again
                    continue
                self.records[row["key"]] = row

    def __getattr__(self, name: str) -> Any:  # render, tokenize, n_ctx, path…: the real model's
        return getattr(self.model, name)

    def stream(self, prompt: str, max_tokens: int, *more: Any, **named: Any) -> Iterator[str]:
        """`LocalModel.stream` (cancel token, temperature, stats): replayed when recorded; else
        generated, streamed as it comes, and recorded unless it was cancelled or failed."""
        bound = inspect.signature(self.model.stream).bind(prompt, max_tokens, *more, **named)
        bound.apply_defaults()
        cancel: CancelToken = bound.arguments["cancel"]
        temperature: float = bound.arguments["temperature"]
        stats: Generation = bound.arguments["stats"] or Generation()
        grammar: str | None = bound.arguments.get("grammar")
        shape = f"\0{grammar}" if grammar else ""  # no grammar: the key recorded before grammars
        key = hashlib.sha256(
            f"{self._model_id}\0{max_tokens}\0{temperature}\0{prompt}{shape}".encode()
        ).hexdigest()
        if key in self.records:
            self.hits += 1
            row = self.records[key]
            for name, value in row["stats"].items():
                setattr(stats, name, value)
            yield row["text"]
            return
        self.misses += 1
        pieces: list[str] = []
        inner = self.model.stream(prompt, max_tokens, cancel, temperature, stats, grammar=grammar)
        closed_early = False
        try:
            for piece in inner:
                pieces.append(piece)
                yield piece
        except GeneratorExit:  # the consumer stopped (a stop marker): it saw all it needed
            closed_early = True
            raise
        finally:
            inner.close()
            if not cancel.cancelled and (closed_early or stats.stopped in ("eos", "length")):
                self._record(key, "".join(pieces), stats)

    def _record(self, key: str, text: str, stats: Generation) -> None:
        row = {"key": key, "text": text, "stats": asdict(stats)}
        self.records[key] = row
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
