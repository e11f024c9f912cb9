"""The facade the CLI and the window call: the one door to the index (index, search, status,
repair), the live index (watch/unwatch, pause/resume), answers (the chat model, streamed
events) and saved conversations. Lower layers get what they need as plain parameters."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app import paths
from desktop_app.core import dates
from desktop_app.core.cancel import Cancelled, CancelToken, Progress, ProgressCallback, no_progress
from desktop_app.core.conversations import Conversation, ConversationStore, Turn
from desktop_app.core.events import AnswerEvent, Error
from desktop_app.core.ingest import embedding, formats, indexer
from desktop_app.core.ingest.notes import PartPlanner
from desktop_app.core.live import QUIET_KINDS, Change, LiveFolders, LiveIndex, Watching
from desktop_app.core.retrieval.embedder import Embedder, EmbedderError, TextEmbedder
from desktop_app.core.retrieval.scope import Chip, Period, Scope, ScopedQuery, read_scope
from desktop_app.core.retrieval.search import ScopedSearch, Searcher, SearchOptions, SearchResult
from desktop_app.core.store import folders as store_folders
from desktop_app.core.store import health as store_health
from desktop_app.core.store import notes as store_notes
from desktop_app.core.store import scopes as store_scopes
from desktop_app.core.store.db import DiskFull, NewerDatabaseError
from desktop_app.core.store.health import Health, IndexDamaged, check_file, is_corruption
from desktop_app.core.store.recovery import Recovery, last_recovery, open_index, replace_damaged
from desktop_app.core.tokens import encoding
from desktop_app.settings import Settings

if TYPE_CHECKING:
    from desktop_app.core.answer.ask import PastTurn, Retrieval
    from desktop_app.core.answer.llm import LocalModel

# What the window and the CLI use along with the facade (they import nothing else of the core).
__all__ = ["QUIET_KINDS", "CancelToken", "Cancelled", "Change", "Chip", "Conversation",
           "DiskFull", "FolderReport", "Health", "IndexDamaged", "LiveIndex", "NewerDatabaseError",
           "Period", "Progress", "Quire", "Recovery", "Scope", "ScopedSearch", "SearchResult",
           "Turn", "Watching"]  # fmt: skip


@dataclass
class FolderReport:
    folder: str
    report: indexer.IndexReport


class Quire:
    def __init__(
        self,
        home: Path | None = None,
        settings: Settings | None = None,
        check: str | None = None,
        embedder: TextEmbedder | None = None,
        today: Callable[[], date] = dates.today,
    ) -> None:
        # `embedder`: used instead of the settings' model (tests pass a fake; kept on a change)
        self._given_embedder = embedder
        self.today = today  # what "last week" in a question is counted from
        self.home = home or paths.quire_home()
        self.settings = settings or Settings.load(self.home / "settings.json")
        # A damaged index is replaced on open; `recovery` says so (the caller tells the user).
        # `check` picks the check on open (health.LEVELS); by default it depends on the size.
        self.database, self.recovery, self.checked_on_open = open_index(
            self.home / "quire.sqlite", check
        )
        self._ask_lock = threading.Lock()
        self._running: CancelToken | None = None
        self._model_lock = threading.Lock()
        self._chat_model: LocalModel | None = None
        self.live_folders = LiveFolders(self._live_index)

    def warm_up(self) -> None:
        """Load the tokenizer's 100k ranks (0.3 s, most of it holding the GIL: a thread loading
        them stalled the window 70–150 ms) before the window's event loop runs."""
        encoding()

    def close(self) -> None:
        self.stop_live()
        self.live_folders.join_stopped()
        self.database.close()

    @cached_property
    def conversations(self) -> ConversationStore:
        return ConversationStore(self.home / "conversations")

    # -- the live index ------------------------------------------------------------------------
    def _live_index(self, folders: list[Path], watching: Watching) -> LiveIndex:
        return LiveIndex(
            self.database, folders, self.index_options, self.embed,
            on_change=watching.on_change, progress=watching.progress,
            force_polling=watching.force_polling, home=self.home,
        )  # fmt: skip

    @property
    def folders(self) -> list[Path]:
        """The folders kept live (resolved), in the order they were added."""
        return self.live_folders.folders

    @property
    def live(self) -> LiveIndex | None:
        """The running live index (None before start_live and after stop_live)."""
        return self.live_folders.index

    def watch(self, folder: Path) -> bool:
        """Keep `folder` indexed live (at once if the live index runs, else from start_live);
        False if it already is."""
        return self.live_folders.watch(folder)

    def unwatch(self, folder: Path) -> None:
        """Stop watching `folder`; its notes then leave the index (the files stay untouched)."""
        self.live_folders.unwatch(folder)

    def start_live(self, watching: Watching | None = None, reconcile: bool = True) -> LiveIndex:
        """Reconcile (unless told not to), then keep the watched folders' index live."""
        return self.live_folders.start(watching, reconcile)

    def stop_live(self, timeout: float = 10.0) -> None:
        self.live_folders.stop(timeout)

    def pause(self) -> None:
        """Stop indexing and embedding soon; changes are collected for resume()."""
        if self.live is not None:
            self.live.pause()

    def resume(self) -> None:
        if self.live is not None:
            self.live.resume()

    @property
    def paused(self) -> bool:
        return self.live_folders.paused

    @property
    def busy(self) -> bool:
        """Whether live indexing or embedding runs or is asked for (read before status())."""
        return self.live_folders.busy

    @cached_property
    def embedder(self) -> TextEmbedder:
        if self._given_embedder is not None:
            return self._given_embedder
        model = self.settings.embedding_model
        return Embedder(Path(model) if model else None)

    def embedder_problem(self) -> str | None:
        """Why no vectors can be made or searched now (a model folder that vanished), or None."""
        try:
            self.embedder  # noqa: B018
        except EmbedderError as exc:
            return str(exc)
        return None

    @cached_property
    def searcher(self) -> Searcher:
        # Without a usable embedding model, search is keyword-only (embedder_problem says why).
        return Searcher(self.database, None if self.embedder_problem() else self.embedder)

    def index_options(self) -> indexer.IndexOptions:
        return indexer.IndexOptions(
            chunk_tokens=self.settings.chunk_tokens,
            max_file_bytes=int(self.settings.max_file_mb * 1_000_000),
            suffixes=formats.SUFFIXES - set(self.settings.ignored_types),
        )

    def index(
        self,
        folders: list[Path],
        progress: ProgressCallback = no_progress,
        cancel: CancelToken | None = None,
        embed: bool = True,
    ) -> list[FolderReport]:
        """Index or update folders: lexical rows first, then embeddings for new texts."""
        cancel = cancel or CancelToken()
        reports = []
        for folder in folders:
            report = indexer.index_folder(
                self.database, folder, self.index_options(), progress, cancel
            )
            reports.append(FolderReport(str(folder.resolve()), report))
        if embed and self.embedder_problem() is None:
            embedded = self.embed(progress, cancel)
            if reports:
                reports[-1].report.embedded = embedded
        return reports

    def embed(
        self, progress: ProgressCallback = no_progress, cancel: CancelToken | None = None
    ) -> int:
        embedding.use_embedding_model(
            self.database, self.embedder.model_id, self.embedder.dimension
        )
        progress(Progress("embed", 0, 0))
        planner = PartPlanner(self.embedder.token_offsets, self.embedder.max_tokens)
        return embedding.embed_pending(
            self.database, self.embedder.encode, planner, progress, cancel
        )

    def folder_id(self, folder: Path) -> int | None:
        return store_folders.folder_id(self.database.reader, str(folder.resolve()))

    def search(
        self, query: str, top_k: int | None = None, folders: list[Path] | None = None,
        scope: Scope | None = None,
    ) -> list[SearchResult]:  # fmt: skip
        """Ranked passages; scope words and a time phrase in `query` narrow it (`search_in`)."""
        return self.search_in(query, top_k, folders, scope).results

    def scoped(self, query: str, scope: Scope | None = None) -> ScopedQuery:  # see read_scope
        return read_scope(self.database.reader, query, self.today(), scope)

    def search_in(
        self, query: str, top_k: int | None = None, folders: list[Path] | None = None,
        scope: Scope | None = None,
    ) -> ScopedSearch:  # fmt: skip
        scoped = self.scoped(query, scope)
        return ScopedSearch(scoped, self._search(scoped.text, top_k, folders, scoped.scope))

    def _search(
        self, query: str, top_k: int | None, folders: list[Path] | None, scope: Scope
    ) -> list[SearchResult]:
        folder_ids = None if folders is None else tuple(
            i for f in folders if (i := self.folder_id(f)) is not None)  # fmt: skip
        options = SearchOptions(
            candidates=max(self.settings.candidates, top_k or 0),
            min_relevance=self.settings.min_relevance,
            top_k=top_k or self.settings.top_k,
            folder_ids=folder_ids,
            scope=scope,
        )
        try:
            return self.searcher.search(query, options)
        except sqlite3.DatabaseError as exc:
            self._raise_damage(exc)
            raise

    def browse(self, query: str, floor: float = 0.5, scope: Scope | None = None) -> ScopedSearch:
        """The Search tab's list: passages down to `floor` of the best one's score."""
        from desktop_app.core.answer.ask import relevant

        found = self.search_in(query, scope=scope)
        return ScopedSearch(found.query, relevant(found.results, floor))

    def scope_choices(self) -> tuple[list[str], list[tuple[str, int]]]:
        """The folder names and the tags (with their note counts) a scope can pick."""
        return store_scopes.scope_names(self.database.reader)

    def page_starts(self, folder: Path, path: str) -> list[int]:
        """Where each page of an indexed PDF starts in its text ([] for other notes)."""
        return store_notes.page_starts(self.database.reader, str(folder), path)

    def answerable(self, question: str, results: list[SearchResult]) -> bool:
        """The gate's decision, as `ask` makes it: do the notes seem to cover the question?"""
        from desktop_app.core.answer.decision import gate_decision

        return gate_decision(self.retrieval(), question, results).answerable

    def status(self, check_integrity: bool = True) -> dict[str, Any]:
        """Counts, per-file status, integrity (raises IndexDamaged when the checks fail)."""
        from desktop_app.core.store.status import collect_status

        try:
            status = collect_status(self.database, check_integrity)
        except sqlite3.DatabaseError as exc:
            self._raise_damage(exc)
            raise
        integrity = status["integrity"]
        if integrity is not None and not integrity["ok"]:
            raise IndexDamaged(store_health.integrity_problems(integrity))
        status["recovery"] = last_recovery(self.database.path)
        return status

    def damage(self, exc: sqlite3.DatabaseError) -> IndexDamaged | None:
        """Whether an SQLite error means a damaged file (else it was a lock, a bad query…)."""
        if is_corruption(exc):
            return IndexDamaged([str(exc)])
        health = check_file(self.database.path)
        return None if health.ok else IndexDamaged(health.problems)

    def _raise_damage(self, exc: sqlite3.DatabaseError) -> None:
        damage = self.damage(exc)
        if damage is not None:
            raise damage from exc

    def check(self, level: str = "full") -> Health:
        return check_file(self.database.path, level)

    def recover(self, problems: list[str], requested: bool = False) -> Recovery:
        """Replace the index file with a fresh one (the old one is kept aside); the folders are
        indexed again by the CLI (cli_repair) or the live index (the window)."""
        path = self.database.path
        self.live_folders.join_stopped()
        self.database.close()
        self.__dict__.pop("searcher", None)
        self.database, self.recovery = replace_damaged(path, problems, requested)
        return self.recovery

    def repair(self, rebuild: bool = False) -> tuple[Health, Recovery | None]:
        """The full check; a damaged index (or any, when `rebuild`) is replaced."""
        health = self.check("full")
        if health.ok and not rebuild:
            return health, None
        return health, self.recover(health.problems or ["rebuild requested"], health.ok)

    def chat_model(self, path: Path | None = None) -> LocalModel:
        """The one loaded chat model (loaded on first use; a different file replaces it)."""
        from desktop_app.core.answer.llm import LocalModel, bundled_chat_model_path

        chosen = path or (Path(self.settings.chat_model) if self.settings.chat_model else None)
        wanted = (chosen or bundled_chat_model_path()).resolve()
        n_ctx = self.settings.context_tokens or None
        with self._model_lock:  # two questions from two threads must not load it twice
            current = self._chat_model
            if current is None or current.path != wanted or current.requested_ctx != n_ctx:
                model = LocalModel(wanted, n_ctx=n_ctx)
                model.llm  # load now, so errors surface here  # noqa: B018
                self._chat_model = current = model
            return current

    def index_is_empty(self) -> bool:
        from desktop_app.core.answer.ask import index_is_empty

        return index_is_empty(self.database)

    def retrieval(self, scope: Scope | None = None) -> Retrieval:
        """What answering needs of the index, as plain callables; every search of one answer
        stays inside `scope` (read once, from the question)."""
        from desktop_app.core.answer import ask

        fixed = scope or Scope()
        return ask.Retrieval(
            search=lambda query, top_k: self._search(query, top_k, None, fixed),
            language=lambda question: self.searcher.query_language(question),
            is_empty=self.index_is_empty,
            idf=ask.index_weights(self.database),
            similarity=lambda language: ask.embedder_similarity(self.searcher, language),
        )

    def ask(
        self,
        question: str,
        history: Sequence[PastTurn] = (),
        model_path: Path | None = None,
        cancel: CancelToken | None = None,
        max_tokens: int = 384,
        override_gate: bool = False,
        scope: Scope | None = None,
    ) -> Iterator[AnswerEvent]:
        """Stream answer events. A new question cancels the one still running (last one wins).
        Scope words and a time phrase in the question (and `scope`) narrow what is read."""
        from desktop_app.core.answer.ask import answer_events
        from desktop_app.core.answer.gguf import ModelFileError

        cancel = cancel or CancelToken()
        with self._ask_lock:
            if self._running is not None:
                self._running.cancel()
            self._running = cancel
        try:
            model = self.chat_model(model_path)
        except ModelFileError as exc:
            yield Error(str(exc))
            return
        scoped = self.scoped(question, scope)
        yield from answer_events(
            self.retrieval(scoped.scope), scoped.text or question, history, model, cancel,
            max_tokens,
            self.settings.temperature, override_gate=override_gate,
        )  # fmt: skip

    def apply_settings(self, new: Settings) -> list[str]:
        """Use new settings from now on and save them; returns what changed that costs work
        ("embedding model" means every passage is embedded again, "chunking" re-chunks)."""
        old, self.settings = self.settings, new
        new.save(self.home / "settings.json")
        changed = []
        if new.embedding_model != old.embedding_model:
            self.__dict__.pop("embedder", None)  # the next use loads the new model
            self.__dict__.pop("searcher", None)
            changed.append("embedding model")
        if new.chunk_tokens != old.chunk_tokens:
            changed.append("chunking")
        if set(new.ignored_types) != set(old.ignored_types):
            changed.append("file types")  # files of a type now read are indexed, others dropped
        if changed and self.live is not None:
            self.live.redo()  # interrupt the current pass and compare everything again
        return changed

    def known_folders(self) -> list[Path]:
        folders = map(Path, store_folders.folder_paths(self.database.reader))
        return [p for p in folders if p.is_dir()]
