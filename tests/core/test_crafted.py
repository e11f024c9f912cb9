"""Crafted notes (issue 36): each costs time and memory in proportion to its size, fails alone
with a reason when over its budget, and never hides the good notes beside it. No timed asserts:
each test checks what the fix changes (what the tokenizer sees, the chunks' sizes, the status)."""

from __future__ import annotations

import dataclasses
import gc
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core import tokens
from desktop_app.core.ingest import (
    analysis_pool,
    budget,
    days_and_tags,
    indexer,
    markdown,
    note_analysis,
    note_file,
)
from desktop_app.core.ingest.chunker import chunk_note
from desktop_app.core.ingest.document import Document
from desktop_app.core.ingest.note_analysis import analyze_note
from desktop_app.core.ingest.note_file import NoteFailed
from desktop_app.core.store.db import Database
from desktop_app.core.tokens import RUN_SLICE, count_tokens, encoding
from tests.support.crafted import (
    FOUND,
    alias_bomb,
    data_uri,
    many_headings,
    nested_list,
    unbroken,
    write_crafted,
)

_RUN = re.compile(r"[^\W\d_]+|(?:[^\w\s]|_)+|\s+")  # the pieces byte-pair encoding keeps whole


@pytest.fixture
def tokenizer_sees(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every text the tokenizer is given while the test runs."""
    seen: list[str] = []
    enc = encoding()
    real = enc.encode

    def recording(text: str, **kwargs: Any) -> list[int]:
        seen.append(text)
        return real(text, **kwargs)

    monkeypatch.setattr(enc, "encode", recording)
    yield seen


def _longest_run(texts: list[str]) -> int:
    return max((len(m.group()) for t in texts for m in _RUN.finditer(t)), default=0)


def _note(text: str) -> Document:
    return Document(text, markdown=True, headings="")


def test_an_alias_bomb_in_front_matter_is_refused_and_the_body_indexed() -> None:
    analyzed = analyze_note("bomb.md", _note(alias_bomb()), 200)
    assert analyzed.warning == "front matter not read: it uses YAML aliases (*name)"
    assert analyzed.metadata == {} and analyzed.title == "Kept"
    assert any(FOUND in c.chunk.text for c in analyzed.chunks)


def test_a_front_matter_too_deep_or_too_large_is_not_read() -> None:
    deep = "a:\n" + "".join("  " * n + "k:\n" for n in range(1, 40))
    assert "deeper than" in markdown.read_front_matter(f"---\n{deep}---\nbody\n").problem
    flow = "a: " + "[" * 3000 + "]" * 3000 + "\n"
    assert "deeper than" in markdown.read_front_matter(f"---\n{flow}---\nbody\n").problem
    big = "k: " + "x" * (markdown.FRONT_MATTER_BYTES + 1) + "\n"
    front = markdown.read_front_matter(f"---\n{big}---\nbody\n")
    assert "longer than" in front.problem and front.body_start > len(big)
    assert markdown.read_front_matter("---\ntitle: Fine\n---\nbody\n").problem == ""


FRONT_MATTERS = [
    "title: Grüße aus Brno\ndate: 2026-02-31\ntags: [bake, {kind: bread}]\n",
    "aliases:\n  - Svíčková\n  - sauce: cream\nday: 2024-01-01 10:00:00\nn: 1e3\nok: yes\n",
    "x: |\n  a block\n  of text\nempty:\nnone: ~\nhex: 0x1F\ninf: .inf\n",
    "a: b: c\n",  # not YAML: both read nothing
    "k: !!python/object:os.system ls\n",  # a tag the safe loaders refuse
]


@pytest.mark.parametrize("raw", FRONT_MATTERS)
def test_a_plain_front_matter_read_by_libyaml_is_what_the_checked_loader_reads(raw: str) -> None:
    assert markdown._plain(raw)
    assert markdown._load_yaml(raw) == markdown._load_checked(raw)


def test_aliases_and_deep_nesting_never_reach_libyaml() -> None:
    assert not markdown._plain("a: &x [1, 2]\nb: *x\n")
    assert not markdown._plain("a: " + "[" * 25 + "]" * 25 + "\n")
    assert not markdown._plain("a:\n" + "".join("  " * n + "k:\n" for n in range(1, 12)))


def test_a_note_of_headings_only_is_chunked_to_size() -> None:
    text = many_headings(20_000)
    chunks, _ = chunk_note(text, count_tokens, 200)
    assert len(chunks) > 100
    assert max(count_tokens(c.text) for c in chunks) <= 400
    assert "".join(c.text for c in chunks).count("\n#") >= 19_000  # nothing lost


def test_an_unbroken_run_is_cut_by_length_before_the_tokenizer(tokenizer_sees: list[str]) -> None:
    text = unbroken(300_000) + " " + "x" * 100_000 + " " + "=" * 100_000
    chunks, _ = chunk_note(text, count_tokens, 200, markdown=False)
    assert _longest_run(tokenizer_sees) <= RUN_SLICE
    assert sum(len(c.text) for c in chunks) == len(text)
    assert max(count_tokens(c.text) for c in chunks) <= 400


def test_a_deeply_nested_list_never_gives_the_tokenizer_a_long_indent(
    tokenizer_sees: list[str],
) -> None:
    text = nested_list(1_000)
    chunks, _ = chunk_note(text, count_tokens, 200)
    assert _longest_run(tokenizer_sees) <= RUN_SLICE
    assert "item 999" in chunks[-1].text


def test_long_runs_are_found_window_by_window_as_one_search_finds_them() -> None:
    """Runs that straddle the search windows, end at one's edge or fill several, found as a
    single search over the whole text finds them (a search of a long note held the GIL)."""
    window = tokens._SEARCH_WINDOW
    pieces = ["x" * (window - 60), "-" * 200, "1", "y" * (3 * window), " ", "ab" * 70, "z" * 127]
    pieces += ["+/" * (2 * window), "é", "_-" * 65]
    for rotate in range(len(pieces)):
        text = "".join(pieces[rotate:] + pieces[:rotate]) * 2
        whole = [m.span() for m in tokens._LONG_RUN.finditer(text)]
        assert list(tokens._long_runs(text)) == whole
        assert len(whole) >= 4


def test_inline_tags_are_read_stretch_by_stretch_outside_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(days_and_tags, "_TAG_WINDOW", 16)
    text = (
        "Planted #garden/beans today. `#notatag` and ##no, a&#38; entity, C#\n"
        + "word " * 20
        + "#late-tag ```\n#code\n``` #after `x`#close"
    )
    assert days_and_tags.note_tags({}, text) == ["garden/beans", "late-tag", "after", "close"]


def test_reading_a_note_pauses_the_collector_and_gives_it_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[bool] = []
    real = note_analysis.chunk_terms

    def spy(*args: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args)

    monkeypatch.setattr(note_analysis, "chunk_terms", spy)
    assert gc.isenabled()
    analyze_note("n.md", _note("# A\n\ntext\n"), 200)
    assert seen == [False] and gc.isenabled()
    with budget.note_budget(1, seconds=-1.0), pytest.raises(note_file.NoteFailed):
        analyze_note("n.md", _note(many_headings(100)), 200)  # over its budget at once
    assert gc.isenabled()


def test_a_data_uri_is_not_indexed_as_text() -> None:
    text = data_uri(200_000)
    analyzed = analyze_note("trip.md", _note(text), 200)
    texts = [c.chunk.text for c in analyzed.chunks]
    assert any(FOUND in t for t in texts) and any("The end." in t for t in texts)
    assert max(len(t) for t in texts) < 1000
    assert all("base64," not in t for t in texts)
    for c in analyzed.chunks:
        assert text[c.chunk.start : c.chunk.end] == c.chunk.text
    short = "# Links\n\nA link to data:text/plain,hello shows the word.\n"
    chunks, _ = chunk_note(short, count_tokens, 200)
    assert "data:text/plain,hello" in chunks[0].text  # a short one is text like any other


def test_a_note_over_its_budget_fails_alone_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = tmp_path / "notes"
    write_crafted(notes, scale=0.05)
    (notes / "good.md").write_text("# Good\n\nThe garden note.\n", "utf-8")
    monkeypatch.setattr(budget, "TIME_PER_MB_SECONDS", 0.0)
    monkeypatch.setattr(budget, "MEMORY_EVERY", 1)
    monkeypatch.setattr(budget, "MEMORY_GROWTH_BYTES", -1)  # any note is over this budget
    report = indexer.index_folder(Database(tmp_path / "q.sqlite"), notes, indexer.IndexOptions())
    reasons = {p.path: p.reason for p in report.problems}
    assert "memory budget" in reasons["headings.md"]
    assert report.failed >= 4


def test_a_quick_reading_watches_a_notes_time_but_not_its_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = tmp_path / "n.md"
    note.write_text("# Note\n\nThe garden note.\n", "utf-8")
    read_memory: list[int] = []

    def resident_bytes() -> int:
        read_memory.append(1)
        return 0

    monkeypatch.setattr(budget, "resident_bytes", resident_bytes)
    job = analysis_pool.Job("n.md", note, 10**6, None, 200, 30, 0, quick=True)
    assert analysis_pool.read_and_analyze(job, _no_parsed_formats).whole
    assert read_memory == []  # a full reading reads it: below
    analysis_pool.read_and_analyze(dataclasses.replace(job, quick=False), _no_parsed_formats)
    assert read_memory
    monkeypatch.setattr(budget, "TIME_BASE_SECONDS", -1.0)  # any note is over this budget
    with pytest.raises(NoteFailed, match="longer than its budget"):
        analysis_pool.read_and_analyze(job, _no_parsed_formats)


def _no_parsed_formats(path: Path, max_bytes: int) -> Document:
    raise AssertionError("a text note is read as text")


def test_crafted_notes_beside_good_ones_all_get_a_status(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    write_crafted(notes, scale=0.1)
    for n in range(5):
        (notes / f"good{n}.md").write_text(f"# Good {n}\n\nSays goodword{n}.\n", "utf-8")
    database = Database(tmp_path / "q.sqlite")
    report = indexer.index_folder(database, notes, indexer.IndexOptions())
    assert report.indexed == 10 and report.failed == 0
    reasons = {p.path: p.reason for p in report.problems}
    assert reasons == {"alias-bomb.md": "front matter not read: it uses YAML aliases (*name)"}
    rows = database.query(
        "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'body : quokkabod*'"
    )
    assert rows[0][0] >= 4


# The indexer in a fresh process on the crafted notes at full size: its peak resident memory
# grows by less than the per-note cap.
_MEASURE = """
import resource, sys
from pathlib import Path
from desktop_app.core.ingest import indexer
from desktop_app.core.store.db import Database
from desktop_app.core.tokens import count_tokens
from desktop_app.core.retrieval import analyzer
count_tokens("warm"); analyzer.detect_language("warm up the language model")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
folder = Path(sys.argv[1])
report = indexer.index_folder(Database(folder.parent / "q.sqlite"), folder, indexer.IndexOptions())
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(report.indexed, report.failed, (after - before) * 1024)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KB is Linux's")
def test_a_crafted_file_cannot_grow_the_indexer_past_its_memory_cap(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    write_crafted(notes, scale=0.5)
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(notes)], capture_output=True, text=True, check=True
    )
    indexed, failed, grown = (int(v) for v in out.stdout.split())
    assert (indexed, failed) == (5, 0)
    assert grown < budget.MEMORY_GROWTH_BYTES
