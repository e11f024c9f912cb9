"""`quire.answers` (core/service.py): the one chat model, what answering reads of the index,
the gate's decision, and `ask`, where the last question asked wins."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from desktop_app.core.answer import ask as answering
from desktop_app.core.answer.chat_worker import ChatWorker
from desktop_app.core.answer.decision import gate_decision
from desktop_app.core.answer.gate import GateDecision
from desktop_app.core.answer.gguf import ModelFileError
from desktop_app.core.answer.grounded import PastTurn
from desktop_app.core.answer.llm import LocalModel, bundled_chat_model_path
from desktop_app.core.answer.profile import profile_of
from desktop_app.core.cancel import CancelToken
from desktop_app.core.events import AnswerEvent, Error, SourcesFound
from desktop_app.core.handle import HandleSlot
from desktop_app.core.retrieval.scope import Scope, ScopedQuery
from desktop_app.core.retrieval.search import SearchResult
from desktop_app.settings import Settings

# The facade's search (query, top_k, folders, scope) and its scope of a question.
Search = Callable[[str, int | None, list[Path] | None, Scope], list[SearchResult]]
AnswerScope = Callable[[str, Scope | None], ScopedQuery]


class Answers:
    def __init__(
        self,
        slot: HandleSlot,
        settings: Callable[[], Settings],
        search: Search,
        answer_scope: AnswerScope,
        given_model: answering.ChatModel | None = None,
        in_worker: bool = False,
    ) -> None:
        """`settings`: the facade's settings now (they change); `given_model`: a chat model used
        instead of the settings' (tests' fakes); `in_worker` (the window): the chat model runs
        in a process of its own (`ChatWorker`)."""
        self._slot, self._settings = slot, settings
        self._search, self._answer_scope = search, answer_scope
        self._given_model = given_model
        self._in_worker = in_worker
        self._model_lock = threading.Lock()
        self._ask_lock = threading.Lock()
        self._running: CancelToken | None = None

    @property
    def settings(self) -> Settings:
        return self._settings()

    def chat_model(self, path: Path | None = None) -> answering.ChatModel:
        """The one loaded chat model (loaded on first use; a different file replaces it)."""
        if self._given_model is not None:
            return self._given_model
        chosen = path or (Path(self.settings.chat_model) if self.settings.chat_model else None)
        wanted = (chosen or bundled_chat_model_path()).resolve()
        n_ctx = self.settings.context_tokens or None
        with self._model_lock:  # two questions from two threads must not load it twice
            current = self._slot.current.chat_model
            languages = self.settings.languages_of(wanted)
            if current is None or current.path != wanted or current.requested_ctx != n_ctx:
                kind = ChatWorker if self._in_worker else LocalModel
                model = kind(wanted, n_ctx=n_ctx, languages=languages)
                model.load()  # now, so errors surface here
                self._slot.replace(lambda h: dataclasses.replace(h, chat_model=model))
                if current is not None:
                    current.close()
                current = model
            # the user may have corrected its languages since it was loaded
            current.profile = profile_of(current.info, current.n_ctx, languages)
            return current

    def index_is_empty(self) -> bool:
        with self._slot.use() as handle:
            return answering.index_is_empty(handle.database)

    def retrieval(self, scope: Scope | None = None) -> answering.Retrieval:
        """What answering needs of the index, as plain callables; every search of one answer
        stays inside `scope` (read once, from the question)."""
        fixed = scope or Scope()
        current = self._slot.current
        return answering.Retrieval(
            search=lambda query, top_k: self._search(query, top_k, None, fixed),
            language=lambda question: self._slot.current.searcher.query_language(question),
            is_empty=self.index_is_empty,
            idf=answering.index_weights(current.database),
            similarity=lambda language: answering.embedder_similarity(
                self._slot.current.searcher, language
            ),
            crossed_raise=answering.crossed_raise(current.searcher),
            following=lambda passage: self._following(passage, fixed),
        )

    def gate(
        self, question: str, results: list[SearchResult], scope: Scope | None = None
    ) -> GateDecision:
        """The gate's decision, as `ask` makes it: do the notes seem to cover the question, and
        how well (answered, weak evidence, not in your notes)? `scope`: what `results` were
        searched in (nothing outside it is read)."""
        return gate_decision(self.retrieval(scope), question, results)

    def _following(self, passage: SearchResult, scope: Scope) -> SearchResult | None:
        """The passage after `passage` in its note; none for a scoped question (it never reads
        past what it searched)."""
        if not scope.empty:
            return None
        with self._slot.use() as handle:
            return handle.searcher.following(passage)

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
        """Answer events, streamed. Asking cancels the question still running at once (the
        last one asked wins, whenever its events are read). Scope words and a time phrase in
        the question (and `scope`) narrow what is read; a swap of the index cancels it too."""
        cancel = cancel or CancelToken()
        with self._ask_lock:
            if self._running is not None:
                self._running.cancel()
            self._running = cancel
        return self._answer(question, history, model_path, cancel, max_tokens, override_gate, scope)

    def _answer(
        self,
        question: str,
        history: Sequence[PastTurn],
        model_path: Path | None,
        cancel: CancelToken,
        max_tokens: int,
        override_gate: bool,
        scope: Scope | None,
    ) -> Iterator[AnswerEvent]:
        with self._slot.use(cancel):
            try:
                model = self.chat_model(model_path)
            except ModelFileError as exc:
                yield Error(str(exc))
                return
            scoped = self._answer_scope(question, scope)
            for event in answering.answer_events(
                self.retrieval(scoped.scope),
                scoped.text or question,
                history,
                model,
                cancel,
                max_tokens,
                self.settings.temperature,
                override_gate=override_gate,
            ):
                if scoped.notice and isinstance(event, SourcesFound):
                    event = dataclasses.replace(
                        event, notices=[scoped.notice, *(event.notices or [])]
                    )
                yield event
