"""Is the index file healthy? The checks run on their own connection, before (or beside) the
one the app uses, and never raise: every failure becomes a problem in the answer."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

HEADER = b"SQLite format 3\x00"
SQLITE_BUSY, SQLITE_LOCKED, SQLITE_CORRUPT, SQLITE_NOTADB = 5, 6, 11, 26
# "cheap": header and schema (as fast at any size); "quick": PRAGMA quick_check and FTS5's
# integrity-check besides (grows with the index); "full": PRAGMA integrity_check instead of
# quick_check (also checks every index's content).
LEVELS = ("cheap", "quick", "full")
# Up to this size an open runs the quick check; above it only the cheap one, and the quick one
# runs later (in the background in the window, or when `index`, `status` or `repair` open it).
QUICK_ON_OPEN_MAX_BYTES = 64_000_000
# The FTS5 check is an INSERT, so it waits for the write lock; another process that is writing
# (the window indexing) makes it skip rather than wait or look like damage.
FTS_CHECK_WAIT_SECONDS = 0.5
# Tables the first migration creates; a file that recorded it but lacks one is not our index.
REQUIRED_TABLES = ("folders", "notes", "chunks", "chunks_fts", "embeddings", "meta")
_CORRUPT_WORDS = ("malformed", "not a database", "corrupt", "fts5:", "unsupported file format")


class IndexDamaged(Exception):
    """The index file is damaged; the problems say how."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems) or "the index is damaged")
        self.problems = problems


@dataclass
class Health:
    ok: bool
    problems: list[str] = field(default_factory=list)
    check: str = "quick"  # one of LEVELS
    seconds: float = 0.0

    def to_json(self) -> dict[str, object]:
        seconds = round(self.seconds, 3)
        return {"ok": self.ok, "problems": self.problems, "check": self.check, "seconds": seconds}


def is_corruption(exc: BaseException) -> bool:
    """An SQLite error that means a damaged file (not a busy lock or a bad query)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return True
    text = str(exc).lower()
    return any(word in text for word in _CORRUPT_WORDS)


def is_busy(exc: BaseException) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (SQLITE_BUSY, SQLITE_LOCKED)
    return "locked" in str(exc) or "busy" in str(exc)


def sidecar(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def check_file(path: Path, level: str = "quick") -> Health:
    """The header, then (see LEVELS) SQLite's own check, the schema, and FTS5's integrity-check
    of every full-text table. A missing file is healthy (a new index)."""
    start = time.perf_counter()
    problems = header_problems(path)
    if not problems and path.exists():
        problems = _sqlite_problems(path, level)
    return Health(not problems, problems, level, time.perf_counter() - start)


def level_on_open(path: Path) -> str:
    try:
        size = path.stat().st_size
    except OSError:
        return "quick"
    return "quick" if size <= QUICK_ON_OPEN_MAX_BYTES else "cheap"


def header_problems(path: Path) -> list[str]:
    """What the first 100 bytes and the file size say (milliseconds, whatever the size)."""
    try:
        if not path.exists():
            return []
        size = path.stat().st_size
        wal = sidecar(path, "-wal")
        wal_size = wal.stat().st_size if wal.exists() else 0
        with path.open("rb") as f:
            head = f.read(100)
    except OSError as exc:
        return [f"cannot read the index file: {exc.strerror or exc}"]
    if wal_size:
        return []  # pages may still live in the write-ahead log: let SQLite judge
    if size == 0:
        return ["the index file is empty (truncated)"]
    if len(head) < 100 or not head.startswith(HEADER):
        return ["the index file is not an SQLite database (its header is wrong)"]
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    if head[24:28] == head[92:96] and pages * page_size > size:  # the header's page count is valid
        return [f"the index file is truncated ({size} of {pages * page_size} bytes)"]
    return []


def _sqlite_problems(path: Path, level: str) -> list[str]:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, isolation_level=None, timeout=10)
    except sqlite3.Error as exc:
        return [f"cannot open the index: {exc}"]
    try:
        if level != "cheap":
            pragma = "integrity_check" if level == "full" else "quick_check"
            rows = [str(r[0]) for r in conn.execute(f"PRAGMA {pragma}(20)").fetchall()]
            if rows != ["ok"]:
                return [f"{pragma}: {row}" for row in rows]
        problems = _schema_problems(conn)
        return problems or ([] if level == "cheap" else _fts_problems(conn))
    except sqlite3.DatabaseError as exc:
        return [] if is_busy(exc) else [f"{exc}"]  # in use is not damaged
    finally:
        conn.close()


def _schema_problems(conn: sqlite3.Connection) -> list[str]:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return []  # an empty database: the migrations create everything
    if "migrations" not in tables:
        return ["the index file holds other tables than Quire's (no migrations table)"]
    applied = {r[0] for r in conn.execute("SELECT name FROM migrations")}
    if "0001_initial" not in applied:
        return []
    missing = [t for t in REQUIRED_TABLES if t not in tables]
    return [f"tables missing from the index: {', '.join(missing)}"] if missing else []


def fts_tables(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'"
    ).fetchall()
    return [name for name, sql in rows if "using fts5(" in " ".join(sql.lower().split())]


def _fts_problems(conn: sqlite3.Connection) -> list[str]:
    problems = []
    conn.execute(f"PRAGMA busy_timeout = {int(FTS_CHECK_WAIT_SECONDS * 1000)}")
    for table in fts_tables(conn):
        try:
            conn.execute(f'INSERT INTO "{table}" ("{table}") VALUES (\'integrity-check\')')
        except sqlite3.DatabaseError as exc:
            if not is_busy(exc):
                problems.append(f"full-text index {table}: {exc}")
    return problems
