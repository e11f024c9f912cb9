"""Check a chat model file before handing it to llama.cpp, so a bad file gets a clear message.

Reads the GGUF header, metadata and tensor table (no weights): a git-LFS pointer, an HTML page,
an old GGML/GGJT file, a truncated download or any other non-GGUF file is named for what it is.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO

# GGUF value types → struct formats (8 is a string, 9 an array)
_SCALARS = dict(enumerate(("<B", "<b", "<H", "<h", "<I", "<i", "<f", "<?")))
_SCALARS.update({10: "<Q", 11: "<q", 12: "<d"})
_STRING, _ARRAY = 8, 9
_OLD_MAGICS = {b"lmgg": "GGML", b"fmgg": "GGMF", b"tjgg": "GGJT", b"algg": "GGLA"}


class ModelFileError(Exception):
    """The file is not a usable GGUF chat model; the message says why in plain words."""


@dataclass(frozen=True)  # shared: `inspect_model` keeps one per file
class GgufInfo:
    path: Path
    version: int
    architecture: str
    name: str
    context_length: int
    chat_template: str
    size_bytes: int
    metadata: dict[str, Any] = field(repr=False, default_factory=dict)


def inspect_model(path: Path) -> GgufInfo:
    """The model file's header, read once while the file stays as it is (the window asks for
    it on every answer and in Settings; reading a tokenizer's list takes a while in Python)."""
    if not path.exists():
        raise ModelFileError(f"model file not found: {path}")
    if not path.is_file():
        raise ModelFileError(f"not a file: {path}")
    stat = path.stat()
    return _inspect(path, stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=16)
def _inspect(path: Path, size: int, mtime_ns: int) -> GgufInfo:
    with path.open("rb") as f:
        head = f.read(512)
        _reject_known_impostors(head, size)
        f.seek(0)
        try:
            return _parse(f, path, size)
        except (struct.error, EOFError, UnicodeDecodeError, MemoryError) as exc:
            raise ModelFileError(
                f"{path.name} is a damaged or truncated GGUF file (the header ends early); "
                "download it again"
            ) from exc


def _reject_known_impostors(head: bytes, size: int) -> None:
    text = head.lstrip().lower()
    if text.startswith(b"version https://git-lfs"):
        raise ModelFileError(
            "this is a Git LFS pointer, not the model: fetch the real file with `git lfs pull` "
            "or download it directly"
        )
    if text.startswith((b"<!doctype html", b"<html", b"<?xml", b"{")):
        raise ModelFileError(
            "this is a web page or text file, not a model (the download probably saved an error "
            "or login page)"
        )
    if head[:4] in _OLD_MAGICS:
        raise ModelFileError(
            f"this is an old {_OLD_MAGICS[head[:4]]} model; llama.cpp now needs GGUF — convert it "
            "or download the GGUF version"
        )
    if head[:4] != b"GGUF":
        raise ModelFileError("not a GGUF model file (it does not start with the GGUF signature)")
    if size < 64:
        raise ModelFileError("the GGUF file is truncated (only a few bytes long)")


def _read(f: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize(fmt)
    data = f.read(size)
    if len(data) < size:
        raise EOFError
    return struct.unpack(fmt, data)[0]


def _string(f: BinaryIO) -> str:
    length = _read(f, "<Q")
    if length > 1 << 28:
        raise EOFError
    data = f.read(length)
    if len(data) < length:
        raise EOFError
    return data.decode("utf-8", errors="replace")


def _value(f: BinaryIO, kind: int) -> Any:
    if kind in _SCALARS:
        return _read(f, _SCALARS[kind])
    if kind == _STRING:
        return _string(f)
    if kind == _ARRAY:
        item_kind, count = _read(f, "<I"), _read(f, "<Q")
        if item_kind in _SCALARS:  # skip fixed-size items in one seek
            nbytes = struct.calcsize(_SCALARS[item_kind]) * count
            f.seek(nbytes, 1)
            return f"<array of {count}>"
        for _ in range(count):
            _value(f, item_kind)
        return f"<array of {count}>"
    raise EOFError  # unknown type: the file is corrupt


def _parse(f: BinaryIO, path: Path, size: int) -> GgufInfo:
    f.read(4)
    version = _read(f, "<I")
    if version not in (2, 3):
        raise ModelFileError(f"unsupported GGUF version {version}")
    n_tensors, n_kv = _read(f, "<Q"), _read(f, "<Q")
    if n_tensors > 1_000_000 or n_kv > 1_000_000:
        raise EOFError
    metadata: dict[str, Any] = {}
    for _ in range(n_kv):
        key = _string(f)
        metadata[key] = _value(f, _read(f, "<I"))
    data_end = 0
    for _ in range(n_tensors):
        _string(f)
        dims = _read(f, "<I")
        f.seek(8 * dims + 4, 1)
        data_end = max(data_end, _read(f, "<Q"))
    alignment = int(metadata.get("general.alignment", 32))
    data_start = -(-f.tell() // alignment) * alignment
    if size <= data_start + data_end:
        raise ModelFileError(
            f"{path.name} is truncated: the weights stop at {size / 1e6:.1f} MB but the tensor "
            f"table needs more than {(data_start + data_end) / 1e6:.1f} MB; download it again"
        )
    architecture = str(metadata.get("general.architecture", ""))
    return GgufInfo(
        path=path,
        version=version,
        architecture=architecture,
        name=str(metadata.get("general.name", path.stem)),
        context_length=int(metadata.get(f"{architecture}.context_length", 2048)),
        chat_template=str(metadata.get("tokenizer.chat_template", "")),
        size_bytes=size,
        metadata=metadata,
    )
