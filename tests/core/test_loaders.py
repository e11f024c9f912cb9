from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from desktop_app.core.ingest.loaders import walk_notes
from desktop_app.core.ingest.note_file import NoteFailed, NoteSkipped, decode_note_bytes, read_note


def test_decodes_utf8_with_and_without_bom() -> None:
    assert decode_note_bytes("Příliš".encode()).text == "Příliš"
    decoded = decode_note_bytes(codecs.BOM_UTF8 + "Ärger".encode())
    assert decoded.text == "Ärger" and not decoded.warning


def test_decodes_utf16_with_bom() -> None:
    assert decode_note_bytes("Grüße aus Brno".encode("utf-16")).text == "Grüße aus Brno"


def test_cp1250_czech_falls_back_with_a_warning() -> None:
    decoded = decode_note_bytes("Žluťoučký kůň úpěl".encode("cp1250"))
    assert decoded.text == "Žluťoučký kůň úpěl"
    assert decoded.encoding == "cp1250"
    assert "UTF-8" in decoded.warning


def test_binary_content_is_skipped() -> None:
    with pytest.raises(NoteSkipped, match="binary"):
        decode_note_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")


def test_too_large_file_is_skipped(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    big.write_text("a" * 2000, "utf-8")
    with pytest.raises(NoteSkipped, match="too large"):
        read_note(big, max_bytes=1000)


def _growing_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, more: str) -> Path:
    """A note of one line that grows by `more` right after `read_note` has read its size."""
    from desktop_app.core.ingest import note_file

    note = tmp_path / "growing.md"
    note.write_text("first line\n", "utf-8")
    checked = note_file.check_size

    def check_then_grow(p: Path, max_bytes: int) -> int:
        size = checked(p, max_bytes)
        with p.open("a", encoding="utf-8") as f:
            f.write(more)
        return size

    monkeypatch.setattr(note_file, "check_size", check_then_grow)
    return note


def test_a_note_that_grows_while_read_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = _growing_note(tmp_path, monkeypatch, "second line\n" * 50)
    decoded, raw = read_note(note, max_bytes=1000)
    assert decoded.text == "first line\n" + "second line\n" * 50
    assert raw == note.read_bytes()


def test_a_note_that_grows_past_its_cap_while_read_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = _growing_note(tmp_path, monkeypatch, "x" * 2000)
    with pytest.raises(NoteSkipped, match="grew while reading"):
        read_note(note, max_bytes=1000)


def test_walk_skips_hidden_folders_attachments_and_editor_files(notes_dir: Path) -> None:
    (notes_dir / "draft.md~").write_text("backup", "utf-8")
    (notes_dir / ".#lock.md").write_text("lock", "utf-8")
    found = sorted(p.relative_to(notes_dir).as_posix() for p in walk_notes(notes_dir))
    assert found == ["garten.txt", "kolo.md", "sync/settings.md"]


def test_a_file_that_disappears_while_being_read_fails_cleanly(tmp_path: Path) -> None:
    with pytest.raises(NoteFailed, match="disappeared"):
        read_note(tmp_path / "gone.md", max_bytes=1000)


def test_named_pipes_are_never_opened(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "real.md").write_text("text", "utf-8")
    assert [p.name for p in walk_notes(tmp_path)] == ["real.md"]
