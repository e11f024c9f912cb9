"""The evidence gate: decide from retrieval alone whether the notes can answer the question.

If not, Quire says the notes don't cover it and shows the closest passages instead of asking
the model to improvise. Two signals, each from its own retriever:
- lexical: the share of the question's IDF mass found in one passage (rare words matter most;
  function words such as "how", "die", "jak" do not count; inflected forms match by prefix);
- dense: cosine similarity of the best passage, only when the embedder knows the language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MIN_COVERAGE = 0.54
MIN_COSINE = 0.60


@dataclass(frozen=True)
class GateDecision:
    answerable: bool
    reason: str
    coverage: float
    cosine: float | None

    def to_json(self) -> dict[str, Any]:
        return {"answerable": self.answerable, "reason": self.reason,
                "coverage": round(self.coverage, 3),
                "cosine": None if self.cosine is None else round(self.cosine, 3)}  # fmt: skip


def decide(results: list[Any]) -> GateDecision:
    if not results:
        return GateDecision(False, "nothing in your notes matches", 0.0, None)
    coverage = max(r.evidence for r in results)
    cosines = [r.cosine for r in results if r.cosine is not None]
    cosine = max(cosines) if cosines else None
    trusted = any(r.trusted_dense for r in results)
    if coverage >= MIN_COVERAGE:
        return GateDecision(True, "passages share the question's key words", coverage, cosine)
    if trusted and cosine is not None and cosine >= MIN_COSINE:
        return GateDecision(True, "passages are close in meaning", coverage, cosine)
    return GateDecision(False, "no passage is relevant enough", coverage, cosine)
