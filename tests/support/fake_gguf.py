"""Small GGUF files with real headers (metadata and a tensor table, a few bytes of weights)."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import TypedDict, Unpack

_U32, _STR = 4, 8


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def _kv(key: str, value: int | str) -> bytes:
    if isinstance(value, str):
        return _string(key) + struct.pack("<I", _STR) + _string(value)
    return _string(key) + struct.pack("<I", _U32) + struct.pack("<I", value)


def gguf_bytes(
    arch: str = "llama",
    name: str = "Fake model",
    context: int = 4096,
    file_type: int | None = 15,
    layers: int = 2,
    width: int = 64,
    heads: int = 4,
    kv_heads: int = 2,
    weights: int = 256,
) -> bytes:
    meta: dict[str, int | str] = {"general.architecture": arch, "general.name": name,
        f"{arch}.context_length": context, f"{arch}.block_count": layers,
        f"{arch}.embedding_length": width, f"{arch}.attention.head_count": heads,
        f"{arch}.attention.head_count_kv": kv_heads}  # fmt: skip
    if file_type is not None:
        meta["general.file_type"] = file_type
    head = b"GGUF" + struct.pack("<IQQ", 3, 1, len(meta))
    head += b"".join(_kv(k, v) for k, v in meta.items())
    head += _string("token_embd.weight") + struct.pack("<IQIQ", 1, weights // 4, 0, 0)
    head += bytes(-len(head) % 32)
    return head + bytes(weights)


class GgufFields(TypedDict, total=False):
    """`gguf_bytes`' keyword arguments."""

    arch: str
    name: str
    context: int
    file_type: int | None
    layers: int
    width: int
    heads: int
    kv_heads: int
    weights: int


def write_gguf(path: Path, **kwargs: Unpack[GgufFields]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gguf_bytes(**kwargs))
    return path
