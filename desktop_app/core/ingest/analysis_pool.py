"""Notes read and analyzed ahead of the writer in worker processes: every core works on the
first index of a large folder, and the process that writes (the window's) never runs a long
analysis holding its interpreter lock.

`read_and_analyze` is one file's whole reading (its content hash, its text, its chunks and
terms) wherever it runs. `Ahead` submits the text notes of one indexing run to a pool of
worker processes, started like the extractor and the vector worker (`processes.context()`),
one per core; the indexer takes each note's reading in its own order. A worker that dies (a
note that ended its interpreter, the system out of memory) breaks the pool: the files not
analyzed yet are read in the indexer's process, as without a pool.

A parsed format (PDF, DOCX, web page), once the extractor has extracted it, is analyzed by the
`Analyzer`'s one long-lived worker; `ParsedRun` is one run's use of it (and reads the run's few
text notes here).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from desktop_app.core import processes
from desktop_app.core.cancel import Cancelled, CancelToken
from desktop_app.core.ingest import budget, formats, note_file
from desktop_app.core.ingest.document import Document
from desktop_app.core.ingest.formats.plain import text_document
from desktop_app.core.ingest.note_analysis import AnalyzedNote, analyze_note, analyze_whole

MIN_FILES = 64  # fewer notes to read than this are read in the indexer's process: no pool
MAX_WORKERS = 4
BATCH = 16  # notes a worker reads per task: the pool's cost per task is not small
QUICK_BATCH = 64  # a quick reading's notes are one passage each: more of them to a task
PACKED_CHUNKS = 64  # a piece is unpickled in one call, holding the interpreter lock
# A note this large is a task of its own: the pool's thread unpickles a task's answer in one
# call, and a batch of large notes' readings can be a hundred megabytes.
ALONE_FROM_BYTES = 1_000_000
# Tasks submitted and not yet taken by the writer, and their notes' bytes: the readings come
# back to the writer's process (the window's) and wait there until taken.
AHEAD_TASKS = 8
AHEAD_BYTES = 16_000_000
# A longer note is read in full even by a quick reading: one passage that long points at
# nothing precisely, and its terms are computed a passage at a time, never all at once.
WHOLE_AT_MOST = 100_000
# A parsed format's analysis is waited for as long as its note's time budget and this: the
# analyzer's own budget fails the note first, unless native code holds it past every check.
ANSWER_SLACK_SECONDS = 30.0
POLL_SECONDS = 0.1  # how often a wait for the analyzer looks at the run's cancel token
IDLE_SECONDS = 60.0  # the analyzer's worker ends this long after its last note
Extract = Callable[[Path, int], Document]


@dataclass(frozen=True)
class Job:
    """One note to read: where, its limits, and the hash it had when it was last indexed."""

    rel: str
    path: Path
    max_bytes: int
    known_hash: str | None  # an indexed note's content hash: the same content is not analyzed
    chunk_tokens: int
    size: int
    mtime_ns: int
    quick: bool = False  # the first, quick reading of a large first index (`analyze_whole`)


@dataclass(frozen=True)
class NoteRead:
    """The note's content hash, and its text and analysis unless the hash was `known_hash`."""

    content_hash: str
    document: Document | None = None
    analyzed: AnalyzedNote | None = None
    whole: bool = False  # read quickly, the whole note one passage (`analyze_whole`)


def read_and_analyze(job: Job, extract: Extract) -> NoteRead:
    """Read and analyze one note (`extract` reads a parsed format); NoteSkipped or NoteFailed
    say why a note has no text to index."""
    content_hash, loaded = content(job.path, job.max_bytes)
    if content_hash == job.known_hash:
        return NoteRead(content_hash)
    return reading_of(job, content_hash, loaded or extract(job.path, job.max_bytes))


def reading_of(job: Job, content_hash: str, document: Document) -> NoteRead:
    """The note's reading from its text (NoteSkipped for a note without any)."""
    if not document.text.strip():
        raise note_file.NoteSkipped("empty note")
    whole = job.quick and len(document.text) <= WHOLE_AT_MOST
    # one note over its budget fails alone; a whole note's one passage cannot grow past
    # a few times its size, so only its time is watched
    with budget.note_budget(job.size, watch_memory=not whole):
        if whole:
            analyzed = analyze_whole(job.rel, document)
        else:
            analyzed = analyze_note(job.rel, document, job.chunk_tokens, job.mtime_ns)
    return NoteRead(content_hash, document, analyzed, whole)


