"""A sentence-transformers BERT encoder in NumPy: the embedding backend of the installers.

torch alone is two thirds of an installer, and a BERT forward pass is a few matrix products.
This runs the same model folder as sentence-transformers (Transformer → mean or CLS pooling →
Normalize) for the BERT family (`model_type: bert`, e.g. the bundled MiniLM and
paraphrase-multilingual-MiniLM); tests check its vectors against sentence-transformers.
"""

from __future__ import annotations

import json
import os
import struct
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from desktop_app.core.retrieval.packed_e5 import PackedModel, Q4Rows

SUPPORTED_TYPES = ("bert",)
BATCH_TOKENS = 512
_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}


class UnsupportedModel(Exception):
    """The folder holds a model this encoder cannot run (it needs sentence-transformers)."""


def read_safetensors(file: Path) -> dict[str, np.ndarray]:
    """Every tensor of a .safetensors file as a float32 (or integer) array."""
    data = file.read_bytes()
    (header_size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_size])
    body = memoryview(data)[8 + header_size :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        raw = body[start:end]
        if info["dtype"] == "BF16":  # the upper half of a float32
            array = (np.frombuffer(raw, np.uint16).astype(np.uint32) << 16).view(np.float32)
        elif info["dtype"] in _DTYPES:
            array = np.frombuffer(raw, _DTYPES[info["dtype"]])
        else:
            raise UnsupportedModel(f"{file.name}: tensor type {info['dtype']} is not supported")
        tensors[name] = array.reshape(info["shape"])
    return tensors


_ERF_P = 0.3275911
_ERF_A = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26: |error| < 1.5e-7, below float32 noise in the activations.
    # Written with in-place operations: the intermediate layer is the largest array by far.
    t = np.abs(x)
    t *= _ERF_P
    t += 1.0
    np.reciprocal(t, out=t)
    poly = np.full_like(x, _ERF_A[0])
    for coefficient in _ERF_A[1:]:
        poly *= t
        poly += coefficient
    poly *= t
    square = np.square(x)
    np.negative(square, out=square)
    np.exp(square, out=square)
    poly *= square
    np.subtract(1.0, poly, out=poly)
    poly *= np.sign(x)
    return poly


def _gelu(x: np.ndarray) -> np.ndarray:
    result = _erf(x * np.float32(1 / np.sqrt(2.0)))
    result += 1.0
    result *= x
    result *= 0.5
    return result


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    centered = x - mean
    variance = (centered * centered).mean(-1, keepdims=True)
    return centered / np.sqrt(variance + eps) * weight + bias


@dataclass(frozen=True)
class _Linear:
    weight_t: np.ndarray  # (in, out), contiguous for the matrix product
    bias: np.ndarray

    def __call__(self, x: np.ndarray) -> np.ndarray:
        # A 2-D product: NumPy hands stacked (3-D) products to BLAS far less efficiently.
        flat = np.ascontiguousarray(x).reshape(-1, x.shape[-1]) @ self.weight_t
        flat += self.bias
        return flat.reshape(*x.shape[:-1], -1)


@dataclass(frozen=True)
class _Layer:
    query: _Linear
    key: _Linear
    value: _Linear
    attention_out: _Linear
    attention_norm: tuple[np.ndarray, np.ndarray]
    intermediate: _Linear
    output: _Linear
    output_norm: tuple[np.ndarray, np.ndarray]


class NumpyBertEncoder:
    """`encode(texts, batch_size=…, normalize_embeddings=…)` → one pooled float32 row per text,
    normalized when the model ends in Normalize or the caller asks (as sentence-transformers)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        config = json.loads((folder / "config.json").read_text("utf-8"))
        if config.get("model_type") not in SUPPORTED_TYPES:
            raise UnsupportedModel(
                f"model type {config.get('model_type')!r} needs sentence-transformers, "
                "which this build does not include"
            )
        self.pooling, self.normalize = _pipeline(folder)
        self.max_length = min(_max_seq_length(folder), int(config["max_position_embeddings"]))
        weights = _weights(folder)
        self._setup(
            int(config["num_attention_heads"]),
            float(config.get("layer_norm_eps", 1e-12)),
            _tokenizer(folder, self.max_length),
            weights.pop("embeddings.word_embeddings.weight"),
            weights,
        )

    @classmethod
    def from_packed(cls, model: PackedModel, file: Path) -> NumpyBertEncoder:
        """multilingual-e5-small from its packed 4-bit file (`packed_e5`): mean pooling,
        normalized; its word table stays packed."""
        encoder = cls.__new__(cls)
        encoder.folder = file
        encoder.pooling, encoder.normalize = "mean", True
        encoder.max_length = model.max_positions
        weights = model.bert_weights()
        encoder._setup(
            model.heads,
            model.eps,
            model.tokenizer,  # shared with the embedder; `encode` cuts to max_length
            model.word_rows(),
            weights,
        )
        return encoder

    def _setup(
        self,
        heads: int,
        eps: float,
        tokenizer: Any,
        word: np.ndarray | Q4Rows,
        weights: dict[str, np.ndarray],
    ) -> None:
        self.heads, self.eps, self.tokenizer, self.word = heads, eps, tokenizer, word
        self.position = weights["embeddings.position_embeddings.weight"]
        self.token_type = weights["embeddings.token_type_embeddings.weight"]
        self.embed_norm = _norm(weights, "embeddings.LayerNorm")
        count = 1 + max(int(n.split(".")[2]) for n in weights if n.startswith("encoder.layer."))
        self.layers = [_layer(weights, f"encoder.layer.{i}") for i in range(count)]

    def encode(
        self,
        texts: list[str],
        batch_size: int = 32,
        normalize_embeddings: bool = False,
        **_: Any,  # sentence-transformers' output options: this always returns float32 NumPy
    ) -> np.ndarray:
        """Batches of similar length run on one thread per core, each with a one-thread BLAS:
        NumPy's element-wise steps use a single core, and a multi-threaded BLAS under several
        callers oversubscribes the cores, and small products then wait on each other's
        threads."""
        from threadpoolctl import threadpool_limits

        pieces = [self._cut(e.ids) for e in self.tokenizer.encode_batch(list(texts))]
        batches = _batches([len(p) for p in pieces], batch_size)
        out = np.zeros((len(texts), self.word.shape[1]), dtype=np.float32)
        workers = max(1, min(len(batches), os.cpu_count() or 1, 4))
        with threadpool_limits(1), ThreadPoolExecutor(workers) as pool:
            vectors = pool.map(lambda b: self._encode_batch([pieces[i] for i in b]), batches)
            for chosen, rows in zip(batches, vectors, strict=True):
                out[chosen] = rows
        if self.normalize or normalize_embeddings:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out

    def _cut(self, ids: list[int]) -> list[int]:
        """A text's word pieces cut to max_length, its closing special token kept (as the
        tokenizer's own truncation does: the packed model's tokenizer is shared and cuts
        nothing)."""
        return ids if len(ids) <= self.max_length else ids[: self.max_length - 1] + ids[-1:]

    def _encode_batch(self, texts: list[list[int]]) -> np.ndarray:
        """One batch of texts given as word-piece ids (one sequence each: token type 0)."""
        length = max(len(pieces) for pieces in texts)
        ids = np.zeros((len(texts), length), dtype=np.int64)
        mask = np.zeros((len(texts), length), dtype=np.float32)
        for row, pieces in enumerate(texts):
            ids[row, : len(pieces)], mask[row, : len(pieces)] = pieces, 1.0
        hidden = self.word[ids] + self.position[:length] + self.token_type[0]
        hidden = _layer_norm(hidden, *self.embed_norm, self.eps)
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        for layer in self.layers:
            hidden = self._layer(layer, hidden, bias)
        return self._pool(hidden, mask)

    def _layer(self, layer: _Layer, hidden: np.ndarray, bias: np.ndarray) -> np.ndarray:
        batch, length, width = hidden.shape
        size = width // self.heads

        def heads(x: np.ndarray) -> np.ndarray:
            split = x.reshape(batch, length, self.heads, size).transpose(0, 2, 1, 3)
            return np.ascontiguousarray(split)

        q, k, v = heads(layer.query(hidden)), heads(layer.key(hidden)), heads(layer.value(hidden))
        q *= np.float32(1 / np.sqrt(size))  # scaled before the product: the scores are L² each
        scores = q @ k.transpose(0, 1, 3, 2)
        scores += bias
        scores -= scores.max(-1, keepdims=True)
        np.exp(scores, out=scores)
        scores *= np.reciprocal(scores.sum(-1, keepdims=True))
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, width)
        hidden = _layer_norm(layer.attention_out(context) + hidden, *layer.attention_norm, self.eps)
        inner = _gelu(layer.intermediate(hidden))
        return _layer_norm(layer.output(inner) + hidden, *layer.output_norm, self.eps)

    def _pool(self, hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if self.pooling == "cls":
            pooled = hidden[:, 0]
        else:
            summed = (hidden * mask[:, :, None]).sum(1)
            pooled = summed / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled.astype(np.float32)


def _batches(lengths: list[int], most: int) -> list[list[int]]:
    """Texts of similar length together, each batch at most `most` texts and BATCH_TOKENS word
    pieces (padding included): a small batch keeps a layer's arrays in the processor's cache,
    and NumPy's element-wise steps, which dominate, run several times faster there."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches: list[list[int]] = []
    for i in order:  # ascending: a text is the longest of its batch so far
        if (
            batches
            and len(batches[-1]) < most
            and (len(batches[-1]) + 1) * lengths[i] <= BATCH_TOKENS
        ):
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


