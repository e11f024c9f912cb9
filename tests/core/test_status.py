"""The index status: each folder's summary, counted by SQLite, adds up its files' statuses."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

from desktop_app.core.api import FileStatus, FolderSummary, NoteStatus, Quire
from desktop_app.paths import sample_notes
from tests.support.fakes import FakeEmbedder


def _added_up(files: list[FileStatus]) -> dict[str, FolderSummary]:
    """What the folder list showed when it counted every file's row itself."""
    counts: dict[str, Counter[str]] = {}
    for f in files:
        c = counts.setdefault(f.folder, Counter())
        c["notes"] += f.status in (NoteStatus.INDEXED, NoteStatus.PENDING_EMBEDDING)
        c["chunks"] += f.chunks
        c["pending"] += f.status == NoteStatus.PENDING_EMBEDDING
        c["problems"] += f.status in (NoteStatus.SKIPPED, NoteStatus.FAILED)
    return {
        folder: FolderSummary(c["notes"], c["chunks"], c["pending"], c["problems"])
        for folder, c in counts.items()
    }


def test_each_folder_s_summary_adds_up_its_files_without_listing_them(tmp_path: Path) -> None:
    waiting, mixed, empty = tmp_path / "waiting", tmp_path / "mixed", tmp_path / "empty"
    shutil.copytree(sample_notes(), waiting)
    mixed.mkdir()
    empty.mkdir()
    (mixed / "good.md").write_text("# Good\n\nA note with its vectors.\n", "utf-8")
    (mixed / "blank.md").write_text("   \n", "utf-8")  # skipped: nothing to read
    (mixed / "latin1.md").write_bytes("caf\xe9 au lait".encode("latin-1"))  # read, with a reason
    (Path(os.fsdecode(os.fsencode(mixed) + b"/caf\xe9.md"))).write_text("x", "utf-8")  # failed
    quire = Quire.open(tmp_path / "home", embedder=FakeEmbedder())
    try:
        quire.index([mixed, empty])  # with their vectors
        quire.index([waiting], embed=False)  # every passage waits for its vectors
        full = quire.status(False)
        lean = quire.status(False, list_files=False)
    finally:
        quire.close()
    files = full.listed_files()
    added_up = _added_up(files)
    assert full.folders == {**added_up, str(empty.resolve()): FolderSummary(0, 0, 0, 0)}
    waits = full.folders[str(waiting.resolve())]
    assert waits.notes > 3 and waits.pending == waits.notes and waits.chunks >= waits.notes
    assert full.folders[str(mixed.resolve())] == FolderSummary(2, 2, 0, 2)
    assert lean.files is None and (lean.folders, lean.counts) == (full.folders, full.counts)
