"""An index's rows as one value, to compare two indexes of the same notes built two ways."""

from __future__ import annotations

from desktop_app.core.api import Quire


def index_rows(quire: Quire) -> dict[str, list[tuple[object, ...]]]:
    """Every note (less when it was indexed), chunk and search-term row, in a fixed order."""
    with quire.database.read() as db:
        notes = [
            tuple(v for k, v in row.items() if k != "indexed_at")
            for row in db.query("SELECT * FROM notes ORDER BY path")
        ]
        chunks = db.execute("SELECT * FROM chunks ORDER BY id").fetchall()
        terms = db.execute("SELECT rowid, * FROM chunks_fts ORDER BY rowid").fetchall()
    return {"notes": notes, "chunks": chunks, "terms": terms}
