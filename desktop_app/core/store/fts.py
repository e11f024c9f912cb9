"""The full-text tables: document frequencies from `chunks_vocab` and BM25 matches of
`chunks_fts` (what the lexical retriever asks; it builds the MATCH expression)."""

from __future__ import annotations

from typing import Any

import sqlite_utils

Within = tuple[str, list[Any]]  # a SELECT of chunk ids (see scopes.scope_select), its parameters


def doc_freqs(db: sqlite_utils.Database, terms: set[str]) -> dict[str, int]:
    """How many chunks hold each term (terms in no chunk are left out)."""
    if not terms:
        return {}
    marks = ", ".join("?" for _ in terms)
    rows = db.execute(
        f"SELECT term, doc FROM chunks_vocab WHERE term IN ({marks})", list(terms)
    ).fetchall()
    return {t: int(n) for t, n in rows}


def bm25_rows(
    db: sqlite_utils.Database,
    match: str,
    weights: tuple[float, float, float],
    limit: int,
    within: Within | None = None,
) -> list[Any]:
    """(rowid, score, body, prefixes, context) of the best matches, best first; `weights` are
    the body, prefix and context columns' for bm25()."""
    scope_sql, scope_params = within if within else ("", [])
    # `+rowid`: filter the matches; a bare rowid IN would look each allowed id up in FTS5
    inside = f" AND +rowid IN ({scope_sql})" if scope_sql else ""
    return db.execute(
        "SELECT rowid, -bm25(chunks_fts, ?, ?, ?) AS score, body, prefixes, context"
        f" FROM chunks_fts WHERE chunks_fts MATCH ?{inside} ORDER BY score DESC LIMIT ?",
        (*weights, match, *scope_params, limit),
    ).fetchall()
