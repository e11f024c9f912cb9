"""The one SQLite database: connection set-up, migrations, and the single serialized writer."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import sqlite_utils

from desktop_app.core.store.migrations import MIGRATIONS, Migration

BUSY_TIMEOUT_MS = 10_000
SQLITE_FULL = 13
READERS = 4  # read connections open at most; a fifth reader waits for one to come back


class DiskFull(Exception):
    """A write failed because the disk holding the database is full; nothing was committed
    by that write, everything committed before is kept."""

    def __init__(self, database: Path) -> None:
        self.folder = database.parent
        super().__init__(
            f"the disk is full: free some space on the drive of {self.folder} (where Quire keeps "
            "its index); nothing indexed so far is lost"
        )


def is_disk_full(exc: BaseException) -> bool:
    if not isinstance(exc, sqlite3.Error):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    return (code is not None and code & 0xFF == SQLITE_FULL) or "disk is full" in str(exc)


def connect(path: Path) -> sqlite_utils.Database:
    conn = sqlite3.connect(
        str(path), isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
    )
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = NORMAL")
    db = sqlite_utils.Database(conn)
    return db


def fts5_available() -> bool:
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()
    return True


class NewerDatabaseError(RuntimeError):
    """The database was migrated by a newer Quire: this version must not write to it."""


class ReaderPool:
    """At most `size` read connections to one file, checked out for one read and given back
    after (WAL readers never block the writer). A thread that already holds one gets the same
    one again, so nested reads never wait for each other. `close` closes the idle ones at once
    and the others as they come back (a read after it opens a new one, as the first did)."""

    def __init__(self, path: Path, size: int = READERS) -> None:
        self._path = path
        self._size = size
        self._idle: list[sqlite_utils.Database] = []
        self._open = 0
        self._generation = 0  # moved by close(): connections of an older one are not reused
        self._born: dict[int, int] = {}  # id of each open connection -> its generation
        self._changed = threading.Condition()
        self._held = threading.local()

    @property
    def open_connections(self) -> int:
        with self._changed:
            return self._open

    @contextmanager
    def connection(self) -> Iterator[sqlite_utils.Database]:
        held: sqlite_utils.Database | None = getattr(self._held, "db", None)
        if held is not None:
            yield held
            return
        db = self._check_out()
        self._held.db = db
        try:
            yield db
        finally:
            self._held.db = None
            self._give_back(db)

    def _check_out(self) -> sqlite_utils.Database:
        with self._changed:
            while not self._idle and self._open >= self._size:
                self._changed.wait()
            if self._idle:
                return self._idle.pop()
            self._open += 1
            generation = self._generation
        try:
            db = connect(self._path)
        except BaseException:
            with self._changed:
                self._open -= 1
                self._changed.notify()
            raise
        with self._changed:
            self._born[id(db)] = generation
        return db

    def _give_back(self, db: sqlite_utils.Database) -> None:
        with self._changed:
            if self._born.get(id(db)) == self._generation:
                self._idle.append(db)
                self._changed.notify()
                return
        self._close(db)

    def _close(self, db: sqlite_utils.Database) -> None:
        db.conn.close()
        with self._changed:
            self._born.pop(id(db), None)
            self._open -= 1
            self._changed.notify()

    def close(self) -> None:
        with self._changed:
            self._generation += 1
            idle, self._idle = self._idle, []
        for db in idle:
            self._close(db)


class Database:
    """Owns the writer connection (one writer, serialized by a lock) and a pool of readers."""

    def __init__(self, path: Path, migrations: list[Migration] | None = None) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._writer = connect(path)
        self._writer.execute("PRAGMA journal_mode = WAL")
        self._write_lock = threading.RLock()
        self.readers = ReaderPool(path)
        self.apply_migrations(MIGRATIONS if migrations is None else migrations)

    @contextmanager
    def write(self) -> Iterator[sqlite_utils.Database]:
        """One write transaction (BEGIN IMMEDIATE … COMMIT), serialized across threads.
        A full disk raises DiskFull (the original error is its cause)."""
        with self._write_lock:
            conn = self._writer.conn
            try:
                conn.execute("BEGIN IMMEDIATE")
                yield self._writer
                conn.execute("COMMIT")
            except BaseException as exc:
                # SQLite may have rolled back already (e.g. a full disk, or a failed COMMIT):
                # a second ROLLBACK would hide the real error behind "no transaction is active".
                if conn.in_transaction:
                    with suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                if is_disk_full(exc):
                    raise DiskFull(self.path) from exc
                raise

    def read(self) -> contextlib.AbstractContextManager[sqlite_utils.Database]:
        """A read connection of the pool for the `with` block (the same one when nested)."""
        return self.readers.connection()

    def query(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        """Every row of one read statement (tests and tools; the app's reads are in store/)."""
        with self.read() as db:
            return db.execute(sql, parameters).fetchall()

    def apply_migrations(self, migrations: list[Migration]) -> list[str]:
        applied: list[str] = []
        with self.write() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at REAL)"
            )
            done = {row[0] for row in db.execute("SELECT name FROM migrations").fetchall()}
        newer = sorted(done - {name for name, _ in migrations})
        if newer:
            self.close()
            raise NewerDatabaseError(
                f"{self.path} was written by a newer version of Quire (schema {newer[-1]}); "
                "install that version again, or set QUIRE_HOME to use another data folder. "
                "The database was not changed."
            )
        for name, migrate in migrations:
            if name in done:
                continue
            with self.write() as db:
                migrate(db)
                db.execute(
                    "INSERT INTO migrations (name, applied_at) VALUES (?, ?)", (name, time.time())
                )
            applied.append(name)
        return applied

    def applied_migrations(self) -> list[str]:
        return [r[0] for r in self.query("SELECT name FROM migrations ORDER BY name")]

    def close(self) -> None:
        self.readers.close()
        self._writer.conn.close()
