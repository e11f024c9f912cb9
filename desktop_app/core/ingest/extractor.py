"""Extraction of parsed formats (PDF, DOCX, HTML) in a worker process, so a hostile file fails
alone: a time limit per file, a memory cap on the worker (where the system has one), and a
crash of native code ends only the worker, which the next file starts again.

Given the files a run expects to load (`expect`), the worker reads ahead: while the caller
chunks and writes one file, the worker extracts the next ones (two cores, two stages)."""

from __future__ import annotations

import pickle
import sys
import time
from collections.abc import Callable
from enum import StrEnum
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from desktop_app.core import processes
from desktop_app.core.cancel import Cancelled, CancelToken
from desktop_app.core.ingest import formats
from desktop_app.core.ingest.document import Document, PageRead
from desktop_app.core.ingest.note_file import NoteFailed, NoteSkipped


class Extracted(StrEnum):
    """How the worker's extraction of one file went (sent back over the pipe with its value)."""

    OK = "ok"  # the value: a Document's fields, pickled (received as one bytes object)
    PAGE = "page"  # OCR read a page of the file in hand (its time limit starts again)
    SKIPPED = "skipped"  # the value: why (not a note)
    FAILED = "failed"  # the value: why (damaged, hostile, too big)


# Far beyond what a long PDF needs: only a stuck extraction meets it. A page OCR reads starts
# the time again, so a long scan takes its time while one stuck page still fails.
TIMEOUT_SECONDS = 60.0
# Files sent ahead to the worker: more than one, so a file the worker is quick on does not
# leave it idle while the caller is slow on another.
READ_AHEAD = 2
POLL_SECONDS = 0.1  # how often a waiting run looks at its cancel token
MEMORY_BYTES = 2 * 1024**3

Request = tuple[str, int]  # (path, size cap in bytes)


