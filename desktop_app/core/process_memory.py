"""How much memory Quire's processes hold now (resident set), for Settings: the window's own,
the vector worker's, the chat model's and the analyzer's. Read from the system without extra
packages: /proc on Linux, `ps` on macOS, the process memory counters on Windows; None where it
cannot be read."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class ProcessMemory:
    what: str  # "Quire", "passage vectors", "chat model", "note analysis"
    pid: int
    resident_bytes: int | None


def resident_bytes(pid: int) -> int | None:
    """The process's resident memory now, or None (no such process, or no way to read it)."""
    try:
        if sys.platform.startswith("linux"):
            with open(f"/proc/{pid}/statm", "rb") as statm:
                return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        if sys.platform == "win32":
            return _windows_resident(pid)
        out = subprocess.run(
            ["ps", "-o", "rss=", "-p", str(pid)], capture_output=True, text=True, timeout=5
        )
        return int(out.stdout.strip()) * 1024
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        return None


class _Counters(ctypes.Structure):
    _fields_ = [
        ("cb", ctypes.c_uint32),
        ("PageFaultCount", ctypes.c_uint32),
        ("PeakWorkingSetSize", ctypes.c_size_t),
        ("WorkingSetSize", ctypes.c_size_t),
        ("QuotaPeakPagedPoolUsage", ctypes.c_size_t),
        ("QuotaPagedPoolUsage", ctypes.c_size_t),
        ("QuotaPeakNonPagedPoolUsage", ctypes.c_size_t),
        ("QuotaNonPagedPoolUsage", ctypes.c_size_t),
        ("PagefileUsage", ctypes.c_size_t),
        ("PeakPagefileUsage", ctypes.c_size_t),
    ]


def _windows_resident(pid: int) -> int | None:
    kernel32 = ctypes.WinDLL("kernel32")  # type: ignore[attr-defined,unused-ignore]
    psapi = ctypes.WinDLL("psapi")  # type: ignore[attr-defined,unused-ignore]
    kernel32.OpenProcess.restype = ctypes.c_void_p
    handle = kernel32.OpenProcess(0x1000 | 0x0010, False, pid)  # query limited info, read
    if not handle:
        return None
    try:
        counters = _Counters()
        counters.cb = ctypes.sizeof(_Counters)
        if not psapi.GetProcessMemoryInfo(
            ctypes.c_void_p(handle), ctypes.byref(counters), counters.cb
        ):
            return None
        return int(counters.WorkingSetSize)
    finally:
        kernel32.CloseHandle(ctypes.c_void_p(handle))
