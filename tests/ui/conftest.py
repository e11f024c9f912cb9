from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@pytest.fixture
def tracker() -> Iterator[tuple[str, list[str]]]:
    """A real HTTP server on loopback that records every request: notes point their "remote"
    images at it, so any fetch by any layer (Qt or Python) would show up here."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", hits
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def no_job_left_running(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails a window test that leaves a job running on Qt's thread pool after its teardown
    (threading does not see those threads end; tests/conftest.py checks Python's own)."""
    yield
    from PySide6.QtCore import QThreadPool

    pool = QThreadPool.globalInstance()
    if not pool.waitForDone(2000):
        pytest.fail(f"{request.node.nodeid} left {pool.activeThreadCount()} Qt pool jobs running")
