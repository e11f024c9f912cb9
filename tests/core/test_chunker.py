from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from desktop_app.core.ingest.chunker import chunk_note, embedding_parts
from desktop_app.core.ingest.markdown import parse_markdown
from desktop_app.core.tokens import count_tokens
from tests.conftest import EVAL_DIR, MINI_EVAL_DIR, SHARED_EVAL_DIR
from tests.support.fakes import word_offsets

# The small set in the repo always; the full sets (slow) where they are.
EVAL_ROOTS = [
    pytest.param(MINI_EVAL_DIR, id="mini"),
    pytest.param(
        SHARED_EVAL_DIR,
        id="full",
        marks=[
            pytest.mark.slow,
            pytest.mark.skipif(not SHARED_EVAL_DIR.is_dir(), reason="no ../shared/eval"),
        ],
    ),
]


def eval_notes(root: Path) -> list[Path]:
    return sorted(p for p in root.glob("*/notes/**/*") if p.suffix in (".md", ".txt"))


@pytest.mark.parametrize("root", EVAL_ROOTS)
def test_eval_sets_are_present(root: Path) -> None:
    assert len(eval_notes(root)) > (3000 if root == SHARED_EVAL_DIR else 30)


@pytest.mark.parametrize("root", EVAL_ROOTS)
@pytest.mark.parametrize("set_name", ["xquad-en", "xquad-de", "ctkfacts-cs", "til-en"])
def test_offsets_round_trip_for_every_chunk_of_every_eval_note(root: Path, set_name: str) -> None:
    notes = [p for p in eval_notes(root) if p.relative_to(root).parts[0] == set_name]
    assert notes
    for path in notes:
        text = path.read_text(encoding="utf-8")
        chunks, _ = chunk_note(text, count_tokens, 200, markdown=path.suffix == ".md")
        previous_end = 0
        for chunk in chunks:
            assert text[chunk.start : chunk.end] == chunk.text, path
            assert chunk.start >= previous_end, path  # ordered, never overlapping
            previous_end = chunk.end
            assert chunk.line_start == text.count("\n", 0, chunk.start) + 1


def test_heading_path_follows_the_tree_and_front_matter_is_metadata() -> None:
    text = (
        "---\ntitle: Notes on sync\ntags: [a, b]\n---\n# Sync\n\nIntro.\n\n## Settings\n\n"
        "### Selective sync\n\n" + "Choose folders to copy. " * 60 + "\n"
    )
    chunks, meta = chunk_note(text, count_tokens, 60)
    assert meta == {"title": "Notes on sync", "tags": ["a", "b"]}
    assert all("title:" not in c.text for c in chunks)
    assert chunks[-1].heading_path == ("Sync", "Settings", "Selective sync")


def test_code_blocks_and_tables_stay_whole() -> None:
    code = "```python\n" + "\n".join(f"x{i} = {i}" for i in range(20)) + "\n\n# not a heading\n```"
    table = "| a | b |\n|---|---|\n" + "\n".join(f"| {i} | {i * 2} |" for i in range(10))
    text = f"# Title\n\nSome prose here.\n\n{code}\n\n{table}\n"
    chunks, _ = chunk_note(text, count_tokens, 200)
    assert any(code in c.text for c in chunks)
    assert any(table in c.text for c in chunks)
    assert all(c.heading_path == ("Title",) for c in chunks)


def test_oversized_text_is_split_without_losing_characters() -> None:
    text = "word " * 5000 + "\n\n" + "x" * 30000
    chunks, _ = chunk_note(text, count_tokens, 200)
    assert len(chunks) > 10
    assert all(count_tokens(c.text) <= 400 for c in chunks)
    covered = "".join(text[c.start : c.end] for c in chunks)
    assert covered.replace(" ", "").replace("\n", "") == text.replace(" ", "").replace("\n", "")


def test_tiny_sections_merge_with_their_neighbours() -> None:
    text = "# A\n\nshort.\n\n## B\n\nalso short.\n\n## C\n\ntiny.\n"
    chunks, _ = chunk_note(text, count_tokens, 200)
    assert len(chunks) == 1
    assert chunks[0].heading_path == ("A",)


def test_setext_headings_and_unclosed_fences() -> None:
    parsed = parse_markdown("Title\n=====\n\ntext\n\n```\nunclosed\n")
    kinds = [b.kind for b in parsed.blocks]
    assert kinds == ["heading", "text", "code"]
    assert parsed.blocks[1].heading_path == ("Title",)


def test_embedding_parts_cover_the_chunk_with_overlap() -> None:
    text = " ".join(f"word{i}" for i in range(600))
    chunks, _ = chunk_note(text, count_tokens, 2000)
    assert len(chunks) == 1
    parts = embedding_parts(chunks[0].start, chunks[0].text, word_offsets, 100, overlap_tokens=10)
    assert len(parts) > 3
    assert parts[0].start == 0 and parts[-1].end == len(text)
    assert [p.number for p in parts] == list(range(1, len(parts) + 1))
    assert all(p.count == len(parts) for p in parts)
    for before, after in itertools.pairwise(parts):
        assert after.start < before.end  # overlapping, so nothing falls between parts
        assert len(text[before.start : before.end].split()) <= 100


def test_short_chunk_is_one_part() -> None:
    chunks, _ = chunk_note("Just a line.", count_tokens, 200)
    parts = embedding_parts(chunks[0].start, chunks[0].text, word_offsets, 100)
    assert [(p.start, p.end, p.count) for p in parts] == [(0, 12, 1)]


@pytest.mark.slow
def test_embedding_parts_never_exceed_the_real_model_limit() -> None:
    from desktop_app.core.retrieval.embedder import Embedder

    embedder = Embedder()
    text = (EVAL_DIR / "ctkfacts-cs" / "notes" / "ctk-1119.md").read_text("utf-8") * 3
    chunks, _ = chunk_note(text, count_tokens, 2000)
    parts = embedding_parts(
        chunks[0].start, chunks[0].text, embedder.token_offsets, embedder.max_tokens - 20
    )
    assert len(parts) >= 3
    for part in parts:
        assert len(embedder.token_offsets(text[part.start : part.end])) <= embedder.max_tokens - 20
        assert part.start == 0 or text[part.start - 1].isspace()  # cut at word starts
    assert parts[-1].end == chunks[0].end


@pytest.mark.slow
def test_the_real_embedders_word_pieces_are_the_model_tokenizers() -> None:
    """Offsets come from the batch call (it lets other threads run); they must be the model's."""
    from desktop_app.core.retrieval.embedder import Embedder

    embedder = Embedder()
    for text in ("Výměna řetězu na kole.", "Größe und Süße", "git reset --soft HEAD~1", ""):
        expected = embedder.model.tokenizer(
            text, add_special_tokens=False, return_offsets_mapping=True
        )["offset_mapping"]
        assert embedder.token_offsets(text) == [tuple(o) for o in expected]
