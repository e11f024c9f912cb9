"""The chat pane: ask, watch the answer stream in as Markdown, click `[n]` to open the passage."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from PySide6.QtCore import QTimer, QUrl, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.api import (
    AnswerEvent,
    CancelToken,
    Conversation,
    Done,
    Error,
    EvidenceShown,
    LinkKind,
    Passage,
    Quire,
    Scope,
    SourcesFound,
    Token,
    Turn,
    TurnLink,
    conversation_markdown,
    problem_markdown,
)
from desktop_app.ui.inert_browser import InertBrowser
from desktop_app.ui.scope_bar import ScopeBar
from desktop_app.ui.workers import ProgressFn, Task, run_in_background

FLUSH_MS = 30  # tokens reach the view in small batches, so the event loop stays free
NOTHING_IN_SCOPE = (
    "No note within the limits shown below the answer matches this question: remove a limit "
    "(✕) to ask all your notes."
)


@dataclass(frozen=True)
class _ScopeAsked:
    """The conversation's scope with the question's own scope words, read off the GUI thread
    (reading them looks at the index): the chips show it."""

    scope: Scope


class ChatPane(QWidget):
    source_clicked = Signal(object)  # a Passage or an Evidence of some turn: open it in its note
    sources_ready = Signal(list, bool, object)  # passages, answerable, cited numbers (or None)
    finished = Signal(object)  # the Done event of each answer
    models_wanted = Signal()  # the reader followed the offer of a better model
    conversation_saved = Signal(str)
    activity = Signal(str)  # what the answer is waiting for, for the status bar ("" when done)
    cleared = Signal()  # a new chat: nothing of the old one stays on screen

    def __init__(self, quire: Quire) -> None:
        super().__init__()
        self.quire = quire
        self.conversation = Conversation()
        self.history: list[Turn] = []  # what follow-ups follow up on (the checked answers)
        self.turns: list[Turn] = []
        self._task: Task | None = None
        self._live: Turn | None = None
        self._pending = ""
        self._hint = ""
        self.view = InertBrowser(openLinks=False)
        self.view.setAccessibleName("Conversation")
        self.view.anchorClicked.connect(self._anchor)
        self.input = QPlainTextEdit(
            placeholderText="Ask your notes…  (Ctrl+Enter to send, Esc to stop)"
        )
        self.input.setAccessibleName("Question")
        self.input.setTabChangesFocus(True)  # Tab moves on; keyboard users are never trapped
        self.input.setMaximumHeight(90)
        self.ask_button = QPushButton("Ask")
        self.ask_button.setToolTip("Ask (Ctrl+Enter)")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.stop_button.setToolTip("Stop the answer (Esc)")
        self.new_button = QPushButton("New chat")
        self.new_button.setToolTip("Start a new conversation (Ctrl+N)")
        self.copy_button = QPushButton("Copy answer")
        buttons = QHBoxLayout()
        for button in (self.ask_button, self.stop_button, self.new_button, self.copy_button):
            button.setAccessibleName(button.text())
            buttons.addWidget(button)
        self.ask_button.clicked.connect(lambda: self.ask())
        self.stop_button.clicked.connect(self.stop)
        self.new_button.clicked.connect(self.new_chat)
        self.copy_button.clicked.connect(self._copy)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        self.scope_bar = ScopeBar(quire)  # what this conversation is limited to
        self.scope_bar.changed.connect(self._scope_changed)
        layout.addWidget(self.scope_bar)
        layout.addWidget(self.input)
        layout.addLayout(buttons)
        QShortcut(QKeySequence("Ctrl+Return"), self, lambda: self.ask())
        QShortcut(QKeySequence("Ctrl+Enter"), self, lambda: self.ask())
        QShortcut(QKeySequence("Escape"), self, self.stop)
        self._flush_timer = QTimer(self, interval=FLUSH_MS)
        self._flush_timer.timeout.connect(self._flush)
        self._render()

    # -- asking --------------------------------------------------------------------------------
    def ask(self, question: str | None = None, override_gate: bool = False) -> None:
        question = (question or self.input.toPlainText()).strip()
        if not question:
            self._hint = "Type a question first: an empty question cannot be answered."
            self._render()
            return
        self._hint = ""
        self.stop()
        self.input.clear()
        given = self.scope_bar.scope
        self._live = Turn(question, "")
        self._pending = ""
        history = list(self.history)
        if override_gate and history and history[-1].question == question:
            history.pop()  # the "not in your notes" reply must not steer the forced answer
        self._task = run_in_background(
            lambda progress, cancel: self._consume(
                question, history, progress, cancel, override_gate, given
            ),
            on_done=self._done,
            on_error=self._error,
            on_progress=self._event,
        )
        self.stop_button.setEnabled(True)
        self._flush_timer.start()
        self.activity.emit("Searching your notes…")
        self._render()

    @property
    def answering(self) -> bool:
        return self._live is not None

    def _consume(
        self,
        question: str,
        history: list[Turn],
        progress: ProgressFn,
        cancel: CancelToken,
        override: bool,
        given: Scope,
    ) -> AnswerEvent | None:
        # A time phrase or scope word in the question becomes a chip (and stays for follow-ups).
        scope = given.asked(self.quire.scoped(question).scope)
        progress(_ScopeAsked(scope))
        last: AnswerEvent | None = None
        events = self.quire.answers.ask(
            question, history=history, cancel=cancel, override_gate=override, scope=scope
        )
        for event in events:
            progress(event)
            last = event
        return last

    def _event(self, event: AnswerEvent | _ScopeAsked) -> None:
        if self._live is None:
            return
        if isinstance(event, _ScopeAsked):
            self.scope_bar.set_scope(event.scope)
        elif isinstance(event, SourcesFound):
            self._live.sources = event.sources
            self._live.answerable = event.answerable
            self.sources_ready.emit(event.sources, self._live.answerable, None)
            if event.notices:  # e.g. a time Quire read in the question was dropped
                self.scope_bar.say("; ".join(event.notices).capitalize() + ".")
        elif isinstance(event, EvidenceShown):
            self._live.evidence = event.evidence
            self._live.caution = event.caution
            if self._live.answerable:
                self.activity.emit("The model is reading the passages…")
            self._render()
        elif isinstance(event, Token):
            if not self._pending and not self._live.answer:
                self.activity.emit("Writing the answer…")
            self._pending += event.text

    def _flush(self) -> None:
        if self._pending and self._live is not None:
            self._live.answer += self._pending
            self._pending = ""
            self._render()

    def _finish_live(self, suffix: str = "") -> Turn | None:
        self._flush()
        self._flush_timer.stop()
        self.activity.emit("")
        self.stop_button.setEnabled(False)
        turn, self._live = self._live, None
        if turn is not None:
            turn.answer += suffix
            self.turns.append(turn)
        self._render()
        return turn

    def _done(self, last: AnswerEvent | None) -> None:
        if isinstance(last, Error):
            if self._live is not None:
                self._live.answer = problem_markdown(last.message)
            self._finish_live()
            return
        turn = self._finish_live()
        if turn is None or not isinstance(last, Done):
            return
        turn.answer = last.answer if last.answerable else turn.answer
        turn.citations = last.citations
        turn.unsupported = last.unsupported
        turn.draft = last.draft
        turn.quote = last.quote
        turn.declined, turn.offer = last.declined, last.offer
        if not turn.sources and not self.scope_bar.scope.empty:
            self._hint = NOTHING_IN_SCOPE
            self.scope_bar.say("Nothing matches within these limits.")
        self._render()
        self.history.append(Turn(turn.question, last.answer))
        self._save(turn)
        self.finished.emit(last)

    def _error(self, message: str) -> None:
        if self._live is not None:
            self._live.answer = problem_markdown(message.splitlines()[0])
        self._finish_live()

    def stop(self) -> None:
        if self._task is not None and not self._task.token.cancelled:
            self._task.token.cancel()  # the worker sees it within one token
            if self._live is not None:
                self._finish_live(" *(stopped)*")
        self.stop_button.setEnabled(False)

    # -- conversations -------------------------------------------------------------------------
    def _save(self, turn: Turn) -> None:
        self.conversation.add(turn)
        self.conversation.scope = self.scope_bar.scope.to_json()
        try:
            self.quire.conversations.save(self.conversation)
        except OSError:
            return  # a full disk must not break the chat; the answer stays on screen
        self.conversation_saved.emit(self.conversation.id)

    def _scope_changed(self, scope: Scope) -> None:
        """A chip removed or a limit picked: the next question uses it; a saved chat keeps it."""
        self.conversation.scope = scope.to_json()
        if self.conversation.turns:
            with contextlib.suppress(OSError):  # the limit applies; only the saved copy misses it
                self.quire.conversations.save(self.conversation)

    def new_chat(self) -> None:
        self.stop()
        self.conversation = Conversation()
        self.scope_bar.set_scope(Scope())
        self.history.clear()
        self.turns.clear()
        self._hint = ""
        self._render()
        self.sources_ready.emit([], True, None)
        self.cleared.emit()

    def open_conversation(self, conversation: Conversation) -> None:
        """Show a saved conversation; new questions continue it (follow-ups included)."""
        self.stop()
        self.conversation = conversation
        self.scope_bar.set_scope(Scope.from_json(conversation.scope))
        self.turns = list(conversation.turns)
        self.history = [Turn(t.question, t.answer) for t in conversation.turns]
        self._render()
        if self.turns:
            last = self.turns[-1]
            self.sources_ready.emit(last.sources, last.answerable, last.cited)

    def _copy(self) -> None:

        if self.turns:
            QApplication.clipboard().setText(self.turns[-1].answer)

    # -- rendering -------------------------------------------------------------------------------
    def _render(self) -> None:
        self.view.setMarkdown(conversation_markdown(self.turns, self._live, self._hint))
        bar = self.view.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _turn_link(self, kind: LinkKind, index: int) -> None:
        """A link of a whole turn: answer anyway, fold or unfold the draft, show the quote."""
        if not 0 <= index < len(self.turns):
            return
        turn = self.turns[index]
        if kind == LinkKind.ANYWAY:
            self.ask(turn.question, override_gate=True)
        elif kind == LinkKind.DRAFT:
            turn.draft_open = not turn.draft_open
            self._render()
        elif turn.quote is not None:
            self.sources_ready.emit(turn.sources, turn.answerable, turn.cited or None)
            self.source_clicked.emit(turn.quote)  # selects exactly the quoted words

    def _anchor(self, url: QUrl) -> None:
        link = TurnLink.read(url.scheme(), url.path())
        if link is None:
            return
        if link.kind == LinkKind.MODELS:
            self.models_wanted.emit()
            return
        if link.kind not in (LinkKind.SOURCE, LinkKind.EVIDENCE):
            self._turn_link(link.kind, link.turn)
            return
        turn = self._live if link.turn == len(self.turns) else None
        if 0 <= link.turn < len(self.turns):
            turn = self.turns[link.turn]
        if turn is None:
            return
        if link.kind == LinkKind.EVIDENCE:
            if 0 <= link.number < len(turn.evidence):
                self.source_clicked.emit(turn.evidence[link.number])  # selects exactly that unit
            return
        self.sources_ready.emit(turn.sources, turn.answerable, turn.cited or None)
        source: Passage | None = next((s for s in turn.sources if s.number == link.number), None)
        if source is not None:
            self.source_clicked.emit(source)
