"""What the facade's method groups (facade_answers, facade_live, facade_repair) use of one
another and of `Quire` (core/service.py), declared once here and implemented by `Quire`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from desktop_app.core.cancel import CancelToken, ProgressCallback, no_progress
from desktop_app.core.handle import IndexHandle
from desktop_app.core.ingest import indexer
from desktop_app.core.retrieval.scope import Scope, ScopedQuery
from desktop_app.core.retrieval.search import Searcher, SearchResult
from desktop_app.core.store.db import Database


@dataclass
class FolderReport:
    folder: str
    report: indexer.IndexReport


IndexInto = Callable[
    [IndexHandle, list[Path], ProgressCallback, CancelToken, bool], list[FolderReport]
]
Search = Callable[[str, int | None, list[Path] | None, Scope], list[SearchResult]]


class FacadeParts(Protocol):
    """The methods; each group declares the attributes it uses of `Quire` itself."""

    _search: Search
    _index_into: IndexInto
    index_options: Callable[[], indexer.IndexOptions]

    @property
    def database(self) -> Database: ...

    @property
    def searcher(self) -> Searcher: ...

    def scoped(self, query: str, scope: Scope | None = None) -> ScopedQuery: ...

    def answer_scope(self, question: str, scope: Scope | None = None) -> ScopedQuery: ...

    def embed(
        self, progress: ProgressCallback = no_progress, cancel: CancelToken | None = None
    ) -> int: ...
