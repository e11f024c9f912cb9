"""The one SQLite database: connection set-up, migrations, and the single serialized writer."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import sqlite_utils

from desktop_app.core.store.migrations import MIGRATIONS, Migration

BUSY_TIMEOUT_MS = 10_000
SQLITE_FULL = 13


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


class Database:
    """Owns the writer connection (one writer, serialized by a lock) and per-thread readers."""

    def __init__(self, path: Path, migrations: list[Migration] | None = None) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._writer = connect(path)
        self._writer.execute("PRAGMA journal_mode = WAL")
        self._write_lock = threading.RLock()
        self._local = threading.local()
        self._readers: list[sqlite_utils.Database] = []
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

    @property
    def reader(self) -> sqlite_utils.Database:
        """A read connection private to the calling thread (WAL readers never block the writer)."""
        db = getattr(self._local, "db", None)
        if db is None:
            db = connect(self.path)
            self._local.db = db
            self._readers.append(db)
        return db

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
        rows = self.reader.execute("SELECT name FROM migrations ORDER BY name").fetchall()
        return [r[0] for r in rows]

    def close(self) -> None:
        for db in self._readers:
            db.conn.close()
        self._readers.clear()
        self._local = threading.local()
        self._writer.conn.close()