def content(path: Path, max_bytes: int) -> tuple[str, Document | None]:
    """The file's content hash, and its Document when it is a text note (read once); a
    parsed format is extracted only when its hash changed."""
    if formats.suffix_of(path.name) in formats.ISOLATED:
        return note_file.hash_file(path, max_bytes), None
    decoded, raw = note_file.read_note(path, max_bytes)
    return hashlib.sha1(raw).hexdigest(), text_document(path.name, decoded)


def _read_text_notes(jobs: list[Job]) -> list[list[bytes] | Exception | None]:
    """In a worker: each job's reading, packed (`_pack`), or why its note has none (one bad
    note fails alone). `Ahead` sets a reading it has handed on to None."""
    out: list[list[bytes] | Exception | None] = []
    for job in jobs:
        try:
            out.append(_pack(read_and_analyze(job, _no_extractor)))
        except Exception as exc:
            out.append(exc)
    return out


def _pack(read: NoteRead) -> list[bytes]:
    """The reading pickled in pieces of at most PACKED_CHUNKS chunks: the pool's thread only
    receives bytes, and the indexer unpickles a large note a piece at a time, never holding
    the interpreter lock (the window's) for the whole of it."""
    chunks = read.analyzed.chunks if read.analyzed is not None else []
    if len(chunks) <= PACKED_CHUNKS:
        return [pickle.dumps(read, pickle.HIGHEST_PROTOCOL)]
    head = replace(read, analyzed=replace(read.analyzed, chunks=[])) if read.analyzed else read
    pieces = [chunks[i : i + PACKED_CHUNKS] for i in range(0, len(chunks), PACKED_CHUNKS)]
    return [pickle.dumps(head, pickle.HIGHEST_PROTOCOL)] + [
        pickle.dumps(piece, pickle.HIGHEST_PROTOCOL) for piece in pieces
    ]


def _unpack(packed: list[bytes]) -> NoteRead:
    head: NoteRead = pickle.loads(packed[0])
    if head.analyzed is None or len(packed) == 1:
        return head
    chunks = [chunk for piece in packed[1:] for chunk in pickle.loads(piece)]
    return replace(head, analyzed=replace(head.analyzed, chunks=chunks))


def _batches(jobs: list[Job], size: int) -> Iterator[list[Job]]:
    """`jobs` in tasks of `size` in their order, a large note alone."""
    batch: list[Job] = []
    for job in jobs:
        if job.size >= ALONE_FROM_BYTES:
            if batch:
                yield batch
                batch = []
            yield [job]
            continue
        batch.append(job)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _no_extractor(path: Path, max_bytes: int) -> Document:
    raise note_file.NoteFailed("a parsed format is read by the extractor, not here")


