"""A short curated list of models the user may choose to download (nothing is fetched unless
they start a download).

URLs are pinned to a repository revision, so the bytes behind them cannot change. The sha256
values could not be verified offline while writing this list: they are the ones other public
projects pin for the same files at the same revisions (noted per entry). A wrong value makes the
download fail with a clear "checksum mismatch" and deletes the file — it never installs bytes
that do not match. Files with `sha256=None` are checked for size only; the result says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from desktop_app import paths

_HF = "https://huggingface.co"


@dataclass(frozen=True)
class RemoteFile:
    path: str  # relative to the entry's target (a file name, or a path inside a model folder)
    url: str
    size: int | None  # exact byte count when known
    sha256: str | None  # None: not pinned (see the module docstring)


@dataclass(frozen=True)
class CatalogEntry:
    key: str  # what `quire models download KEY` takes
    name: str
    kind: Literal["chat", "embedding"]
    licence: str
    approx_bytes: int
    files: tuple[RemoteFile, ...]
    note: str = ""

    @property
    def target(self) -> str:
        """A chat model is one GGUF file; an embedding model is a folder named after the key."""
        return self.files[0].path if self.kind == "chat" else self.key


def _gguf_chat(
    key: str,
    name: str,
    repo: str,
    rev: str,
    file: str,
    size: int,
    sha256: str,
    *,
    licence: str,
    note: str,
) -> CatalogEntry:
    """A chat model that is one GGUF file of a Hugging Face repository at a pinned revision."""
    url = f"{_HF}/{repo}/resolve/{rev}/{file}"
    return CatalogEntry(
        key=key,
        name=name,
        kind="chat",
        licence=licence,
        approx_bytes=size,
        files=(RemoteFile(file, url, size, sha256),),
        note=note,
    )


# Sizes and sha256 as pinned for these revisions by other public projects; unverified here.
def _qwen() -> CatalogEntry:
    return _gguf_chat(
        "qwen2.5-1.5b",
        "Qwen2.5 1.5B Instruct (Q4_K_M)",
        "Qwen/Qwen2.5-1.5B-Instruct-GGUF",
        "91cad51170dc346986eccefdc2dd33a9da36ead9",
        "qwen2.5-1.5b-instruct-q4_k_m.gguf",
        1_117_320_736,
        "6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e",
        licence="Apache-2.0",
        note="Multilingual, fast on a laptop CPU; about 2 GB of RAM.",
    )


def _llama() -> CatalogEntry:
    return _gguf_chat(
        "llama3.2-3b",
        "Llama 3.2 3B Instruct (Q4_K_M)",
        "unsloth/Llama-3.2-3B-Instruct-GGUF",
        "e7d0997e49c9cb00d88b4c1a6a16aa894b0bbc31",
        "Llama-3.2-3B-Instruct-Q4_K_M.gguf",
        2_019_377_600,
        "6c99cc00ae910f6a532a80022cb4bc1939094527a089c29294b841c0bd87f74d",
        licence="Llama 3.2 Community License",
        note="Better answers than 1.5B models, slower; about 3.5 GB of RAM.",
    )


def _multilingual_minilm() -> CatalogEntry:
    # Revision as pinned by another public project; no sha256 for these files could be
    # verified offline, so they are checked for completeness only (sha256=None).
    base = f"{_HF}/sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2/resolve"
    base += "/e8f8c211226b894fcb81acc59f3b34ba3efd5f42"
    names = (
        "modules.json",
        "config.json",
        "config_sentence_transformers.json",
        "sentence_bert_config.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "1_Pooling/config.json",
        "model.safetensors",
    )
    return CatalogEntry(
        key="multilingual-minilm",
        name="paraphrase-multilingual-MiniLM-L12-v2 (embeddings, 50+ languages)",
        kind="embedding",
        licence="Apache-2.0",
        approx_bytes=480_000_000,
        files=tuple(RemoteFile(n, f"{base}/{n}", None, None) for n in names),
        note="For notes not in English; every passage is embedded again after switching.",
    )


CATALOG: tuple[CatalogEntry, ...] = (_qwen(), _llama(), _multilingual_minilm())


def find_entry(key: str, catalog: tuple[CatalogEntry, ...] = CATALOG) -> CatalogEntry:
    for entry in catalog:
        if entry.key == key:
            return entry
    known = ", ".join(e.key for e in catalog)
    raise KeyError(f"no model {key!r} in the list (choose one of: {known})")


def downloads_dir(home: Path | None = None) -> Path:
    """Where downloaded models go: `models/` in Quire's home folder."""
    return (home or paths.quire_home()) / "models"
