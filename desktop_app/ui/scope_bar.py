"""The scope bar: what a chat or a search is limited to, as chips the user can remove, and a
picker for a folder, a tag or a span of days."""

from __future__ import annotations

from datetime import date, timedelta

from PySide6.QtCore import QDate, Signal
from PySide6.QtWidgets import (
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QMenu,
    QToolButton,
    QWidget,
)

from desktop_app.core.api import Chip, Period, Quire, Scope

MENU_TAGS = 30  # the most used tags offered in the picker


class ScopeBar(QWidget):
    changed = Signal(object)  # the new Scope, after the user picked or removed something

    def __init__(self, quire: Quire) -> None:
        super().__init__()
        self.quire = quire
        self.scope = Scope()
        self.chips: list[QToolButton] = []
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel("Within:")
        self.note = QLabel()  # "nothing in this scope" and the like
        self.note.setObjectName("scopeNote")
        self.picker = QToolButton()
        self.picker.setText("Limit to…")
        self.picker.setAccessibleName("Limit to a folder, tag or time")
        self.picker.setToolTip("Ask or search only within a folder, a tag or a span of days")
        self.picker.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu = QMenu(self.picker)
        self.menu.aboutToShow.connect(self._fill_menu)
        self.picker.setMenu(self.menu)
        self._layout.addWidget(self.label)
        self._layout.addStretch(1)
        self._layout.addWidget(self.note)
        self._layout.addWidget(self.picker)
        self.set_scope(Scope())

    def set_scope(self, scope: Scope) -> None:
        """Show `scope` (no signal: the caller already knows)."""
        self.scope = scope
        for old in self.chips:
            self._layout.removeWidget(old)
            old.deleteLater()
        self.chips = []
        for n, chip in enumerate(scope.chips()):
            button = QToolButton()
            button.setText(f"{chip.label}  ✕")
            button.setAccessibleName(f"Remove the limit {chip.label}")
            button.setToolTip("Remove this limit")
            button.clicked.connect(lambda _=False, c=chip: self._remove(c))
            self._layout.insertWidget(1 + n, button)
            self.chips.append(button)
        self.label.setVisible(bool(self.chips))
        self.note.setText("")

    def say(self, text: str) -> None:
        self.note.setText(text)

    def _remove(self, chip: Chip) -> None:
        self._change(self.scope.without(chip))

    def _change(self, scope: Scope) -> None:
        self.set_scope(scope)
        self.changed.emit(scope)

    def _fill_menu(self) -> None:
        """Built when opened: the folders and tags of the index as it is now."""
        self.menu.clear()
        folders, tags = self.quire.scope_choices()
        folder_menu = self.menu.addMenu("Folder")
        folder_menu.setEnabled(bool(folders))
        for name in folders:
            action = folder_menu.addAction(name)
            action.triggered.connect(lambda _=False, n=name: self._add(Scope(folders=(n,))))
        tag_menu = self.menu.addMenu("Tag")
        tag_menu.setEnabled(bool(tags))
        for tag, count in tags[:MENU_TAGS]:
            action = tag_menu.addAction(f"#{tag}  ({count})")
            action.triggered.connect(lambda _=False, t=tag: self._add(Scope(tags=(t,))))
        time_menu = self.menu.addMenu("Time")
        today = self.quire.today()
        for label, days in (("Last 7 days", 7), ("Last 30 days", 30), ("Last 365 days", 365)):
            period = Period(today - timedelta(days=days - 1), today, label.lower())
            action = time_menu.addAction(label)
            action.triggered.connect(lambda _=False, p=period: self._add(Scope(period=p)))
        time_menu.addAction("Dates…").triggered.connect(self._pick_dates)
        if not self.scope.empty:
            self.menu.addSeparator()
            self.menu.addAction("Everything (remove all limits)").triggered.connect(
                lambda: self._change(Scope())
            )

    def _add(self, extra: Scope) -> None:
        self._change(self.scope.asked(extra))

    def _pick_dates(self) -> None:
        dialog = DateRangeDialog(self, self.quire.today())
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self._add(Scope(period=dialog.period()))


class DateRangeDialog(QDialog):
    def __init__(self, parent: QWidget, today: date) -> None:
        super().__init__(parent)
        self.setWindowTitle("Notes dated between")
        self.first = QDateEdit(QDate(today.year, today.month, 1))
        self.last = QDateEdit(QDate(today.year, today.month, today.day))
        for edit, name in ((self.first, "From"), (self.last, "To")):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setAccessibleName(name)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("From", self.first)
        form.addRow("To", self.last)
        form.addRow(buttons)

    def period(self) -> Period:
        ends = sorted(_day(edit.date()) for edit in (self.first, self.last))
        return Period(ends[0], ends[1], f"{ends[0].isoformat()} – {ends[1].isoformat()}")


def _day(value: QDate) -> date:
    return date(value.year(), value.month(), value.day())
