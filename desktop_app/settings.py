"""User settings as JSON under QUIRE_HOME; unknown keys are ignored, missing keys default."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from desktop_app import paths


@dataclass
class Settings:
    # Chunking
    chunk_tokens: int = 200
    max_file_mb: float = 20.0
    # Embedding model: a local sentence-transformers folder; empty means the bundled MiniLM.
    embedding_model: str = ""
    # Retrieval: a wide net from each retriever, then a relevance floor and a final cap.
    candidates: int = 60
    min_relevance: float = 0.0
    top_k: int = 10
    # Chat model: a GGUF file; empty means the bundled SmolLM2.
    chat_model: str = ""
    # Extra folders searched for GGUF chat models (besides LM Studio, Ollama, … — see Settings).
    model_folders: list[str] = field(default_factory=list)
    # Context budget in tokens; 0 means what the model was trained for, capped by free memory.
    context_tokens: int = 0
    temperature: float = 0.2
    # Window colours: "system" follows the OS light/dark scheme.
    theme: str = "system"

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        path = path or paths.settings_path()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        known = {f.name for f in fields(cls)}
        settings = cls()
        for key, value in data.items():
            if key not in known:
                continue
            default = getattr(settings, key)
            if isinstance(default, float) and isinstance(value, int):
                value = float(value)
            if isinstance(value, list):  # a list of folder paths: keep only the strings
                value = [v for v in value if isinstance(v, str)]
            if isinstance(value, type(default)):
                setattr(settings, key, value)
        return settings

    def save(self, path: Path | None = None) -> None:
        path = path or paths.settings_path()
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2), encoding="utf-8")
        tmp.replace(path)
