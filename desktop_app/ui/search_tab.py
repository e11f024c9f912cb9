"""The Search tab: keyword and meaning search without a model; a result opens its passage."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from desktop_app.core.api import IndexDamaged, Quire, Scope, ScopedSearch, pages_label, plain_line
from desktop_app.ui.scope_bar import ScopeBar
from desktop_app.ui.workers import Task, run_in_background

SEARCH_FLOOR = 0.5  # the Search tab lists passages down to half the best one's score
TYPING_PAUSE_MS = 150  # results follow the typing once it pauses this long


class SearchTab(QWidget):
    passage_chosen = Signal(object)  # the SearchResult to show in its note
    nothing_found = Signal()
    damaged = Signal(object)  # IndexDamaged: the search ran into a damaged index
    failed = Signal(str)

    def __init__(self, quire: Quire) -> None:
        super().__init__()
        self.quire = quire
        self._task: Task | None = None
        self.query = QLineEdit(
            placeholderText="Search your notes as you type — no model needed  (last week, "
            "tag:recipes, folder:work …)"
        )
        self.query.setAccessibleName("Search query")
        self.query.setClearButtonEnabled(True)
        self.query.returnPressed.connect(self.search)
        self._typing = QTimer(self, singleShot=True, interval=TYPING_PAUSE_MS)
        self._typing.timeout.connect(self.search)
        self.query.textChanged.connect(lambda _text: self._typing.start())
        self.scope_bar = ScopeBar(quire)
        self.scope_bar.changed.connect(lambda _scope: self.search())
        self.results = QListWidget()
        self.results.setAccessibleName("Matching passages")
        self.results.setWordWrap(True)
        self.results.currentItemChanged.connect(self._chosen)
        layout = QVBoxLayout(self)
        layout.addWidget(self.query)
        layout.addWidget(self.scope_bar)
        layout.addWidget(self.results)

    def focus(self) -> None:
        self.query.setFocus()
        self.query.selectAll()

    def search(self) -> None:
        self._typing.stop()
        text = self.query.text().strip()
        if self._task:
            self._task.cancel()  # last query wins: a stale result never replaces a newer one
        if not text:
            self.results.clear()
            self.scope_bar.say("")
            return
        scope = self.scope_bar.scope
        self._task = run_in_background(
            lambda progress, cancel: self._search(text, scope),
            on_done=self._show,
            on_error=self.failed.emit,
        )

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()  # its late result must not reach a closed window

    def _search(self, text: str, scope: Scope) -> ScopedSearch | IndexDamaged:
        """Off the GUI thread; a damaged index comes back as a value, to be repaired."""
        try:
            return self.quire.browse(text, SEARCH_FLOOR, scope)
        except IndexDamaged as exc:
            return exc

    def _show(self, found: ScopedSearch | IndexDamaged) -> None:
        if isinstance(found, IndexDamaged):
            self.damaged.emit(found)
            return
        results = found.results
        from_query = [
            c.label for c in found.query.scope.chips() if c not in self.scope_bar.scope.chips()
        ]
        note = f"From your words: {', '.join(from_query)}" if from_query else ""
        if not results and not found.query.scope.empty:
            note = (note + " — " if note else "") + "nothing matches within these limits"
        self.scope_bar.say(note)
        self.results.clear()
        for n, r in enumerate(results, start=1):
            where = " › ".join([r.title, *r.heading_path[1:]]) if r.title else r.path
            snippet = plain_line(r.text)[:200]
            page = pages_label(r.page, r.page_end)
            item = QListWidgetItem(
                f"[{n}] {where}{'  ·  ' + page if page else ''}  ·  {r.score:.3f}\n{snippet}"
            )
            item.setData(Qt.ItemDataRole.UserRole, r)
            item.setToolTip(f"{r.path} · {page or f'lines {r.line_start}–{r.line_end}'}")
            self.results.addItem(item)
        if results:
            self.results.setCurrentRow(0)
        else:
            self.nothing_found.emit()

    def _chosen(self, item: QListWidgetItem | None, _: QListWidgetItem | None = None) -> None:
        if item is not None:
            self.passage_chosen.emit(item.data(Qt.ItemDataRole.UserRole))