def _pipeline(folder: Path) -> tuple[str, bool]:
    """(pooling, normalize) from modules.json and the pooling config."""
    modules_file = folder / "modules.json"
    modules = json.loads(modules_file.read_text("utf-8")) if modules_file.is_file() else []
    kinds = {m["type"].rsplit(".", 1)[-1]: m.get("path", "") for m in modules}
    unknown = set(kinds) - {"Transformer", "Pooling", "Normalize"}
    if unknown:
        raise UnsupportedModel(f"modules {sorted(unknown)} need sentence-transformers")
    pooling = "mean"
    if "Pooling" in kinds:
        config = json.loads((folder / kinds["Pooling"] / "config.json").read_text("utf-8"))
        if config.get("pooling_mode_cls_token"):
            pooling = "cls"
        elif not config.get("pooling_mode_mean_tokens", True):
            raise UnsupportedModel("only mean or CLS pooling is supported without torch")
    return pooling, "Normalize" in kinds


def _max_seq_length(folder: Path) -> int:
    file = folder / "sentence_bert_config.json"
    config = json.loads(file.read_text("utf-8")) if file.is_file() else {}
    return int(config.get("max_seq_length", 512))


def _tokenizer(folder: Path, max_length: int) -> Any:
    from tokenizers import Tokenizer

    file = folder / "tokenizer.json"
    if not file.is_file():
        raise UnsupportedModel(f"{folder} has no tokenizer.json")
    tokenizer = Tokenizer.from_file(str(file))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_length)
    return tokenizer


