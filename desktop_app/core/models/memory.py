"""How much memory this machine has and roughly how much a GGUF chat model needs.

The estimate is deliberately simple: the file (llama.cpp maps the weights), plus the KV cache
for a modest context, plus a fixed margin for compute buffers and Quire's own embedder. A model
"fits" when that estimate stays within most of the total RAM (the system and other programs
keep the rest).
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from typing import Any

from desktop_app.core.answer.gguf import GgufInfo

MODEST_CONTEXT = 4096  # tokens of KV cache counted in the estimate
MARGIN_BYTES = 1 << 30  # compute buffers, the tokenizer, Quire's embedder
USABLE_SHARE = 0.8  # of total RAM; the rest is left to the system and other programs


def total_ram_bytes() -> int | None:
    """Physical memory in bytes, or None when this platform does not say."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        pass
    if sys.platform == "win32":
        return _windows_ram()
    if sys.platform == "darwin":
        try:
            out = subprocess.run(
                ["sysctl", "-n", "hw.memsize"], capture_output=True, text=True, timeout=5
            )
            return int(out.stdout.strip())
        except (OSError, ValueError, subprocess.SubprocessError):
            return None
    return None


def _windows_ram() -> int | None:

    class MemoryStatus(ctypes.Structure):
        _fields_ = [
            ("length", ctypes.c_ulong),
            ("load", ctypes.c_ulong),
            ("total_phys", ctypes.c_ulonglong),
            ("avail_phys", ctypes.c_ulonglong),
            ("total_page", ctypes.c_ulonglong),
            ("avail_page", ctypes.c_ulonglong),
            ("total_virtual", ctypes.c_ulonglong),
            ("avail_virtual", ctypes.c_ulonglong),
            ("avail_extended", ctypes.c_ulonglong),
        ]

    status = MemoryStatus()
    status.length = ctypes.sizeof(MemoryStatus)
    try:
        if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):  # type: ignore[attr-defined]
            return int(status.total_phys)
    except (AttributeError, OSError):
        pass
    return None


def _positive_int(value: Any) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


def kv_cache_bytes(info: GgufInfo, context: int) -> int:
    """f16 K and V for every layer; a tenth of the file when the header lacks the shapes."""
    md, arch = info.metadata, info.architecture
    layers = _positive_int(md.get(f"{arch}.block_count"))
    heads = _positive_int(md.get(f"{arch}.attention.head_count"))
    width = _positive_int(md.get(f"{arch}.embedding_length"))
    if not (layers and heads and width):
        return info.size_bytes // 10
    kv_heads = _positive_int(md.get(f"{arch}.attention.head_count_kv")) or heads
    key = _positive_int(md.get(f"{arch}.attention.key_length")) or width // heads
    value = _positive_int(md.get(f"{arch}.attention.value_length")) or width // heads
    return layers * context * kv_heads * (key + value) * 2


def needed_bytes(info: GgufInfo, size_bytes: int | None = None) -> int:
    context = min(info.context_length, MODEST_CONTEXT)
    return (size_bytes or info.size_bytes) + kv_cache_bytes(info, context) + MARGIN_BYTES


def fits(needed: int, ram: int | None) -> bool | None:
    return None if not ram else needed <= ram * USABLE_SHARE
