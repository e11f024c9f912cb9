"""The earlier conversations: listed newest first, opened, deleted; damaged files reported once."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.api import Conversation, Quire
from desktop_app.ui.dialogs import show_error


class ConversationsPane(QWidget):
    opened = Signal(object)  # a Conversation read back from its file
    deleted = Signal(str)  # the id of a conversation whose file was deleted

    def __init__(self, quire: Quire) -> None:
        super().__init__()
        self.quire = quire
        self.list = QListWidget()
        self.list.setAccessibleName("Earlier conversations")
        self.list.setWordWrap(True)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.itemActivated.connect(self.open_item)
        self.list.itemClicked.connect(self.open_item)
        delete = QPushButton("Delete")
        delete.setAccessibleName("Delete conversation")
        delete.clicked.connect(self.delete_current)
        self.notice = QLabel(wordWrap=True)  # damaged conversation files, once
        self.notice.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("<b>Conversations</b>"))
        layout.addWidget(self.list, 1)
        layout.addWidget(self.notice)
        layout.addWidget(delete)

    def list_all(self) -> None:
        """Read every saved conversation once, at start; later saves update single rows."""
        store = self.quire.conversations
        self.list.clear()
        for conversation in store.recent():
            self.list.addItem(_conversation_item(conversation))
        reports = store.take_reports()
        if reports:
            more = f" (and {len(reports) - 1} more)" if len(reports) > 1 else ""
            self.notice.setText(reports[0] + more)
            self.notice.setToolTip("\n\n".join(reports))
            self.notice.show()

    def saved(self, conversation: Conversation) -> None:
        """`conversation` was saved: move its row to the top, with its new count."""
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == conversation.id:
                self.list.takeItem(row)
                break
        self.list.insertItem(0, _conversation_item(conversation))

    def open_item(self, item: QListWidgetItem) -> None:
        try:
            conversation = self.quire.conversations.load(item.data(Qt.ItemDataRole.UserRole))
        except (OSError, ValueError, TypeError) as exc:
            show_error(self, "This conversation cannot be opened.", str(exc))
            return
        self.opened.emit(conversation)

    def delete_current(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        conversation_id = item.data(Qt.ItemDataRole.UserRole)
        self.quire.conversations.delete(conversation_id)
        self.list.takeItem(self.list.row(item))
        self.deleted.emit(conversation_id)


def _conversation_item(conversation: Conversation) -> QListWidgetItem:
    when = time.strftime("%d %b %H:%M", time.localtime(conversation.updated))
    count = len(conversation.turns)
    item = QListWidgetItem(
        f"{conversation.title}\n{when} · {count} question{'s' if count != 1 else ''}"
    )
    item.setToolTip(conversation.title)
    item.setData(Qt.ItemDataRole.UserRole, conversation.id)
    return item
