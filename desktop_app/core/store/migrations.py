"""Named, ordered schema migrations. Each runs in its own transaction and is recorded by name."""

from __future__ import annotations

from collections.abc import Callable

import sqlite_utils

Migration = tuple[str, Callable[[sqlite_utils.Database], None]]


def _initial(db: sqlite_utils.Database) -> None:
    _folders_and_notes(db)
    _chunks_and_parts(db)
    _search_tables(db)


def _folders_and_notes(db: sqlite_utils.Database) -> None:
    db.table("folders").create(
        {"id": int, "path": str, "added_at": float}, pk="id", not_null={"path"}
    )
    db.table("folders").create_index(["path"], unique=True)
    db.table("notes").create(
        {
            "id": int,
            "folder_id": int,
            "path": str,
            "size": int,
            "mtime_ns": int,
            "content_hash": str,
            "language": str,
            "title": str,
            "metadata": str,
            "encoding": str,
            "status": str,
            "reason": str,
            "indexed_at": float,
        },
        pk="id",
        foreign_keys=[("folder_id", "folders", "id")],
        not_null={"folder_id", "path", "status"},
    )
    db.table("notes").create_index(["folder_id", "path"], unique=True)


def _chunks_and_parts(db: sqlite_utils.Database) -> None:
    db.table("chunks").create(
        {
            "id": int,
            "note_id": int,
            "seq": int,
            "start": int,
            "end": int,
            "line_start": int,
            "line_end": int,
            "heading_path": str,
            "text": str,
        },
        pk="id",
        foreign_keys=[("note_id", "notes", "id")],
        not_null={"note_id", "start", "end", "text"},
    )
    db.table("chunks").create_index(["note_id", "seq"])
    # A chunk longer than the embedder reads is embedded as several overlapping parts.
    db.table("chunk_parts").create(
        {"chunk_id": int, "part": int, "parts": int, "start": int, "end": int, "embed_hash": str},
        pk=("chunk_id", "part"),
        foreign_keys=[("chunk_id", "chunks", "id")],
        not_null={"embed_hash"},
    )
    db.table("chunk_parts").create_index(["embed_hash"])


def _search_tables(db: sqlite_utils.Database) -> None:
    # Analyzed terms are computed in Python, so the FTS table holds its own content; the writer
    # inserts rows in the same transaction as the chunk, and this trigger removes them.
    db.execute(
        "CREATE VIRTUAL TABLE chunks_fts USING fts5("
        "body, prefixes, context, tokenize = 'unicode61 remove_diacritics 2')"
    )
    db.execute("CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row')")
    db.execute(
        "CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN "
        "DELETE FROM chunks_fts WHERE rowid = old.id;"
        " DELETE FROM chunk_parts WHERE chunk_id = old.id; END"
    )
    db.table("embeddings").create({"hash": str, "vector": bytes}, pk="hash", not_null={"vector"})
    db.table("meta").create({"key": str, "value": str}, pk="key")


def _chunking_by_size_only(db: sqlite_utils.Database) -> None:
    """Versions before embedding parts were planned late recorded the chunking as
    "tokens=N;embed_limit=M"; the embedder's limit no longer shapes chunks, so only the chunk
    size is kept (the same size then re-chunks nothing)."""
    db.execute(
        "UPDATE meta SET value = substr(value, 1, instr(value, ';') - 1)"
        " WHERE key = 'chunking' AND instr(value, ';') > 0"
    )


def _chunk_pages(db: sqlite_utils.Database) -> None:
    """The pages a chunk of a paged document (PDF) stands on; NULL for text notes."""
    db.execute("ALTER TABLE chunks ADD COLUMN page_start INTEGER")
    db.execute("ALTER TABLE chunks ADD COLUMN page_end INTEGER")


def _days_and_tags(db: sqlite_utils.Database) -> None:
    """A note's day (and where it came from), each chunk's day (a journal's dated section, else
    its note's) and the notes' tags: what scopes filter on. Notes indexed before are read again
    on the next run (their content hash forgotten), their vectors kept."""
    db.execute("ALTER TABLE notes ADD COLUMN day TEXT")
    db.execute("ALTER TABLE notes ADD COLUMN day_source TEXT")
    db.execute("ALTER TABLE chunks ADD COLUMN day TEXT")
    db.execute("CREATE INDEX chunks_day ON chunks (day)")
    db.table("note_tags").create(
        {"note_id": int, "tag": str}, pk=("note_id", "tag"),
        foreign_keys=[("note_id", "notes", "id")],
    )  # fmt: skip
    db.execute("CREATE INDEX note_tags_tag ON note_tags (tag)")
    db.execute(
        "CREATE TRIGGER note_tags_delete AFTER DELETE ON notes BEGIN "
        "DELETE FROM note_tags WHERE note_id = old.id; END"
    )
    db.execute("UPDATE notes SET content_hash = NULL, mtime_ns = -1 WHERE status = 'indexed'")


# What the cached vector matrix and note languages are read from: a write to any of these moves
# `data_version` in the same transaction (AFTER triggers), so no writer has to remember to.
VERSIONED_WRITES = {
    "embeddings": ("INSERT", "UPDATE", "DELETE"),
    "chunk_parts": ("INSERT", "UPDATE", "DELETE"),
    "notes": ("INSERT", "UPDATE OF language, status", "DELETE"),
}


def _data_version_triggers(db: sqlite_utils.Database) -> None:
    """`meta.data_version` moves with the data: triggers bump it on every write the vector
    cache (and the cached note languages) depend on."""
    db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('data_version', '0')")
    for table, events in VERSIONED_WRITES.items():
        for event in events:
            _version_trigger(db, table, event)


def _version_trigger(db: sqlite_utils.Database, table: str, event: str) -> None:
    name = f"{table}_{event.split()[0].lower()}_data_version"
    db.execute(
        f"CREATE TRIGGER IF NOT EXISTS {name} AFTER {event} ON {table} BEGIN"
        " UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
        " WHERE key = 'data_version'; END"
    )


def _companion_vectors(db: sqlite_utils.Database) -> None:
    """A second vector space beside the index's model: the bundled multilingual companion's
    parts and vectors (an English-only model's index reaches Czech and German through it)."""
    db.table("companion_parts").create(
        {"chunk_id": int, "part": int, "parts": int, "start": int, "end": int, "embed_hash": str},
        pk=("chunk_id", "part"),
        foreign_keys=[("chunk_id", "chunks", "id")],
        not_null={"embed_hash"},
        if_not_exists=True,
    )
    db.table("companion_parts").create_index(["embed_hash"], if_not_exists=True)
    db.table("companion_vectors").create(
        {"hash": str, "vector": bytes}, pk="hash", not_null={"vector"}, if_not_exists=True
    )
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS companion_parts_delete AFTER DELETE ON chunks BEGIN "
        "DELETE FROM companion_parts WHERE chunk_id = old.id; END"
    )
    for table in ("companion_parts", "companion_vectors"):
        for event in ("INSERT", "UPDATE", "DELETE"):
            _version_trigger(db, table, event)


MIGRATIONS: list[Migration] = [
    ("0001_initial", _initial),
    ("0002_chunking_by_size_only", _chunking_by_size_only),
    ("0003_chunk_pages", _chunk_pages),
    ("0004_days_and_tags", _days_and_tags),
    ("0005_data_version_triggers", _data_version_triggers),
    ("0006_companion_vectors", _companion_vectors),
]
