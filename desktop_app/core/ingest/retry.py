"""How the live index recovers: background loops that restart after a crash, and writes that
wait out a full disk and are retried as soon as writing works again."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from desktop_app.core.cancel import CancelToken

RESTART_PAUSE_SECONDS = 1.0
FIRST_RETRY_SECONDS = 2.0
LONGEST_RETRY_SECONDS = 60.0


def supervised(
    loop: Callable[[], None],
    stop: CancelToken,
    on_crash: Callable[[BaseException], None],
    pause: float = RESTART_PAUSE_SECONDS,
) -> Callable[[], None]:
    """A thread target that runs `loop` and, if it dies on an exception, reports it and runs it
    again (after `pause`, so a loop that fails at once does not spin) until `stop`."""

    def run() -> None:
        while not stop.cancelled:
            try:
                loop()
                return
            except Exception as exc:
                on_crash(exc)
                deadline = time.monotonic() + pause
                while not stop.cancelled and time.monotonic() < deadline:
                    time.sleep(0.05)

    return run


class FullDiskRetry:
    """What waits for room on the disk: notes, a folder walk, an embedding pass. Retried with a
    growing pause while writes keep failing, and at once when any write succeeds again."""

    def __init__(
        self, first: float = FIRST_RETRY_SECONDS, longest: float = LONGEST_RETRY_SECONDS
    ) -> None:
        self._lock = threading.Lock()
        self._first, self._longest = first, longest
        self._delay = first
        self._next = 0.0
        self.full = False
        self.paths: set[tuple[Path, str]] = set()
        self.rescan = False
        self.embed = False

    def failed(
        self, paths: list[tuple[Path, str]] | None = None, rescan: bool = False, embed: bool = False
    ) -> bool:
        """Keep this work for later; True when the disk just became full (tell the user once)."""
        with self._lock:
            first = not self.full
            self._delay = self._first if first else min(self._delay * 2, self._longest)
            self._next = time.monotonic() + self._delay
            self.full = True
            self.paths.update(paths or [])
            self.rescan = self.rescan or rescan
            self.embed = self.embed or embed
            return first

    def succeeded(self) -> bool:
        """A write went through; True if the disk was full until now (then `take` the work)."""
        with self._lock:
            was_full, self.full = self.full, False
            return was_full

    def due(self) -> bool:
        with self._lock:
            return self.full and time.monotonic() >= self._next

    def take(self) -> tuple[set[tuple[Path, str]], bool, bool]:
        """Everything waiting (paths, rescan, embed), handed over to be tried again."""
        with self._lock:
            taken = (self.paths, self.rescan, self.embed)
            self.paths, self.rescan, self.embed = set(), False, False
            self._next = time.monotonic() + self._delay
            return taken
