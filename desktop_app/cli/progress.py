"""A small progress bar for stderr (redrawn in place on a terminal, sparse lines otherwise).

Drawn with block characters where the stream can encode them, in ASCII where it cannot (a
legacy code page, or a stream whose encoding is unknown).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from desktop_app.core.api import Phase, Progress

_LABELS = {
    Phase.INDEX: "Indexing",
    Phase.PARTS: "Preparing passages",
    Phase.EMBED: "Embedding",
    Phase.OCR: "Reading scanned pages",
    Phase.DOWNLOAD: "Downloading",
}
_BLOCKS = ("█", "·", "…")
_ASCII = ("#", "-", "...")


def can_encode(stream: TextIO, text: str) -> bool:
    """Whether `stream` can write `text` as it is (no replacement characters or escapes)."""
    try:
        text.encode(getattr(stream, "encoding", None) or "ascii")
    except (LookupError, UnicodeEncodeError):
        return False
    return True


class ProgressBar:
    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = self.stream.isatty()
        self.full, self.empty, self.more = (
            _BLOCKS if can_encode(self.stream, "".join(_BLOCKS)) else _ASCII
        )
        self._last_draw = 0.0
        self._phase: Phase | None = None

    def __call__(self, progress: Progress) -> None:
        now = time.monotonic()
        finished = progress.total and progress.done >= progress.total
        interval = 0.1 if self.tty else 2.0
        if progress.phase == self._phase and not finished and now - self._last_draw < interval:
            return
        if progress.phase != self._phase and self._phase and self.tty:
            self.stream.write("\n")
        self._phase = progress.phase
        self._last_draw = now
        self.stream.write(self._render(progress) + ("\r" if self.tty else "\n"))
        self.stream.flush()

    def _render(self, p: Progress) -> str:
        label = _LABELS[p.phase]
        if not p.total:
            return f"{label}{self.more}"
        filled = int(self.width * p.done / p.total)
        bar = self.full * filled + self.empty * (self.width - filled)
        detail = f" {p.detail[-40:]}" if p.detail else ""
        return f"{label} [{bar}] {p.done}/{p.total}{detail}".ljust(100)[:100]

    def close(self) -> None:
        if self._phase and self.tty:
            self.stream.write("\n")
            self.stream.flush()