class Ahead:
    """Text notes read by worker processes a few tasks ahead of the indexer, which takes each
    note's reading in the order of `jobs` (asking for a later one moves the reading ahead)."""

    def __init__(self, jobs: list[Job], workers: int | None = None) -> None:
        count = workers or min(MAX_WORKERS, os.cpu_count() or 1)
        self._pool = ProcessPoolExecutor(count, mp_context=processes.context())
        size = QUICK_BATCH if jobs and jobs[0].quick else BATCH
        self._tasks = list(_batches(jobs, size))
        self._where = {
            job.rel: (t, n) for t, task in enumerate(self._tasks) for n, job in enumerate(task)
        }
        self._bytes = [sum(job.size for job in task) for task in self._tasks]
        self._futures: dict[int, Future[list[list[bytes] | Exception | None]]] = {}
        self._taken = 0  # the task the indexer takes from; the ones before it are dropped
        self._submitted = 0  # tasks submitted so far; those from `_taken` on wait in `_futures`
        self.broken = ""  # why the pool stopped, once it did
        self._submit_ahead()

    def _submit_ahead(self) -> None:
        """Submit the next tasks while few enough wait (always the one taken from)."""
        self._submitted = max(self._submitted, self._taken)
        held = sum(self._bytes[self._taken : self._submitted])
        try:
            with processes.lean_main():  # the first submits start the workers
                while self._submitted < len(self._tasks) and (
                    self._submitted == self._taken
                    or (self._submitted - self._taken < AHEAD_TASKS and held < AHEAD_BYTES)
                ):
                    task = self._submitted
                    self._futures[task] = self._pool.submit(_read_text_notes, self._tasks[task])
                    held += self._bytes[task]
                    self._submitted += 1
        except (OSError, RuntimeError, BrokenProcessPool) as exc:  # no worker could start
            self._stopped(exc)

    def analyzer(self, here: Callable[[Job], NoteRead]) -> Callable[[Job], NoteRead]:
        """`analyze(job)`: the worker's reading of a job submitted as it is, else `here(job)`
        (a note changed since, one not submitted, or the pool stopped)."""

        def analyze(job: Job) -> NoteRead:
            where = self._where.pop(job.rel, None)
            if where is None or self._tasks[where[0]][where[1]] != job or self.broken:
                return here(job)
            self._take_from(where[0])
            future = self._futures.get(where[0])
            if future is None:  # the pool stopped before it was submitted
                return here(job)
            try:
                readings = future.result()
            except BrokenProcessPool as exc:
                self._stopped(exc)
                return here(job)
            except Exception:  # a task whose answer could not come back: read here
                return here(job)
            read, readings[where[1]] = readings[where[1]], None  # held no longer than needed
            if isinstance(read, Exception):
                raise read
            if read is None:  # never: a job's place is given out once (`_where.pop`)
                return here(job)
            return _unpack(read)

        return analyze

    def _take_from(self, task: int) -> None:
        """The indexer has moved on to `task`: drop the answers before it, submit more."""
        if task <= self._taken:  # the indexer takes in order: an earlier task is done
            return
        for done in range(self._taken, task):
            future = self._futures.pop(done, None)
            if future is not None:
                future.cancel()
        self._taken = task
        self._submit_ahead()

    def _stopped(self, exc: BaseException) -> None:
        self.broken = self.broken or f"the note readers stopped ({type(exc).__name__}: {exc})"

    def close(self) -> None:
        """Drop what was not taken and end the workers (one may be deep in a large note), then
        the pool's own threads."""
        workers = dict(getattr(self._pool, "_processes", None) or {})  # the pool has no kill
        for process in workers.values():
            if process.is_alive():
                process.kill()
        # A worker killed while sending left half an answer, which the pool's thread would
        # wait for forever: with this process's copy of the pipe's writing end closed, the
        # thread reads the end of the pipe instead once the workers are gone.
        answers = getattr(self._pool, "_result_queue", None)
        if answers is not None:
            answers._writer.close()
        self._pool.shutdown(wait=True, cancel_futures=True)


def ahead_of(jobs: list[Job]) -> Ahead | None:
    """A pool reading `jobs` ahead, or None when they are too few to be worth one."""
    return Ahead(jobs) if len(jobs) >= MIN_FILES else None


class Analyzer:
    """The worker process that analyzes parsed formats' documents (PDF, DOCX, web pages): the
    indexer's process, the window's, only passes the extractor's bytes on and takes each reading
    back in pieces (`ParsedRun`).

    One worker serves every indexing run (`shared_analyzer`): it reads the analysis's models
    (language, tokens: about a second) once, not once a run, and ends by itself `IDLE_SECONDS`
    after its last note, so an idle Quire holds nothing for it. A worker that cannot start
    leaves the analysis to the indexer's process (`broken` says why)."""

    def __init__(self) -> None:
        self._process: Any = None
        self._conn: Connection | None = None
        self.lock = threading.Lock()  # held by the run using the worker: one run at a time
        # whether the worker still runs is asked from other threads too (`pid`): two threads
        # reaping one process at once could read a wrong exit code
        self._reaping = threading.Lock()
        self.broken = ""
        self.started_by = ""
        self.starts = 0

    def run(
        self, expected: list[Job], extract: Callable[[Path, int], bytes], cancel: CancelToken
    ) -> ParsedRun:
        """One indexing run's readings (`expected`: its parsed formats to read, in order;
        `extract`: a file's Document's fields, pickled, from the run's extractor)."""
        return ParsedRun(self, expected, extract, cancel)

    def connection(self) -> Connection | None:
        """The worker's pipe (started now if it is not running), None once it cannot start."""
        if self.broken:
            return None
        if not self.running():
            self.close()
            try:
                self._process, (self._conn,), self.started_by = processes.started(
                    _serve_analysis, (IDLE_SECONDS,), "quire-analyzer"
                )
            except Exception as exc:
                self.broken = f"the analyzer cannot start ({type(exc).__name__}: {exc})"
                return None
            self.starts += 1
        return self._conn

    def running(self) -> bool:
        """Whether the worker runs (its pipe open)."""
        with self._reaping:
            process = self._process
            return process is not None and process.is_alive() and self._conn is not None

    def ended(self) -> int | None:
        """The stopped worker's exit code (0: it ended, idle), once it is gone."""
        process = self._process
        with self._reaping:
            if process is not None:
                process.join(1.0)
            code = process.exitcode if process is not None else None
        self.close()
        return code if isinstance(code, int) else None

    @property
    def pipe(self) -> Connection | None:
        """The running worker's pipe, never a new worker's."""
        return self._conn

    @property
    def pid(self) -> int | None:
        """The worker's process id while it runs."""
        process = self._process
        with self._reaping:
            return process.pid if process is not None and process.is_alive() else None

    def close(self) -> None:
        with self._reaping:
            processes.stop(self._process, self._conn)
            self._process, self._conn = None, None


