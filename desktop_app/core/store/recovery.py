"""The index is derived data: a damaged file is moved aside (kept, named with the time) and a
fresh one takes its place, with the folder list and what vectors can be read back.

The folder list also lives outside the index, in `folders.json` next to it, rewritten whenever
a folder is added or removed, so it survives a file that cannot be read at all.
"""

from __future__ import annotations

import contextlib
import json
import math
import sqlite3
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from desktop_app.core.store import folder_rows, meta, vectors
from desktop_app.core.store.db import Database
from desktop_app.core.store.health import (
    Health,
    check_file,
    is_corruption,
    level_on_open,
    sidecar,
)

VECTOR_BATCH = 500


@dataclass
class Recovery:
    """One replacement of a damaged index: what was wrong, where the old file went, what came
    back. The rebuild from the notes folders follows (the CLI or the live index runs it)."""

    when: float
    problems: list[str]
    moved_to: str
    folders: list[str] = field(default_factory=list)
    vectors_kept: int = 0
    requested: bool = False  # `quire repair --rebuild` on a healthy index

    @property
    def message(self) -> str:
        first = self.problems[0] if self.problems else "unknown damage"
        why = "rebuilt on request" if self.requested else f"damaged ({first})"
        folders = len(self.folders)
        return (
            f"Quire's index was {why}. The old file is kept as {self.moved_to}; a new index is "
            f"built from your {folders} notes folder{'s' if folders != 1 else ''} "
            "(your notes are not touched)."
        )

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "message": self.message,
                "at": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.when))}  # fmt: skip


# -- the folder list outside the index -------------------------------------------------------------
def folders_file(db_path: Path) -> Path:
    return db_path.with_name("folders.json")


