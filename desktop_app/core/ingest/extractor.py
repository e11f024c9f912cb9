"""Extraction of parsed formats (PDF, DOCX, HTML) in a worker process, so a hostile file fails
alone: a time limit per file, a memory cap on the worker (where the system has one), and a
crash of native code ends only the worker, which the next file starts again."""

from __future__ import annotations

import multiprocessing
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from desktop_app.core.cancel import Cancelled, CancelToken
from desktop_app.core.ingest import formats
from desktop_app.core.ingest.document import Document
from desktop_app.core.ingest.loaders import NoteFailed, NoteSkipped

TIMEOUT_SECONDS = 60.0  # a 2,000-page PDF takes a few seconds
POLL_SECONDS = 0.1  # how often a waiting run looks at its cancel token
MEMORY_BYTES = 2 * 1024**3


class Extractor:
    """Loads files in one long-lived worker process (started when first needed)."""

    def __init__(
        self, timeout: float = TIMEOUT_SECONDS, memory: int = MEMORY_BYTES,
        cancel: CancelToken | None = None,
    ) -> None:  # fmt: skip
        self.timeout = timeout
        self.memory = memory
        self.cancel = cancel  # a stop or pause does not wait for a long extraction
        self._process: Any = None
        self._conn: Connection | None = None

    def load(self, path: Path, max_bytes: int) -> Document:
        """The file's Document; NoteSkipped / NoteFailed say why not."""
        conn = self._connection()
        conn.send((str(path), max_bytes))
        if not self._wait(conn):
            self.close()
            raise NoteFailed(f"extraction took longer than {self.timeout:.0f} s "
                             "(damaged or endless file?)")  # fmt: skip
        try:
            status, value = conn.recv()
        except (EOFError, OSError):
            code = self._process.exitcode if self._process is not None else None
            self.close()
            raise NoteFailed(f"the extractor stopped on this file (exit code {code}): "
                             "damaged or hostile file?") from None  # fmt: skip
        if status == "ok":
            return Document(**value)
        raise (NoteSkipped if status == "skipped" else NoteFailed)(value)

    def _wait(self, conn: Connection) -> bool:
        """Whether the answer came within the time limit; Cancelled (the worker stopped) if
        the run was cancelled meanwhile."""
        deadline = time.monotonic() + self.timeout
        while not conn.poll(min(POLL_SECONDS, max(0.0, deadline - time.monotonic()))):
            if self.cancel is not None and self.cancel.cancelled:
                self.close()
                raise Cancelled
            if time.monotonic() >= deadline:
                return False
        return True

    def _connection(self) -> Connection:
        if self._process is None or not self._process.is_alive() or self._conn is None:
            self.close()
            context = multiprocessing.get_context("spawn")  # no fork of a threaded process
            parent, child = context.Pipe()
            process = context.Process(
                target=serve, args=(child, self.memory), name="quire-extractor", daemon=True
            )
            try:
                process.start()
            except Exception as exc:  # e.g. no new process from inside a worker's bootstrap
                parent.close()
                raise NoteFailed(f"cannot start the extractor process: {exc}") from exc
            finally:
                child.close()
            self._process, self._conn = process, parent
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._process is not None:
            if self._process.is_alive():
                self._process.kill()
            self._process.join(5)
            self._process = None

    def __enter__(self) -> Extractor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve(conn: Connection, memory: int) -> None:
    """The worker: load each path sent, send back ("ok", fields) or (status, reason)."""
    _cap_memory(memory)
    while True:
        try:
            path, max_bytes = conn.recv()
        except (EOFError, OSError):
            return
        conn.send(_extract(Path(path), max_bytes, memory))


def _extract(path: Path, max_bytes: int, memory: int) -> tuple[str, Any]:
    try:
        document = formats.load(path, max_bytes)
    except NoteSkipped as exc:
        return "skipped", str(exc)
    except NoteFailed as exc:
        return "failed", str(exc)
    except MemoryError:
        return "failed", f"needs more than {memory // 1024**2} MB to extract (decompression bomb?)"
    except RecursionError:
        return "failed", "nested too deeply to extract (crafted file?)"
    except Exception as exc:
        return "failed", f"cannot extract: {type(exc).__name__}: {exc}"
    return "ok", document.__dict__


def _cap_memory(memory: int) -> None:
    if sys.platform == "win32":  # no address-space limit there: the time limit still holds
        return
    import resource

    try:
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = memory if hard == resource.RLIM_INFINITY else min(memory, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ValueError, OSError):
        pass
