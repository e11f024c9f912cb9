"""User settings as JSON under QUIRE_HOME; unknown keys are ignored, missing keys default.

Every field is checked for type and range. A value that fails (wrong type, NaN, Infinity, out
of range) falls back to that field's default; a file that is not a JSON object is set aside
(`settings.json.bad-YYYYmmdd-HHMMSS`) and defaults are used. In both cases the original file is
kept aside, the corrected settings are saved, and `problems` says what happened (the CLI prints
it, the window shows it), once.
"""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from desktop_app import paths

THEMES = ("system", "light", "dark")
# field: (lowest, highest) allowed; a float range excludes NaN and Infinity.
RANGES: dict[str, tuple[float, float]] = {
    "chunk_tokens": (50, 2000),
    "max_file_mb": (0.001, 10_000.0),
    "candidates": (1, 1000),
    "min_relevance": (0.0, 1.0),
    "top_k": (1, 200),
    "context_tokens": (0, 1_048_576),
    "temperature": (0.0, 2.0),
}


@dataclass
class Settings:
    # Chunking
    chunk_tokens: int = 200
    max_file_mb: float = 20.0  # for text notes; a PDF may be 10×, a Word file 5× as large
    # File types not indexed, e.g. [".html", ".pdf"]; every supported type is read by default.
    ignored_types: list[str] = field(default_factory=list)
    # Scans, photos and PDF pages without text are read by OCR in these languages (Tesseract's
    # codes, those Quire has data for: ces, deu, eng); `ocr` off leaves them unread.
    ocr: bool = True
    ocr_languages: list[str] = field(default_factory=lambda: ["ces", "deu", "eng"])
    # Folders whose scans and pictures are left unread even with OCR on (the Folders list's menu).
    ocr_off_folders: list[str] = field(default_factory=list)
    # Embedding model: a local sentence-transformers folder; empty means the bundled MiniLM.
    embedding_model: str = ""
    # Beside an English-only embedding model, the bundled multilingual one reads questions and
    # notes in other languages (its own vectors of every passage: more time to embed).
    multilingual_companion: bool = True
    # Passage vectors wait while this is on (the window's and `quire watch`'s live index; an
    # explicit `quire index` still computes them): keyword search and answers keep working.
    pause_vectors: bool = False
    # Retrieval: a wide net from each retriever, then a relevance floor and a final cap.
    candidates: int = 60
    min_relevance: float = 0.0
    top_k: int = 10
    # Chat model: a GGUF file; empty means the bundled SmolLM2.
    chat_model: str = ""
    # The languages each chat model (by file path) writes, as the user corrected them in
    # Settings → Models (codes like "en", "de"; "*" for any); absent: its family's default.
    model_languages: dict[str, list[str]] = field(default_factory=dict)
    # Extra folders searched for GGUF chat models (besides LM Studio, Ollama, … — see Settings).
    model_folders: list[str] = field(default_factory=list)
    # Context budget in tokens; 0 means what the model was trained for, capped by free memory.
    context_tokens: int = 0
    temperature: float = 0.2
    # Window colours: "system" follows the OS light/dark scheme.
    theme: str = "system"
    # What `load` had to correct (not saved): shown to the user once.
    problems: list[str] = field(default_factory=list, init=False, repr=False, compare=False)

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        path = path or paths.settings_path()
        settings = cls()
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return settings
        except OSError as exc:
            settings.problems.append(f"cannot read {path} ({exc}); using the defaults")
            return settings
        try:
            data = json.loads(raw.decode("utf-8"))
        except ValueError as exc:  # not UTF-8, or not JSON
            data, why = None, f"is not valid JSON ({exc})"
        else:
            why = "does not hold a JSON object"
        if not isinstance(data, dict):
            settings.problems.append(f"{path} {why}; using the defaults")
        else:
            for name in _field_names(cls):
                if name in data:
                    settings._take(name, data[name])
        if settings.problems:
            settings._set_aside(path)
        return settings

    def _take(self, name: str, value: Any) -> None:
        default = getattr(self, name)
        checked = _check(name, value, default)
        if checked is None:
            self.problems.append(
                f"{name} = {json.dumps(value)[:80]} is not allowed ({_allowed(name, default)});"
                f" using {json.dumps(default)}"
            )
        else:
            setattr(self, name, checked)

    def _set_aside(self, path: Path) -> None:
        """Keep the original file next to it and save what is used now, so the user is told
        once and can still see (and copy from) what they had."""
        kept = path.with_name(f"{path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}")
        n = 1
        while kept.exists():  # never overwrite an earlier copy
            n += 1
            kept = kept.with_name(f"{kept.name.split('~')[0]}~{n}")
        try:
            path.replace(kept)
            self.save(path)
        except OSError:
            return
        self.problems.append(f"the original file is kept as {kept}")

    def languages_of(self, model: Path) -> list[str] | None:
        """The languages the user says `model` writes (None: not corrected)."""
        return self.model_languages.get(str(model)) or None

    def save(self, path: Path | None = None) -> None:
        path = path or paths.settings_path()
        tmp = path.with_suffix(".tmp")
        data = {name: getattr(self, name) for name in _field_names(type(self))}
        tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
        tmp.replace(path)


def _field_names(cls: type[Settings]) -> list[str]:
    return [f.name for f in fields(cls) if f.init]


def _check(name: str, value: Any, default: Any) -> Any:
    """The value to use, or None if it is not allowed for this field."""
    if isinstance(default, dict):  # model path → language codes
        if not isinstance(value, dict):
            return None
        return {
            path: [c for c in codes if isinstance(c, str) and re.fullmatch(r"[a-z]{2,3}|\*", c)]
            for path, codes in value.items()
            if isinstance(path, str) and "\x00" not in path and isinstance(codes, list)
        }
    if isinstance(default, list):  # folder paths or file types: keep only the strings
        if not isinstance(value, list):
            return None
        kept = [v for v in value if isinstance(v, str) and "\x00" not in v]
        if name == "ignored_types":  # "PDF", "pdf", ".pdf" all mean .pdf
            return sorted({"." + v.strip().lower().lstrip(".") for v in kept if v.strip(". ")})
        if name == "ocr_languages":  # Tesseract's codes: "ces", "deu", "chi_sim"
            codes = [v.strip().lower() for v in kept]
            return codes if all(re.fullmatch(r"[a-z]{3}(_[a-z]+)?", c) for c in codes) else None
        return kept
    if isinstance(default, bool):
        return value if isinstance(value, bool) else None
    if isinstance(default, str):
        if not isinstance(value, str) or "\x00" in value:
            return None
        return value if name != "theme" or value in THEMES else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(default, int) and not isinstance(value, int):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    low, high = RANGES[name]
    return type(default)(value) if low <= value <= high else None


def _allowed(name: str, default: Any) -> str:
    if name == "theme":
        return "one of " + ", ".join(THEMES)
    if isinstance(default, bool):
        return "true or false"
    if isinstance(default, str):
        return "text"
    if isinstance(default, dict):
        return "model paths, each with a list of language codes"
    if isinstance(default, list):
        if name == "ocr_languages":
            return "a list of Tesseract language codes, such as ces, deu, eng"
        return "a list of file types" if name == "ignored_types" else "a list of folder paths"
    low, high = RANGES[name]
    kind = "a whole number" if isinstance(default, int) else "a number"
    return f"{kind} from {low:g} to {high:g}"