def save_folder_list(database: Database) -> None:
    with database.read() as db:
        rows = folder_rows.folder_rows(db)
    data = {"folders": [{"path": p, "added_at": a} for p, a in rows]}
    target = folders_file(database.path)
    tmp = target.with_suffix(".tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
        tmp.replace(target)
    except OSError:
        pass  # a read-only home still indexes; only this safety copy is missing


def load_folder_list(db_path: Path) -> list[tuple[str, float]]:
    try:
        data = json.loads(folders_file(db_path).read_text(encoding="utf-8"))
        return [(str(f["path"]), float(f.get("added_at") or 0.0)) for f in data["folders"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []


# -- opening ---------------------------------------------------------------------------------------
def open_index(path: Path, level: str | None = None) -> tuple[Database, Recovery | None, str]:
    """Open the index after a check (by default the quick one, or the cheap one for a large
    file; see health.LEVELS); a damaged file is replaced (see `replace_damaged`). Returns the
    level of check that ran, too."""
    level = level or level_on_open(path)
    health = check_file(path, level)
    if health.ok:
        try:
            database = Database(path)
        except sqlite3.DatabaseError as exc:
            if not is_corruption(exc):
                raise
            health = Health(False, [str(exc)])
        else:
            if not folders_file(path).exists():
                save_folder_list(database)  # indexes made before this file existed
            return database, None, level
    return (*replace_damaged(path, health.problems), level)


def replace_damaged(
    path: Path, problems: list[str], requested: bool = False
) -> tuple[Database, Recovery]:
    """Move the file (and its -wal, -shm) aside, create a fresh index, restore the folder list
    (folders.json, plus what the old file still yields) and the vectors that read back sound."""
    when = time.time()
    old = _read_old(path)
    moved = move_aside(path, when, "replaced" if requested else "damaged")
    database = Database(path)
    kept_folders = _merge_folders(load_folder_list(path), old.folders)
    with database.write() as db:
        for folder, added_at in kept_folders:
            folder_rows.add_folder(db, folder, added_at)
    save_folder_list(database)
    kept = _copy_vectors(moved, database, old.model, old.dimension) if old.model else 0
    recovery = Recovery(when, problems, str(moved), [f for f, _ in kept_folders], kept, requested)
    _record(path, recovery)
    return database, recovery


def move_aside(path: Path, when: float, label: str = "damaged") -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    target = path.with_name(f"{path.name}.{label}-{stamp}")
    n = 1
    while any(sidecar(target, s).exists() for s in ("", "-wal", "-shm")):
        n += 1
        target = path.with_name(f"{path.name}.{label}-{stamp}-{n}")
    for suffix in ("", "-wal", "-shm"):
        source = sidecar(path, suffix)
        if source.exists():
            source.replace(sidecar(target, suffix))
    return target


def last_recovery(db_path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(db_path.with_name("recovery.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _record(db_path: Path, recovery: Recovery) -> None:
    with contextlib.suppress(OSError):
        db_path.with_name("recovery.json").write_text(
            json.dumps(recovery.to_json(), indent=2, ensure_ascii=False), encoding="utf-8"
        )


# -- salvage from the damaged file ---------------------------------------------------------------
@dataclass
class _Old:
    folders: list[tuple[str, float]] = field(default_factory=list)
    model: str | None = None
    dimension: int = 0


def _readonly(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, timeout=5)


def _read_old(path: Path) -> _Old:
    """Whatever the damaged file still answers; each read may fail on its own."""
    old = _Old()
    if not path.exists():
        return old
    try:
        conn = _readonly(path)
    except sqlite3.Error:
        return old
    try:
        old.folders = _try(conn, "SELECT path, added_at FROM folders ORDER BY id")
        meta = dict(_try(conn, "SELECT key, value FROM meta WHERE key LIKE 'embed_%'"))
        old.model = meta.get("embed_model")
        dimension = str(meta.get("embed_dim") or "")
        old.dimension = int(dimension) if dimension.isdigit() else 0
    finally:
        conn.close()
    old.folders = [(str(p), float(a or 0)) for p, a in old.folders if isinstance(p, str) and p]
    return old


def _try(conn: sqlite3.Connection, sql: str) -> list[Any]:
    try:
        return conn.execute(sql).fetchall()
    except (sqlite3.Error, ValueError):
        return []


def _merge_folders(*lists: list[tuple[str, float]]) -> list[tuple[str, float]]:
    seen: dict[str, float] = {}
    for folder_list in lists:
        for folder, added_at in folder_list:
            seen.setdefault(folder, added_at)
    return list(seen.items())


def _copy_vectors(moved: Path, database: Database, model: str, dimension: int) -> int:
    """Copy vectors that read back as unit vectors of the right size, in batches: a batch that
    hits a damaged page is skipped. Vectors are keyed by their text's hash, so a kept vector is
    only used by a passage with exactly that text."""
    if dimension <= 0:
        return 0

    try:
        conn = _readonly(moved)
        top = conn.execute("SELECT max(rowid) FROM embeddings").fetchone()[0] or 0
    except sqlite3.Error:
        return 0
    kept = 0
    try:
        for low in range(0, int(top) + 1, VECTOR_BATCH):
            rows = _try(
                conn, "SELECT hash, vector FROM embeddings WHERE rowid >= "
                f"{low} AND rowid < {low + VECTOR_BATCH}",
            )  # fmt: skip
            sound = [(h, v) for h, v in rows if _sound(np, h, v, dimension)]
            if sound:
                with database.write() as db:
                    vectors.insert_vectors(db, sound, replace=False)
                kept += len(sound)
    finally:
        conn.close()
    if kept:
        with database.write() as db:
            meta.set_embedding_model(db, model, dimension)
    return kept


def _sound(np: Any, key: object, blob: object, dimension: int) -> bool:
    if not isinstance(key, str) or not isinstance(blob, bytes) or len(blob) != dimension * 4:
        return False
    vector = np.frombuffer(blob, dtype=np.float32)
    if not np.isfinite(vector).all():
        return False
    return math.isclose(float(np.dot(vector, vector)), 1.0, abs_tol=1e-3)
