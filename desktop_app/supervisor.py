"""Runs the window in a child process and keeps what it printed when it dies natively.

A fatal error inside the interpreter or a C extension (`Fatal Python error: …`, SIGSEGV, SIGABRT)
writes its last words to the process's stderr and nowhere else: CPython turns faulthandler off
before it aborts. The parent copies the child's stderr through and, if the child ends without
`crash.clean_exit`, appends the tail to the fault log, so the next start offers a report.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
from collections import deque
from pathlib import Path
from typing import cast

from desktop_app.paths import logs_dir

SUPERVISED_ENV = "QUIRE_SUPERVISED"
TAIL_BYTES = 64_000


def window_command(argv: list[str]) -> list[str]:
    """The command that opens the window in a child: the frozen executable, or this Python."""
    if getattr(sys, "frozen", False):
        return [sys.executable, *argv]
    return [sys.executable, "-m", "desktop_app", *argv]


def run_supervised(command: list[str], home: Path) -> int:
    env = dict(os.environ, **{SUPERVISED_ENV: "1"})
    child = subprocess.Popen(command, env=env, stderr=subprocess.PIPE)
    previous_int = signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the child too
    previous_term = signal.signal(signal.SIGTERM, lambda *_: child.terminate())
    try:
        with child:  # closes the pipe
            tail = _copy_through(child)
            code = child.wait()
    finally:
        signal.signal(signal.SIGINT, previous_int)
        signal.signal(signal.SIGTERM, previous_term)
    if code != 0 and (home / "running").exists():  # the child never reached a clean exit
        _append_fault_log(home, code, tail)
    return code if code >= 0 else 128 - code


def _copy_through(child: subprocess.Popen[bytes]) -> bytes:
    assert child.stderr is not None
    stream = cast(io.BufferedReader, child.stderr)  # Popen's default buffering: read1 exists
    out = sys.stderr.buffer if sys.stderr is not None else None  # None in a windowed build
    tail: deque[bytes] = deque()
    size = 0
    while chunk := stream.read1(8192):
        if out is not None:
            with contextlib.suppress(OSError, ValueError):
                out.write(chunk)
                out.flush()
        tail.append(chunk)
        size += len(chunk)
        while size > TAIL_BYTES and len(tail) > 1:
            size -= len(tail.popleft())
    return b"".join(tail)[-TAIL_BYTES:]


def _append_fault_log(home: Path, code: int, tail: bytes) -> None:

    how = f"signal {-code} ({_signal_name(-code)})" if code < 0 else f"exit code {code}"
    text = tail.decode("utf-8", errors="replace")
    with open(logs_dir(home) / "fault.log", "a", encoding="utf-8") as log:
        log.write(f"\nQuire's window process ended with {how}. Its last output:\n{text}\n")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown"