@dataclass(frozen=True)
class _Sent:
    """A note in the analyzer's pipe; its bytes are kept until it is answered, for a new
    worker if this one ends first."""

    job: Job
    content_hash: str
    fields: bytes


class ParsedRun:
    """A note's reading for one indexing run: a text note read in the indexer's process, a
    parsed format's analyzed by the analyzer's worker, with the next expected one sent as soon
    as this one is answered (the extractor is further ahead still), so the worker reads it
    while the indexer writes this one; one note at a time is in the pipe, so neither side can
    block the other writing. A worker that stops on a note, or takes longer than the
    note's time, fails that note only: the notes behind it go to a new worker. A second run
    while one uses the worker, or a worker that cannot start, analyzes here."""

    def __init__(
        self,
        analyzer: Analyzer,
        expected: list[Job],
        extract: Callable[[Path, int], bytes],
        cancel: CancelToken,
    ) -> None:
        self._analyzer, self._extract, self._cancel = analyzer, extract, cancel
        self._after = {job: expected[n + 1] for n, job in enumerate(expected[:-1])}
        self._sent: deque[_Sent] = deque()  # in the pipe; answers come in this order
        # a note ahead that needs no worker, why it has no reading, or one to read here
        self._early: dict[Job, NoteRead | Exception | _Sent] = {}
        self._owns = False  # holds the analyzer's lock (until `close`)

    def read(self, job: Job) -> NoteRead:
        """As `read_and_analyze`; NoteSkipped or NoteFailed say why a note has no text."""
        if formats.suffix_of(job.path.name) not in formats.ISOLATED:
            return read_and_analyze(job, _no_extractor)
        found = (
            self._early.pop(job, None)
            or next((s for s in self._sent if s.job == job), None)
            or self._prepare(job)
        )
        if isinstance(found, _Sent) and not any(s is found for s in self._sent):
            self._drop_unasked()
            if not self._send(found):
                found = self._here(found)  # no worker for it
        if isinstance(found, _Sent):
            found = self._answer_for(found)
        self._send_next(job)  # analyzed while this one is written
        if isinstance(found, Exception):
            raise found
        return found

    def _prepare(self, job: Job) -> NoteRead | _Sent:
        """The note's content hash, and the extractor's bytes unless its content is known."""
        content_hash = note_file.hash_file(job.path, job.max_bytes)
        if content_hash == job.known_hash:
            return NoteRead(content_hash)
        return _Sent(job, content_hash, self._extract(job.path, job.max_bytes))

    def _drop_unasked(self) -> None:
        """Read and drop the answers to notes sent ahead and then not asked for (changed
        since): the pipe holds one note at a time. A note sent while the worker sends its
        answer to another could leave both blocked writing to a full pipe."""
        while self._sent:
            self._answer_for(self._sent[-1])

    def _send_next(self, job: Job) -> None:
        """The expected note after `job`, sent once `job` is answered, so the worker reads it
        while the indexer writes `job`; what needs no worker, or why it has no reading, waits
        for its turn."""
        after = self._after.get(job)
        if after is None or not self._owns or after in self._early:
            return
        if any(s.job == after for s in self._sent):
            return
        try:
            prepared = self._prepare(after)
        except Cancelled:
            raise
        except Exception as exc:  # said when its turn comes
            self._early[after] = exc
            return
        if isinstance(prepared, NoteRead) or not self._send(prepared):
            self._early[after] = prepared

    def _send(self, sent: _Sent) -> bool:
        """Send a note to the worker (started if need be, again if it had stopped); False when
        no worker can have it (it is read here)."""
        if not self._owns:
            if not self._analyzer.lock.acquire(blocking=False):
                return False  # another run uses the worker
            self._owns = True
        if self._send_once(sent):
            return True
        self._stopped()
        return self._send_once(sent)

    def _send_once(self, sent: _Sent) -> bool:
        conn = self._analyzer.connection()
        if conn is None:
            return False
        try:
            conn.send((sent.job, sent.content_hash))
            conn.send_bytes(sent.fields)
        except OSError:
            return False
        self._sent.append(sent)
        return True

    def _answer_for(self, sent: _Sent) -> NoteRead | Exception:
        """The worker's reading of `sent` (the answers before it are dropped), or why it has
        none."""
        while any(s is sent for s in self._sent):
            head = self._sent[0]
            answer = self._received(head)
            if answer is None:
                continue  # the worker stopped: `head` failed, the rest went to a new one
            self._sent.popleft()
            if head is sent:
                return answer if isinstance(answer, Exception) else _unpack(answer)
        left = self._early.pop(sent.job)  # its worker stopped: why, or it is read here
        return self._here(left) if isinstance(left, _Sent) else left

    @staticmethod
    def _here(sent: _Sent) -> NoteRead:
        return reading_of(sent.job, sent.content_hash, Document(**pickle.loads(sent.fields)))

    def _received(self, head: _Sent) -> list[bytes] | Exception | None:
        """The worker's answer for `head`, None when the worker stopped meanwhile."""
        seconds = budget.seconds_for(head.job.size) + ANSWER_SLACK_SECONDS
        deadline = time.monotonic() + seconds
        conn = self._analyzer.pipe  # the worker `head` went to (a stopped one's pipe reads EOF)
        try:
            if conn is None:
                raise EOFError
            while not conn.poll(min(POLL_SECONDS, max(0.0, deadline - time.monotonic()))):
                if self._cancel.cancelled:
                    self._sent.clear()
                    self._analyzer.close()  # a stop or pause does not wait for an analysis
                    raise Cancelled
                if time.monotonic() >= deadline:
                    self._analyzer.close()
                    why = f"its analysis took longer than {seconds:.0f} s (crafted file?)"
                    self._restart(note_file.NoteFailed(why))
                    return None
            raw = conn.recv_bytes()
        except (EOFError, OSError):
            self._stopped()
            return None
        try:
            answer: list[bytes] | Exception = pickle.loads(raw)
        except Exception as exc:  # read whole: the next answer is still the next note's
            return note_file.NoteFailed(
                f"its analysis could not be read back ({type(exc).__name__}: {exc})"
            )
        return answer

    def _stopped(self) -> None:
        """The worker has stopped: the note it was reading fails, unless it had ended idle."""
        code = self._analyzer.ended()
        why = f"the analysis stopped on this file (exit code {code}): hostile file?"
        self._restart(None if code == 0 else note_file.NoteFailed(why))

    def _restart(self, head_failed: Exception | None) -> None:
        """The note the gone worker was reading fails with `head_failed`; the ones behind it
        go to a new worker (or are read here when their turn comes)."""
        if head_failed is not None and self._sent:
            self._early[self._sent.popleft().job] = head_failed
        rest, self._sent = list(self._sent), deque()
        for sent in rest:
            if not self._send_once(sent):
                self._early[sent.job] = sent

    def close(self) -> None:
        """End the run: a note sent and never asked for ends the worker (its answer must not
        reach the next run), and the worker is free for the next run."""
        if self._sent:
            self._sent.clear()
            self._analyzer.close()
        if self._owns:
            self._owns = False
            self._analyzer.lock.release()


_SHARED: list[Analyzer] = []
_SHARED_LOCK = threading.Lock()


def shared_analyzer() -> Analyzer:
    """The one analyzer of this process (its worker starts with the first parsed format)."""
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(Analyzer())
        return _SHARED[0]


def _serve_analysis(conn: Connection, idle_seconds: float) -> None:
    """The analyzer's worker: for each (job, content hash) and pickled Document fields sent,
    send back the packed reading, or the exception that says why there is none. It ends when
    no note came for `idle_seconds`, or its pipe closed."""
    while True:
        try:
            if not conn.poll(idle_seconds):
                return
            job, content_hash = conn.recv()
            fields = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            document = Document(**pickle.loads(fields))
            del fields
            read = reading_of(job, content_hash, document)
            # the layout's lines were read for the passages: the indexer has no use for them
            read = replace(read, document=replace(document, lines=()))
            answer: list[bytes] | Exception = _pack(read)
        except Exception as exc:
            answer = exc
        try:
            sent = pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # an exception that cannot travel: its words can
            failed = note_file.NoteFailed(f"{type(answer).__name__}: {answer} ({exc})")
            sent = pickle.dumps(failed, pickle.HIGHEST_PROTOCOL)
        conn.send_bytes(sent)
