"""Find note files in a folder and decode them, recording why a file is skipped or failed."""

from __future__ import annotations

import codecs
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.ingest.formats import SUFFIXES as NOTE_SUFFIXES

_SNIFF_BYTES = 8192


class NoteSkipped(Exception):
    """The file is deliberately not indexed (binary, too large, empty)."""


class NoteFailed(Exception):
    """The file should have been indexed but could not be read."""


@dataclass(frozen=True)
class DecodedNote:
    text: str
    encoding: str
    warning: str = ""


def is_hidden(name: str) -> bool:
    return name.startswith(".") or name.startswith("~$")


def is_note_name(name: str, suffixes: frozenset[str] = NOTE_SUFFIXES) -> bool:
    if is_hidden(name) or name.endswith("~"):
        return False
    return os.path.splitext(name)[1].lower() in suffixes


def is_note_path(rel: str, suffixes: frozenset[str] = NOTE_SUFFIXES) -> bool:
    """A relative path is a note when no part of it is hidden and its name is a note name."""
    parts = rel.split("/")
    return is_note_name(parts[-1], suffixes) and not any(is_hidden(p) for p in parts[:-1])


def walk_notes(
    folder: Path,
    errors: list[OSError] | None = None,
    skipped: list[tuple[Path, str]] | None = None,
    suffixes: frozenset[str] = NOTE_SUFFIXES,
) -> Iterator[Path]:
    """Yield note files under `folder`, skipping hidden folders (.git, .obsidian, .trash…).

    Symlinked folders are not followed, so there are no loops and nothing outside the folder.
    Note-named entries that are not read (a link to outside, a pipe) go to `skipped` with why.
    """
    on_error = errors.append if errors is not None else None
    real = folder.resolve()
    for root, dirs, files in os.walk(folder, followlinks=False, onerror=on_error):
        dirs[:] = sorted(d for d in dirs if not is_hidden(d))
        for name in sorted(files):
            if is_note_name(name, suffixes):
                path = Path(root, name)
                reason = unsupported_reason(path, real)
                if reason is None:
                    yield path
                elif skipped is not None:
                    skipped.append((path, reason))


def unsupported_reason(path: Path, folder: Path) -> str | None:
    """Why a note-named entry is not read, or None for a regular file inside `folder`
    (`folder` resolved). A vanished file is None: reading it says so."""
    try:
        if path.is_symlink():
            target = path.resolve()
            if not _inside(target, folder):
                return "symbolic link to a file outside the folder"
            if not target.exists():
                return "broken symbolic link"
        if path.exists() and not path.is_file():
            # a FIFO or socket named .md would block a read forever
            return "not a regular file (pipe, socket or device)"
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (Python < 3.13)
        return f"cannot follow: {exc}"
    return None


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


def relative_note_path(path: Path, folder: Path) -> str:
    return path.relative_to(folder).as_posix()


def read_note(path: Path, max_bytes: int) -> tuple[DecodedNote, bytes]:
    """Read and decode one note. Raises NoteSkipped or NoteFailed with a readable reason."""
    with reading():
        check_size(path, max_bytes)
        with path.open("rb") as f:
            data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise NoteSkipped("too large (grew while reading)")
    return decode_note_bytes(data), data


def hash_file(path: Path, max_bytes: int) -> str:
    """SHA-1 of a file read in blocks (a PDF is hashed before anything extracts it)."""
    digest = hashlib.sha1()
    with reading():
        check_size(path, max_bytes)
        with path.open("rb") as f:
            while block := f.read(1 << 20):
                digest.update(block)
    return digest.hexdigest()


def check_size(path: Path, max_bytes: int) -> None:
    """NoteSkipped for a file over its size cap."""
    size = path.stat().st_size
    if size > max_bytes:
        raise NoteSkipped(f"too large ({size / 1e6:.1f} MB > {max_bytes / 1e6:.1f} MB limit)")


@contextmanager
def reading() -> Iterator[None]:
    """An OSError while reading a note as the NoteFailed that says why."""
    try:
        yield
    except PermissionError as exc:
        raise NoteFailed(f"permission denied: {exc.strerror or exc}") from exc
    except FileNotFoundError as exc:
        raise NoteFailed("file disappeared while reading") from exc
    except OSError as exc:
        raise NoteFailed(f"cannot read: {exc.strerror or exc}") from exc


def decode_note_bytes(data: bytes) -> DecodedNote:
    """Decode note bytes: BOM-aware UTF-8/UTF-16, then UTF-8, then CP1250/Latin-1 with a warning."""
    if data.startswith(codecs.BOM_UTF8):
        return _decode_strict(data, "utf-8-sig")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _decode_strict(data, "utf-16")
    if looks_binary(data):
        raise NoteSkipped("binary content")
    try:
        return DecodedNote(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    for fallback in ("cp1250", "latin-1"):
        try:
            text = data.decode(fallback)
        except UnicodeDecodeError:
            continue
        return DecodedNote(text, fallback, f"not valid UTF-8; decoded as {fallback.upper()}")
    raise NoteFailed("cannot decode text")  # unreachable: latin-1 decodes any bytes


def _decode_strict(data: bytes, encoding: str) -> DecodedNote:
    try:
        return DecodedNote(data.decode(encoding), encoding.replace("-sig", ""))
    except UnicodeDecodeError as exc:
        raise NoteFailed(f"invalid {encoding} despite its byte-order mark") from exc


def looks_binary(data: bytes) -> bool:
    """NUL bytes or many control characters in the head mean this is not a text note."""
    head = data[:_SNIFF_BYTES]
    if not head:
        return False
    if b"\x00" in head:
        return True
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13, 27))
    return controls / len(head) > 0.05