def _weights(folder: Path) -> dict[str, np.ndarray]:
    file = folder / "model.safetensors"
    if not file.is_file():
        raise UnsupportedModel(f"{folder} has no model.safetensors")
    tensors = read_safetensors(file)
    # Some exports prefix every name with the architecture ("bert.embeddings…").
    return {
        name.removeprefix("bert."): array.astype(np.float32) if array.dtype.kind == "f" else array
        for name, array in tensors.items()
    }


def _linear(weights: dict[str, np.ndarray], prefix: str) -> _Linear:
    weight, bias = weights[f"{prefix}.weight"], weights[f"{prefix}.bias"]  # float32 already
    return _Linear(np.ascontiguousarray(weight.T), bias)


def _norm(weights: dict[str, np.ndarray], prefix: str) -> tuple[np.ndarray, np.ndarray]:
    return weights[f"{prefix}.weight"], weights[f"{prefix}.bias"]


def _layer(weights: dict[str, np.ndarray], prefix: str) -> _Layer:
    return _Layer(
        query=_linear(weights, f"{prefix}.attention.self.query"),
        key=_linear(weights, f"{prefix}.attention.self.key"),
        value=_linear(weights, f"{prefix}.attention.self.value"),
        attention_out=_linear(weights, f"{prefix}.attention.output.dense"),
        attention_norm=_norm(weights, f"{prefix}.attention.output.LayerNorm"),
        intermediate=_linear(weights, f"{prefix}.intermediate.dense"),
        output=_linear(weights, f"{prefix}.output.dense"),
        output_norm=_norm(weights, f"{prefix}.output.LayerNorm"),
    )
