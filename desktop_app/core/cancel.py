"""Cooperative cancellation and progress reporting for long core operations."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass


class Cancelled(Exception):
    """Raised inside a core operation when its CancelToken was cancelled."""


class CancelToken:
    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise Cancelled()


@dataclass(frozen=True)
class Progress:
    phase: str  # "index", "parts" (sizing passages for the embedder) or "embed"
    done: int
    total: int
    detail: str = ""


ProgressCallback = Callable[[Progress], None]


def no_progress(_: Progress) -> None:
    return None
