"""Read one note file: its size cap, its decoded bytes, its hash; why it is skipped or failed."""

from __future__ import annotations

import codecs
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

_SNIFF_BYTES = 8192
# Every byte but the control characters a text file does not hold (tab, newlines, form feed
# and escape are text): deleting these leaves the controls, counted in C.
_NOT_CONTROL = bytes(b for b in range(256) if b >= 32 or b in (9, 10, 12, 13, 27))


class NoteSkipped(Exception):
    """The file is deliberately not indexed (binary, too large, empty)."""


class NoteFailed(Exception):
    """The file should have been indexed but could not be read."""


@dataclass(frozen=True)
class DecodedNote:
    text: str
    encoding: str
    warning: str = ""


def read_note(path: Path, max_bytes: int) -> tuple[DecodedNote, bytes]:
    """Read and decode one note. Raises NoteSkipped or NoteFailed with a readable reason."""
    with reading():
        size = check_size(path, max_bytes)
        with path.open("rb") as f:
            # read(max_bytes + 1) would allocate the whole cap for every note (20 MB for a few
            # KB): read what the file holds, and on up to the cap only if it grew meanwhile
            data = f.read(size + 1)
            if len(data) > size:
                data += f.read(max_bytes + 1 - len(data))
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


def check_size(path: Path, max_bytes: int) -> int:
    """The file's size; NoteSkipped for a file over its size cap."""
    size = path.stat().st_size
    if size > max_bytes:
        raise NoteSkipped(f"too large ({size / 1e6:.1f} MB > {max_bytes / 1e6:.1f} MB limit)")
    return size


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
    controls = len(head.translate(None, _NOT_CONTROL))
    return controls / len(head) > 0.05
