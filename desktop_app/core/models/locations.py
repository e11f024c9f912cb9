"""Where other local-AI apps keep their model files, per platform.

Every platform's folders are listed whatever the current OS (a folder that does not exist costs
one `stat`). With an explicit `home`, only that home and the given `env` are used, never the
real environment or system folders, so tests build whole fake homes in a temp dir.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Layout = Literal["files", "ollama", "huggingface"]


@dataclass(frozen=True)
class Root:
    source: str  # what the user recognises: "LM Studio", "Ollama", …
    path: Path
    layout: Layout = "files"


def _data_dirs(home: Path, env: Mapping[str, str]) -> list[Path]:
    """The per-user application data folders of Linux, macOS and Windows."""
    dirs = [Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")]
    dirs.append(home / "Library" / "Application Support")
    for var, fallback in (("LOCALAPPDATA", "Local"), ("APPDATA", "Roaming")):
        dirs.append(Path(env[var]) if env.get(var) else home / "AppData" / fallback)
    return dirs


def _hf_hub(home: Path, env: Mapping[str, str]) -> Path:
    if env.get("HF_HUB_CACHE"):
        return Path(env["HF_HUB_CACHE"])
    if env.get("HF_HOME"):
        return Path(env["HF_HOME"]) / "hub"
    cache = Path(env.get("XDG_CACHE_HOME") or home / ".cache")
    return cache / "huggingface" / "hub"


def model_roots(home: Path | None = None, env: Mapping[str, str] | None = None) -> list[Root]:
    system = home is None
    home = Path.home() if home is None else home
    env = (os.environ if system else {}) if env is None else env
    data = _data_dirs(home, env)
    roots = [
        Root("LM Studio", home / ".lmstudio" / "models"),
        Root("LM Studio", home / ".cache" / "lm-studio" / "models"),
        *(Root("GPT4All", d / "nomic.ai" / "GPT4All") for d in data),
        Root("Jan", home / "jan" / "models"),
        *(Root("Jan", d / "Jan" / "data" / sub) for d in data for sub in ("models", "llamacpp")),
        Root("Ollama", Path(env.get("OLLAMA_MODELS") or home / ".ollama" / "models"), "ollama"),
    ]
    if system and os.name == "posix":  # the Linux service install keeps its own store
        roots.append(Root("Ollama", Path("/usr/share/ollama/.ollama/models"), "ollama"))
    roots.append(Root("Hugging Face cache", _hf_hub(home, env), "huggingface"))
    return roots
