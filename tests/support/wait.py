"""The one way a test waits for something another thread does: poll until it is true."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(condition: Callable[[], bool], what: str = "", timeout: float = 30.0) -> None:
    """Return once `condition()` is true; fail with `what` if it is still false after `timeout`
    seconds (a bound on a hang, not a measurement: nothing asserts how long it took)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {timeout:.0f} s: {what or condition}")
        time.sleep(0.05)
