"""SQL for scopes: the chunks of the notes a folder, tag, path and span of days select."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlite_utils


@dataclass(frozen=True)
class ChunkFilter:
    """What a scope selects, in stored terms (ISO days, inclusive)."""

    folders: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    days: tuple[str, str] | None = None


def _like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _folder_ids(db: sqlite_utils.Database, name: str) -> list[int]:
    """Indexed folders named `name` (their last part or a trailing part of their path)."""
    wanted = name.strip("/").casefold()
    out = []
    for folder_id, path in db.execute("SELECT id, path FROM folders").fetchall():
        parts = str(path).replace("\\", "/").rstrip("/").casefold()
        if parts == wanted or parts.endswith("/" + wanted):
            out.append(int(folder_id))
    return out


def scope_select(db: sqlite_utils.Database, scope: ChunkFilter) -> tuple[str, list[Any]]:
    """A `SELECT c.id …` of the chunks inside `scope`, and its parameters."""
    where: list[str] = []
    params: list[Any] = []
    if scope.folders:
        either = []
        for name in scope.folders:
            ids = _folder_ids(db, name)
            inner = _like(name.strip("/"))
            either.append(
                f"n.folder_id IN ({', '.join(str(i) for i in ids) or 'NULL'})"
                " OR n.path LIKE ? ESCAPE '\\' OR n.path LIKE ? ESCAPE '\\'"
            )
            params += [f"{inner}/%", f"%/{inner}/%"]
        where.append("(" + " OR ".join(f"({e})" for e in either) + ")")
    for tag in scope.tags:
        where.append(
            "n.id IN (SELECT note_id FROM note_tags WHERE tag = ? OR tag LIKE ? ESCAPE '\\')"
        )
        params += [tag, f"{_like(tag)}/%"]
    if scope.paths:
        where.append(
            "(" + " OR ".join("instr(lower(n.path), lower(?)) > 0" for _ in scope.paths) + ")"
        )
        params += list(scope.paths)
    if scope.days is not None:
        where.append("c.day BETWEEN ? AND ?")
        params += list(scope.days)
    sql = "SELECT c.id FROM chunks c JOIN notes n ON n.id = c.note_id"
    return sql + (" WHERE " + " AND ".join(where) if where else ""), params


def has_days(db: sqlite_utils.Database, first: str, last: str) -> bool:
    """Whether any passage is dated between these ISO days."""
    row = db.execute(
        "SELECT 1 FROM chunks WHERE day BETWEEN ? AND ? LIMIT 1", (first, last)
    ).fetchone()
    return row is not None


def chunk_ids(db: sqlite_utils.Database, select: tuple[str, list[Any]]) -> list[int]:
    """The ids a `scope_select` selects, in order."""
    sql, params = select
    return [int(row[0]) for row in db.execute(sql + " ORDER BY c.id", params).fetchall()]


def newest_chunk_ids(db: sqlite_utils.Database, scope: ChunkFilter, limit: int) -> list[int]:
    """The chunks inside `scope`, the newest day first (a note's passages in their order)."""
    sql, params = scope_select(db, scope)
    sql += " ORDER BY c.day DESC, c.note_id, c.seq LIMIT ?"
    return [int(row[0]) for row in db.execute(sql, [*params, limit]).fetchall()]


def scope_names(db: sqlite_utils.Database) -> tuple[list[str], list[tuple[str, int]]]:
    """The indexed folders' names, their first-level subfolders and the tags (with their note
    counts) a scope can name (a deeper folder can still be typed: `folder:2026/11`)."""
    folders = {
        str(p).replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        for (p,) in db.execute("SELECT path FROM folders").fetchall()
    }
    subfolders = db.execute(
        "SELECT DISTINCT substr(path, 1, instr(path, '/') - 1) FROM notes"
        " WHERE instr(path, '/') > 0"
    ).fetchall()
    folders.update(str(name) for (name,) in subfolders)
    tags = db.execute(
        "SELECT tag, count(*) FROM note_tags GROUP BY tag ORDER BY count(*) DESC, tag"
    ).fetchall()
    return sorted(folders, key=str.casefold), [(str(t), int(n)) for t, n in tags]
