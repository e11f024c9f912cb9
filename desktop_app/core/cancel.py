"""Cooperative cancellation and progress reporting for long core operations."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Cancelled(Exception):
    """Raised inside a core operation when its CancelToken was cancelled."""


class CancelToken:
    def __init__(self, event: Any = None, within: CancelToken | None = None) -> None:
        """`event`: one shared with another process (a worker's `multiprocessing` Event);
        `within`: a token whose cancel cancels this one too (a part of a larger job)."""
        self._event = event if event is not None else threading.Event()
        self._within = within

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set() or (self._within is not None and self._within.cancelled)

    def raise_if_cancelled(self) -> None:
        if self.cancelled:
            raise Cancelled()


class Phase(StrEnum):
    """What a long operation is doing (the values are what `--json` and the logs show)."""

    INDEX = "index"
    PARTS = "parts"  # sizing passages for the embedder
    EMBED = "embed"
    DOWNLOAD = "download"
    OCR = "ocr"  # a scan's pages read by OCR (`detail`: the file)


@dataclass(frozen=True)
class Progress:
    phase: Phase
    done: int
    total: int
    detail: str = ""


ProgressCallback = Callable[[Progress], None]


def no_progress(_: Progress) -> None:
    return None
