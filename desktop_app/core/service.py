"""The facade the CLI and the window call: the one door to the index (index, search, status,
settings) and saved conversations, with three parts of its own: `quire.live` (the folders kept
live: watch/unwatch, start/stop, pause/resume; core/live.py), `quire.answers` (the chat model,
the gate, streamed answer events; core/answers.py) and `quire.repair` (a damaged index: check,
replace, tell once; core/repair.py). Lower layers get what they need as plain parameters.

`Quire.open` builds it (the CLI, the window and the tests all call it; tests pass fakes as its
parameters). What is replaced at run time sits in one `IndexHandle` (core/handle.py)."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from functools import cached_property
from pathlib import Path

import sqlite_utils

from desktop_app import paths
from desktop_app.core.answer import ask as answering
from desktop_app.core.answer.decision import relevant
from desktop_app.core.answers import Answers
from desktop_app.core.cancel import CancelToken, Phase, Progress, ProgressCallback, no_progress
from desktop_app.core.conversations import ConversationStore
from desktop_app.core.handle import HandleSlot, IndexHandle, handle_on, make_embedder
from desktop_app.core.ingest import analysis_pool, embed_pass, formats, indexer, vector_worker
from desktop_app.core.ingest.watcher import LiveIndex
from desktop_app.core.live import LiveFolders, Watching
from desktop_app.core.process_memory import ProcessMemory, resident_bytes
from desktop_app.core.repair import FolderReport, Repair
from desktop_app.core.retrieval import dates
from desktop_app.core.retrieval.embedder import EmbedderError, ModelHost, TextEmbedder
from desktop_app.core.retrieval.scope import Scope, ScopedQuery, read_scope
from desktop_app.core.retrieval.search import ScopedSearch, Searcher, SearchOptions, SearchResult
from desktop_app.core.store import folder_rows, vectors
from desktop_app.core.store import notes as store_notes
from desktop_app.core.store import scopes as store_scopes
from desktop_app.core.store.db import Database
from desktop_app.core.store.health import IndexDamaged
from desktop_app.core.store.recovery import Recovery, open_index
from desktop_app.core.store.status import IndexStatus, collect_status, last_repair, record_vectors
from desktop_app.core.tokens import encoding
from desktop_app.settings import Settings


class Quire:
    def __init__(
        self,
        home: Path,
        settings: Settings,
        slot: HandleSlot,
        opened: tuple[Recovery | None, str],
        given: tuple[TextEmbedder | None, answering.ChatModel | None] = (None, None),
        today: Callable[[], date] = dates.today,
        model_host: ModelHost | None = None,
    ) -> None:
        """Use `Quire.open`; `opened`: the recovery on open (or None) and the check that ran;
        `given`: an embedder and a chat model used instead of the settings' (tests' fakes)."""
        self.home, self.settings, self._slot = home, settings, slot
        self.model_host = model_host
        recovery, self.checked_on_open = opened
        self._given_embedder = given[0]
        self.today = today  # what "last week" in a question is counted from
        self.live = LiveFolders(self._live_index)
        self.answers = Answers(
            slot, lambda: self.settings, self._search, self.answer_scope, given[1], bool(model_host)
        )
        self.repair = Repair(slot, home / "quire.sqlite", recovery, self.live, self._index_into)

    @classmethod
    def open(
        cls,
        home: Path | None = None,
        settings: Settings | None = None,
        check: str | None = None,
        embedder: TextEmbedder | None = None,
        chat_model: answering.ChatModel | None = None,
        today: Callable[[], date] = dates.today,
        models_in_worker: bool = False,
    ) -> Quire:
        """The app on `home` (QUIRE_HOME by default). A damaged index is replaced on open
        (`recovery` says so; the caller tells the user). `check` picks the check on open
        (health.LEVELS; by default it depends on the size). `embedder`, `chat_model`: used
        instead of the settings' models (kept on a settings change). `models_in_worker` (the
        window): queries are encoded by the vector worker and the chat model runs in a process
        of its own, so this process loads no model at all."""
        home = home or paths.quire_home()
        settings = settings or Settings.load(home / "settings.json")
        database, recovery, checked = open_index(home / "quire.sqlite", check)
        host = vector_worker.shared() if models_in_worker else None
        chosen, problem = make_embedder(settings, embedder, host)
        handle = handle_on(database, chosen, problem, settings.multilingual_companion)
        given = (embedder, chat_model)
        return cls(home, settings, HandleSlot(handle), (recovery, checked), given, today, host)

    @property
    def database(self) -> Database:
        return self._slot.current.database

    @property
    def searcher(self) -> Searcher:
        return self._slot.current.searcher

    @property
    def in_flight(self) -> int:
        """Reads and answers running now (a swap of the index waits for none)."""
        return self._slot.users

    @contextmanager
    def _reading(self) -> Iterator[sqlite_utils.Database]:
        with self._slot.use() as handle, handle.database.read() as db:
            yield db

    def warm_up(self) -> None:
        """Load the tokenizer's ranks before the window's event loop runs: loading them holds the
        GIL, so a thread doing it later would stall the window."""
        encoding()

    def close(self) -> None:
        self.live.stop()
        self.live.join_stopped()
        if self._slot.current.chat_model is not None:
            self._slot.current.chat_model.close()  # its process, if it has one
        self._slot.current.database.close()

    def _live_index(self, folders: list[Path], watching: Watching) -> LiveIndex:
        return LiveIndex(
            self.database,
            folders,
            self.index_options,
            self.embed,
            on_change=watching.on_change,
            progress=watching.progress,
            force_polling=watching.force_polling,
            home=self.home,
            vectors_paused=lambda: self.settings.pause_vectors,
        )

    def index_is_empty(self) -> bool:
        return self.answers.index_is_empty()

    def status(self, check_integrity: bool = True, list_files: bool = True) -> IndexStatus:
        """Counts, each folder's summary, every file's status (unless not asked to list them),
        integrity (raises IndexDamaged when the checks fail)."""
        try:
            with self._slot.use() as handle:
                status = collect_status(handle.database, check_integrity, list_files)
        except sqlite3.DatabaseError as exc:
            self.repair.raise_damage(exc)
            raise
        if status.integrity is not None and not status.integrity.ok:
            raise IndexDamaged(status.integrity.problems)
        recovery = last_repair(self.repair.last())
        return dataclasses.replace(
            status, recovery=recovery, vectors_paused=self.settings.pause_vectors
        )

    @cached_property
    def conversations(self) -> ConversationStore:
        return ConversationStore(self.home / "conversations")

    @property
    def embedder(self) -> TextEmbedder:
        """The embedder; EmbedderError when there is none (embedder_problem says why)."""
        problem = self.embedder_problem()
        embedder = self._slot.current.embedder
        if embedder is None:
            raise EmbedderError(problem or "no embedding model")
        return embedder

    def embedder_problem(self) -> str | None:
        """Why no vectors can be made or searched now (a model folder that vanished), or None.
        Without an embedder the settings' model is tried again (its folder may be back)."""
        if self._slot.current.embedder is not None:
            return None
        embedder, problem = make_embedder(self.settings, self._given_embedder, self.model_host)
        if embedder is not None:
            self._slot.replace(lambda h: dataclasses.replace(h, embedder=embedder))
        return problem

    def index_options(self, folder: Path | None = None) -> indexer.IndexOptions:
        """How notes are read, in `folder` (OCR can be off for one folder)."""
        return indexer.IndexOptions(
            chunk_tokens=self.settings.chunk_tokens,
            max_file_bytes=int(self.settings.max_file_mb * 1_000_000),
            suffixes=formats.SUFFIXES - set(self.settings.ignored_types),
            ocr_languages=tuple(self.settings.ocr_languages) if self.ocr_in(folder) else (),
        )

    def ocr_in(self, folder: Path | None) -> bool:
        """Whether scans and pictures in `folder` are read by OCR (Settings, and the folder's
        own switch)."""
        off = folder is not None and str(folder.resolve()) in self.settings.ocr_off_folders
        return self.settings.ocr and not off

    def set_ocr_in(self, folder: Path, on: bool) -> None:
        """Switch OCR on or off for one folder (saved; the folder is looked at again)."""
        key = str(folder.resolve())
        off = [f for f in self.settings.ocr_off_folders if f != key] + ([] if on else [key])
        self.apply_settings(dataclasses.replace(self.settings, ocr_off_folders=off))

    def index(
        self,
        folders: list[Path],
        progress: ProgressCallback = no_progress,
        cancel: CancelToken | None = None,
        embed: bool = True,
        quick: bool = False,
    ) -> list[FolderReport]:
        """Index or update folders: lexical rows first, then embeddings for new texts. `quick`:
        a large first index only reads its text notes quickly, each as one passage
        (`IndexOptions.quick`; a report says so): the next run reads them in full."""
        cancel = cancel or CancelToken()
        with self._slot.use(cancel) as handle:
            return self._index_into(handle, folders, progress, cancel, embed, quick)

    def _index_into(
        self,
        handle: IndexHandle,
        folders: list[Path],
        progress: ProgressCallback,
        cancel: CancelToken,
        embed: bool,
        quick: bool = False,
    ) -> list[FolderReport]:
        reports = []
        for folder in folders:
            options = dataclasses.replace(self.index_options(folder), quick=quick)
            report = indexer.index_folder(handle.database, folder, options, progress, cancel)
            reports.append(FolderReport(str(folder.resolve()), report))
        if embed and self.embedder_problem() is None:
            embedded = self._embed_into(self._slot.current.embedder, handle, progress, cancel)
            if reports:
                reports[-1].report.embedded = embedded
        return reports

    def embed(
        self, progress: ProgressCallback = no_progress, cancel: CancelToken | None = None
    ) -> int:
        # `cancel` is the live index's own (paused, stopped): a swap waits for it, never cancels it
        with self._slot.use() as handle:
            return self._embed_into(self.embedder, handle, progress, cancel)

    def _embed_into(
        self,
        embedder: TextEmbedder | None,
        handle: IndexHandle,
        progress: ProgressCallback,
        cancel: CancelToken | None,
    ) -> int:
        """The index model's vectors, then the multilingual companion's (if it has one)."""
        assert embedder is not None  # the callers checked embedder_problem
        done = 0
        spaces = [(embedder, vectors.MAIN)]
        if handle.searcher.companion is not None:
            spaces.append((handle.searcher.companion, vectors.COMPANION))
        else:
            embed_pass.forget_space(handle.database, vectors.COMPANION)
        database = handle.database
        for model, space in spaces:  # recorded first: the status counts what waits in each
            embed_pass.use_embedding_model(database, model.model_id, model.dimension, space)
        for model, space in spaces:
            progress(Progress(Phase.EMBED, 0, 0))
            planner = vector_worker.shared().planner(model)
            encode = vector_worker.shared().encoder(model)
            done += embed_pass.embed_pending(
                database, encode, planner, progress, cancel, space=space
            )
        if done:
            state = vector_worker.shared().state
            record = {**dataclasses.asdict(state), "at": time.strftime("%Y-%m-%d %H:%M:%S")}
            record_vectors(database, record)
        return done

    def memory(self) -> list[ProcessMemory]:
        """The resident memory of Quire's own process and of its running model processes (and of
        the analyzer's, while it runs)."""
        processes = [("Quire", os.getpid()), ("passage vectors", self.vectors_where.pid)]
        processes.append(("note analysis", analysis_pool.shared_analyzer().pid))
        chat = self._slot.current.chat_model
        processes.append(("chat model", chat.pid if chat is not None else None))
        return [ProcessMemory(what, pid, resident_bytes(pid)) for what, pid in processes if pid]

    @property
    def vectors_where(self) -> vector_worker.WorkerState:
        """Where passage vectors are computed: the worker process, or this one and why."""
        return vector_worker.shared().state

    def folder_id(self, folder: Path) -> int | None:
        with self._reading() as db:
            return folder_rows.folder_id(db, str(folder.resolve()))

    def search(
        self,
        query: str,
        top_k: int | None = None,
        folders: list[Path] | None = None,
        scope: Scope | None = None,
    ) -> list[SearchResult]:
        """Ranked passages; scope words and a time phrase in `query` narrow it (`search_in`)."""
        return self.search_in(query, top_k, folders, scope).results

    def scoped(self, query: str, scope: Scope | None = None) -> ScopedQuery:  # see read_scope
        with self._reading() as db:
            return read_scope(db, query, self.today(), scope)

    def search_in(
        self,
        query: str,
        top_k: int | None = None,
        folders: list[Path] | None = None,
        scope: Scope | None = None,
    ) -> ScopedSearch:
        with self._slot.use():  # the scope and the search read the same index
            scoped = self.scoped(query, scope)
            found = self._search(scoped.text, top_k, folders, scoped.scope)
            if not found and scoped.inferred:  # a guessed time never hides an answer
                scoped = scoped.widened()
                found = self._search(scoped.text, top_k, folders, scoped.scope)
            return ScopedSearch(scoped, found)

    def answer_scope(self, question: str, scope: Scope | None = None) -> ScopedQuery:
        """The question's scope for an answer: a time phrase Quire read in it is dropped when
        nothing within the scope matches (`ScopedQuery.widened`, its notice says so)."""
        with self._slot.use():
            scoped = self.scoped(question, scope)
            if scoped.inferred and not self._search(scoped.text, None, None, scoped.scope):
                return scoped.widened()
            return scoped

    def _search(
        self, query: str, top_k: int | None, folders: list[Path] | None, scope: Scope
    ) -> list[SearchResult]:
        with self._slot.use() as handle:
            folder_ids = (
                None
                if folders is None
                else tuple(i for f in folders if (i := self.folder_id(f)) is not None)
            )
            options = SearchOptions(
                candidates=max(self.settings.candidates, top_k or 0),
                min_relevance=self.settings.min_relevance,
                top_k=top_k or self.settings.top_k,
                folder_ids=folder_ids,
                scope=scope,
            )
            try:
                return handle.searcher.search(query, options)
            except sqlite3.DatabaseError as exc:
                self.repair.raise_damage(exc)
                raise

    def browse(self, query: str, floor: float = 0.5, scope: Scope | None = None) -> ScopedSearch:
        """The Search tab's list: passages down to `floor` of the best one's score."""
        found = self.search_in(query, scope=scope)
        return ScopedSearch(found.query, relevant(found.results, floor))

    def scope_choices(self) -> tuple[list[str], list[tuple[str, int]]]:
        """The folder names and the tags (with their note counts) a scope can pick."""
        with self._reading() as db:
            return store_scopes.scope_names(db)

    def page_starts(self, folder: Path, path: str) -> list[int]:
        """Where each page of an indexed PDF starts in its text ([] for other notes)."""
        with self._reading() as db:
            return store_notes.page_starts(db, str(folder), path)

    def ocr_boxes(
        self, folder: Path, path: str, start: int, end: int
    ) -> list[tuple[int, tuple[float, float, float, float]]]:
        """The boxes of the words OCR read in a span of a note (`store.notes.ocr_boxes`)."""
        with self._reading() as db:
            return store_notes.ocr_boxes(db, str(folder), path, start, end)

    def apply_settings(self, new: Settings) -> list[str]:
        """Use new settings from now on and save them; returns what changed that costs work
        ("embedding model" means every passage is embedded again, "chunking" re-chunks)."""
        old, self.settings = self.settings, new
        new.save(self.home / "settings.json")
        changed = []
        companion = new.multilingual_companion
        if (new.embedding_model, companion) != (old.embedding_model, old.multilingual_companion):
            embedder, problem = make_embedder(new, self._given_embedder, self.model_host)
            self._slot.replace(lambda h: handle_on(h.database, embedder, problem, companion))
            changed.append("embedding model")
        if new.chunk_tokens != old.chunk_tokens:
            changed.append("chunking")
        if set(new.ignored_types) != set(old.ignored_types):
            changed.append("file types")  # files of a type now read are indexed, others dropped
        ocr = (new.ocr, new.ocr_languages, set(new.ocr_off_folders))
        if ocr != (old.ocr, old.ocr_languages, set(old.ocr_off_folders)):
            changed.append("OCR")  # pictures and scans it left unread are looked at again
        if changed and self.live.index is not None:
            self.live.index.redo()  # interrupt the current pass and compare everything again
        if new.pause_vectors != old.pause_vectors and self.live.index is not None:
            self.live.index.vectors_changed()
        return changed

    def known_folders(self) -> list[Path]:
        with self._reading() as db:
            folders = map(Path, folder_rows.folder_paths(db))
        return [p for p in folders if p.is_dir()]
