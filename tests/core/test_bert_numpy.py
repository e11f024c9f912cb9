"""The NumPy encoder the installers ship gives sentence-transformers' vectors."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from desktop_app.core.retrieval import embedder as embedder_module
from desktop_app.core.retrieval.bert_numpy import NumpyBertEncoder, read_safetensors
from desktop_app.core.retrieval.embedder import Embedder, EmbedderError, bundled_model_path

TEXTS = [
    "Bake the loaf at 250 °C for the first twenty minutes.",
    "Im Garten wachsen Tomaten und Gurken.",
    "Na jaře jsem vyměnil řetěz na horském kole. " * 40,  # longer than 256 pieces: truncated
    "a",
    "",
]


def _sentence_transformers(folder: Path, texts: list[str]) -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    return model.encode(texts, batch_size=2, normalize_embeddings=True, convert_to_numpy=True)


@pytest.mark.slow  # loads the real MiniLM twice (torch and NumPy)
def test_bundled_minilm_matches_sentence_transformers() -> None:
    folder = bundled_model_path()
    ours = NumpyBertEncoder(folder).encode(TEXTS, batch_size=2)
    theirs = _sentence_transformers(folder, TEXTS)
    assert ours.shape == theirs.shape == (len(TEXTS), 384)
    assert np.abs(ours - theirs).max() < 1e-5
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_cls_pooling_and_prefixed_weights_match(tmp_path: Path) -> None:
    """A tiny random BERT with CLS pooling; its weights also saved with 'bert.' names."""
    import shutil

    import torch
    from safetensors.torch import save_file
    from transformers import BertConfig, BertModel

    torch.manual_seed(7)
    config = BertConfig(
        vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=64, max_position_embeddings=512,
    )  # fmt: skip
    model = BertModel(config).eval()
    folder = tmp_path / "tiny"
    model.save_pretrained(str(folder), safe_serialization=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        shutil.copy(bundled_model_path() / name, folder / name)
    modules = [
        {"idx": i, "name": str(i), "path": path, "type": f"sentence_transformers.models.{kind}"}
        for i, (path, kind) in enumerate(
            [("", "Transformer"), ("1_Pooling", "Pooling"), ("2_Normalize", "Normalize")]
        )
    ]
    (folder / "modules.json").write_text(json.dumps(modules), "utf-8")
    (folder / "sentence_bert_config.json").write_text('{"max_seq_length": 64}', "utf-8")
    (folder / "1_Pooling").mkdir()
    pooling = {"word_embedding_dimension": 32, "pooling_mode_cls_token": True,
               "pooling_mode_mean_tokens": False}  # fmt: skip
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling), "utf-8")
    (folder / "2_Normalize").mkdir()
    expected = _sentence_transformers(folder, TEXTS)
    assert expected.shape == (len(TEXTS), 32)
    assert np.abs(NumpyBertEncoder(folder).encode(TEXTS) - expected).max() < 1e-5
    prefixed = {f"bert.{k}": v.contiguous() for k, v in model.state_dict().items()}
    save_file(prefixed, str(folder / "model.safetensors"))
    assert np.abs(NumpyBertEncoder(folder).encode(TEXTS) - expected).max() < 1e-5
    # Without a Normalize module, vectors are normalized only when asked (as sentence-transformers).
    (folder / "modules.json").write_text(json.dumps(modules[:2]), "utf-8")
    unnormalized = NumpyBertEncoder(folder).encode(TEXTS)
    assert not np.allclose(np.linalg.norm(unnormalized, axis=1), 1.0, atol=1e-3)
    asked = NumpyBertEncoder(folder).encode(TEXTS, normalize_embeddings=True)
    assert np.abs(asked - _sentence_transformers(folder, TEXTS)).max() < 1e-5


def test_safetensors_reader_handles_each_dtype(tmp_path: Path) -> None:
    values = np.array([[1.5, -2.0], [0.25, 3.0]], dtype=np.float32)
    parts = {
        "f32": ("F32", values.tobytes()),
        "f16": ("F16", values.astype(np.float16).tobytes()),
        "bf16": ("BF16", (values.view(np.uint32) >> 16).astype(np.uint16).tobytes()),
        "i64": ("I64", np.array([[1, 2], [3, 4]], dtype=np.int64).tobytes()),
    }
    header, body = {}, b""
    for name, (dtype, raw) in parts.items():
        offsets = [len(body), len(body) + len(raw)]
        header[name] = {"dtype": dtype, "shape": [2, 2], "data_offsets": offsets}
        body += raw
    encoded = json.dumps(header).encode()
    file = tmp_path / "t.safetensors"
    file.write_bytes(struct.pack("<Q", len(encoded)) + encoded + body)
    tensors = read_safetensors(file)
    for name in ("f32", "f16", "bf16"):
        assert np.array_equal(tensors[name].astype(np.float32), values), name
    assert tensors["i64"].tolist() == [[1, 2], [3, 4]]


def test_unsupported_model_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_EMBEDDING_BACKEND", "numpy")
    folder = tmp_path / "t5-model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "t5", "d_model": 8}), "utf-8")
    with pytest.raises(EmbedderError, match="'t5' needs sentence-transformers"):
        Embedder(folder).encode(["hello"])


def test_backend_falls_back_to_numpy_without_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.delenv("QUIRE_EMBEDDING_BACKEND", raising=False)
    assert embedder_module.embedding_backend() == "sentence-transformers"
    without_torch = lambda n, *a: None if n == "torch" else real(n, *a)  # noqa: E731
    monkeypatch.setattr(embedder_module, "find_spec", without_torch)
    assert embedder_module.embedding_backend() == "numpy"
    monkeypatch.setenv("QUIRE_EMBEDDING_BACKEND", "sentence-transformers")
    assert embedder_module.embedding_backend() == "sentence-transformers"