class Extractor:
    """Loads files in one long-lived worker process (started when first needed)."""

    def __init__(
        self,
        timeout: float = TIMEOUT_SECONDS,
        memory: int = MEMORY_BYTES,
        cancel: CancelToken | None = None,
        ocr_languages: tuple[str, ...] = (),
    ) -> None:
        self.timeout = timeout
        self.ocr_languages = ocr_languages  # pictures and pages without text: () leaves them
        self.on_page: Callable[[Path, int, int], None] | None = None  # (file, page, of pages)
        self.memory = memory
        self.cancel = cancel  # a stop or pause does not wait for a long extraction
        self._process: Any = None
        self._conn: Connection | None = None
        self._expected: list[Request] = []
        self._next: dict[Request, int] = {}  # where the read-ahead goes on after each request
        self._cursor = 0  # the position in `_expected` of the next request to send ahead
        self._in_flight: list[Request] = []  # sent to the worker, answers not read yet
        self.started_by = ""  # how the last worker was started: "forkserver" or "spawn"

    def expect(self, files: list[tuple[Path, int]]) -> None:
        """The files (path, size cap) the caller will probably load, in order; the worker
        starts on the first now. A file loaded out of order or never loaded costs only time."""
        if self._in_flight:
            self.close()  # answers to an earlier list: nobody will ask for them in order
        self._expected = [(str(path), cap) for path, cap in files]
        self._next = {request: n + 1 for n, request in enumerate(self._expected)}
        self._cursor = 0
        self._read_ahead()

    def load(self, path: Path, max_bytes: int) -> Document:
        """The file's Document; NoteSkipped / NoteFailed say why not."""
        return Document(**pickle.loads(self.load_pickled(path, max_bytes)))

    def load_pickled(self, path: Path, max_bytes: int) -> bytes:
        """The file's Document's fields, pickled: passed on to another worker (the analyzer)
        as they are, nothing of them is built here."""
        request = (str(path), max_bytes)
        conn = self._conn if self._skip_to(request) else None
        if conn is None:
            if self._in_flight:
                self.close()  # a fresh worker is quicker than extractions nobody asked for
            conn = self._connection()
            conn.send((*request, self.ocr_languages))
        try:
            return self._answer(conn, path)
        finally:
            self._cursor = max(self._cursor, self._next.get(request, 0))
            self._read_ahead()

    def _skip_to(self, request: Request) -> bool:
        """Whether `request` was sent ahead and its answer is next in the pipe: the answers
        before it (files the caller did not load after all: unchanged content) are dropped
        if they are there already; one still being extracted is not waited for."""
        if request not in self._in_flight or self._conn is None:
            return False
        before = self._in_flight.index(request)
        try:
            while before:
                if not self._conn.poll(0):
                    return False
                if self._conn.recv()[0] != Extracted.PAGE:
                    self._in_flight.pop(0)
                    before -= 1
        except (EOFError, OSError):
            self.close()
            return False
        self._in_flight.pop(0)
        return True

    def _read_ahead(self) -> None:
        """Keep `READ_AHEAD` expected files sent: answers come back in the order sent. A worker
        that has stopped is left to the next load, which reads the answers it sent first."""
        if self._process is not None and not self._process.is_alive():
            return
        while len(self._in_flight) < READ_AHEAD and self._cursor < len(self._expected):
            if self.cancel is not None and self.cancel.cancelled:
                return
            try:
                self._connection().send((*self._expected[self._cursor], self.ocr_languages))
            except (NoteFailed, OSError):
                self.close()  # each file's own load says why, in order
                return
            self._in_flight.append(self._expected[self._cursor])
            self._cursor += 1

    def _answer(self, conn: Connection, path: Path) -> bytes:
        status: Extracted = Extracted.PAGE
        value: Any = None
        while status == Extracted.PAGE:
            if not self._wait(conn):
                self.close()
                raise NoteFailed(
                    f"extraction took longer than {self.timeout:.0f} s (damaged or endless file?)"
                )
            status, value = self._received(conn)
            if status == Extracted.PAGE and self.on_page is not None:
                try:
                    self.on_page(path, *value)
                except BaseException:  # the rest of this file's answer stays in the pipe
                    self.close()
                    raise
        if status == Extracted.OK:
            return value  # the pickled fields (bytes)
        raise (NoteSkipped if status == Extracted.SKIPPED else NoteFailed)(value)

    def _received(self, conn: Connection) -> tuple[Extracted, Any]:
        try:
            status, value = conn.recv()
        except (EOFError, OSError):
            code = self._process.exitcode if self._process is not None else None
            self.close()
            raise NoteFailed(
                f"the extractor stopped on this file (exit code {code}): damaged or hostile file?"
            ) from None
        return Extracted(status), value

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
            try:
                self._process, (self._conn,), self.started_by = processes.started(
                    serve, (self.memory,), "quire-extractor"
                )
            except Exception as exc:
                raise NoteFailed(f"cannot start the extractor process: {exc}") from exc
        return self._conn

    def close(self) -> None:
        """Stop the worker; what was sent ahead is sent again, in order, to the next one."""
        lost = [self._next[r] - 1 for r in self._in_flight if r in self._next]
        self._cursor = min([self._cursor, *lost])
        self._in_flight = []
        processes.stop(self._process, self._conn)
        self._conn = None
        self._process = None

    def __enter__(self) -> Extractor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve(conn: Connection, memory: int) -> None:
    """The worker: load each path sent, send back (OK, fields) or (SKIPPED / FAILED, reason)."""
    _cap_memory(memory)
    while True:
        try:
            path, max_bytes, languages = conn.recv()
        except (EOFError, OSError):
            return
        on_page = lambda page, pages: conn.send((Extracted.PAGE, (page, pages)))  # noqa: E731
        conn.send(_extract(Path(path), max_bytes, memory, languages, on_page))


def _extract(
    path: Path,
    max_bytes: int,
    memory: int,
    languages: tuple[str, ...] = (),
    on_page: PageRead | None = None,
) -> tuple[Extracted, Any]:
    failed = Extracted.FAILED
    try:
        document = formats.load(path, max_bytes, languages, on_page)
    except NoteSkipped as exc:
        return Extracted.SKIPPED, str(exc)
    except NoteFailed as exc:
        return failed, str(exc)
    except MemoryError:
        return failed, f"needs more than {memory // 1024**2} MB to extract (decompression bomb?)"
    except RecursionError:
        return failed, "nested too deeply to extract (crafted file?)"
    except Exception as exc:
        return failed, f"cannot extract: {type(exc).__name__}: {exc}"
    return Extracted.OK, pickle.dumps(document.as_fields(), pickle.HIGHEST_PROTOCOL)


def _cap_memory(memory: int) -> None:
    if sys.platform == "win32":  # no address-space limit there: the time limit still holds
        return
    import resource  # noqa: PLC0415 (POSIX only)

    try:
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = memory if hard == resource.RLIM_INFINITY else min(memory, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ValueError, OSError):
        pass
