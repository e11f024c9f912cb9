"""Each note's time and memory budget where it is read and chunked: one note over its budget fails
alone, with the reason, and indexing moves on to the next.

The indexer opens a budget around one note (`note_budget`); the loops that read it (the chunker's,
the lexical stage's) call `spend()`, which raises `note_file.NoteFailed` once the note has taken
longer than its time or grown the process's resident memory past `MEMORY_GROWTH_BYTES`.
Outside a budget `spend()` costs nothing and says nothing (tests, benches, a PDF's pages)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from desktop_app.core.ingest.note_file import NoteFailed

TIME_BASE_SECONDS = 20.0
TIME_PER_MB_SECONDS = 8.0
MEMORY_GROWTH_BYTES = 768 * 1024**2
MEMORY_EVERY = 64  # resident memory is read on every 64th call of `spend`


@dataclass
class Budget:
    deadline: float
    seconds: float
    memory_growth: int
    baseline: int | None  # resident bytes when the note was opened (None: not measurable)
    calls: int = field(default=0)

    def spend(self) -> None:
        self.calls += 1
        if time.monotonic() > self.deadline:
            raise NoteFailed(f"took longer than its budget of {self.seconds:.0f} s to read")
        if self.baseline is None or self.calls % MEMORY_EVERY:
            return
        grown = (resident_bytes() or 0) - self.baseline
        if grown > self.memory_growth:
            limit = self.memory_growth / 1024**2
            raise NoteFailed(f"needed more than its memory budget of {limit:.0f} MB to read")


_CURRENT: ContextVar[Budget | None] = ContextVar("note_budget", default=None)


def seconds_for(size: int) -> float:
    return TIME_BASE_SECONDS + TIME_PER_MB_SECONDS * size / 1e6


@contextmanager
def note_budget(
    size: int,
    seconds: float | None = None,
    memory_growth: int | None = None,
    watch_memory: bool = True,
) -> Iterator[Budget]:
    """A budget for reading one note of `size` bytes (the defaults: by its size);
    `watch_memory=False`: its time only (a reading whose memory is bounded by its size)."""
    allowed = seconds_for(size) if seconds is None else seconds
    growth = MEMORY_GROWTH_BYTES if memory_growth is None else memory_growth
    baseline = resident_bytes() if watch_memory else None
    budget = Budget(time.monotonic() + allowed, allowed, growth, baseline)
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)


def spend() -> None:
    """NoteFailed when the note being read is over its budget; nothing outside a budget."""
    budget = _CURRENT.get()
    if budget is not None:
        budget.spend()


def resident_bytes() -> int | None:
    """The process's resident memory now (Linux), or its peak so far (other Unix); None where
    neither can be read."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    if sys.platform == "win32":
        return None
    import resource  # noqa: PLC0415 (POSIX only)

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024
