"""Folders and their live status: counts per folder, and every file with its status and reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.api import FileStatus, FolderSummary, IndexStatus, NoteStatus, printable

ModelIndex = QModelIndex | QPersistentModelIndex
PROBLEMS = (NoteStatus.SKIPPED, NoteStatus.FAILED)
NO_NOTES = FolderSummary(notes=0, chunks=0, pending=0, problems=0)


class FoldersPanel(QWidget):
    """The folder list with Add / Remove / Pause; the window does the work."""

    add_requested = Signal()
    remove_requested = Signal(Path)
    pause_toggled = Signal(bool)
    ocr_toggled = Signal(Path, bool)  # a folder, and whether its scans are read by OCR

    def __init__(self) -> None:
        super().__init__()
        self.list = QListWidget()
        self.list.setAccessibleName("Notes folders")
        style = self.style()
        self.add_button = QPushButton(
            style.standardIcon(QStyle.StandardPixmap.SP_DirOpenIcon), "Add…"
        )
        self.add_button.setToolTip("Add a notes folder (Ctrl+O)")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Stop using this folder (your files are not touched)")
        self.pause_button = QPushButton(
            style.standardIcon(QStyle.StandardPixmap.SP_MediaPause), "Pause"
        )
        self.pause_button.setCheckable(True)
        self.pause_button.setToolTip("Pause or resume indexing")
        for button in (self.add_button, self.remove_button, self.pause_button):
            button.setAccessibleName(button.toolTip())
        self.add_button.clicked.connect(self.add_requested.emit)
        self.remove_button.clicked.connect(self._remove)
        self.pause_button.toggled.connect(self._toggle_pause)
        buttons = QHBoxLayout()
        for button in (self.add_button, self.remove_button, self.pause_button):
            buttons.addWidget(button)
        self.ocr_off: set[str] = set()  # folders (resolved) whose scans are left unread
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("<b>Folders</b>"))
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)

    def show_folders(
        self,
        folders: list[Path],
        summaries: dict[str, FolderSummary],
        ocr_off: set[str] | None = None,
    ) -> None:
        self.ocr_off = set() if ocr_off is None else ocr_off
        current = self.list.currentRow()
        self.list.clear()
        for folder in folders:
            s = summaries.get(str(folder), NO_NOTES)
            lines = [folder.name, f"{s.notes} notes · {s.chunks} passages"]
            if s.pending:
                lines.append(f"{s.pending} notes waiting for vectors")
            if s.problems:
                lines.append(f"{s.problems} skipped or failed")
            if str(folder.resolve()) in self.ocr_off:
                lines.append("scans and pictures not read (OCR off)")
            item = QListWidgetItem("\n".join(lines))
            item.setToolTip(str(folder))
            item.setData(Qt.ItemDataRole.UserRole, str(folder))
            self.list.addItem(item)
        self.list.setCurrentRow(min(max(current, 0), self.list.count() - 1))

    def _remove(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.remove_requested.emit(Path(item.data(Qt.ItemDataRole.UserRole)))

    def ocr_menu(self, folder: Path) -> QMenu:
        """The folder's menu: its OCR switch."""
        menu = QMenu(self)
        action = menu.addAction("Read scans and pictures here (OCR)")
        action.setCheckable(True)
        action.setChecked(str(folder.resolve()) not in self.ocr_off)
        action.toggled.connect(lambda on: self.ocr_toggled.emit(folder, on))
        return menu

    def _menu(self, at: QPoint) -> None:
        item = self.list.itemAt(at)
        if item is not None:
            self.ocr_menu(Path(item.data(Qt.ItemDataRole.UserRole))).exec(self.list.mapToGlobal(at))

    def _toggle_pause(self, paused: bool) -> None:
        icon = QStyle.StandardPixmap.SP_MediaPlay if paused else QStyle.StandardPixmap.SP_MediaPause
        self.pause_button.setIcon(self.style().standardIcon(icon))
        self.pause_button.setText("Resume" if paused else "Pause")
        self.pause_toggled.emit(paused)


class FileStatusModel(QAbstractTableModel):
    """Every file Quire looked at, with its status and the reason when it was not indexed."""

    COLUMNS = ("File", "Status", "Passages", "Language", "Details")
    _COLORS: ClassVar[dict[NoteStatus, str]] = {
        NoteStatus.FAILED: "#d93025",
        NoteStatus.SKIPPED: "#b06000",
        NoteStatus.PENDING_EMBEDDING: "#1a73e8",
    }

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[FileStatus] = []
        self.filter = "all"

    def set_files(self, files: list[FileStatus], filter_: str | None = None) -> None:
        self.filter = filter_ or self.filter
        wanted = {
            "all": lambda f: True,
            "problems": lambda f: f.status in PROBLEMS or bool(f.reason),
            "pending": lambda f: f.status == NoteStatus.PENDING_EMBEDDING,
        }[self.filter]
        self.beginResetModel()
        self.rows = [f for f in files if wanted(f)]
        self.endResetModel()

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.COLUMNS[section]
        return None

    def data(self, index: ModelIndex, role: int = 0) -> Any:
        row = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                f"{Path(row.folder).name}/{printable(row.path)}",
                str(row.status),
                row.chunks,
                row.language,
                "; ".join(x for x in (row.read_by_ocr, row.reason) if x),
            )[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return "\n".join(
                x for x in (f"{row.folder}/{row.path}", row.read_by_ocr, row.reason) if x
            )
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 1:
            color = self._COLORS.get(row.status)
            return QColor(color) if color else None
        return None


class FilesView(QWidget):
    """The per-file list, filterable to problems or to notes still waiting for vectors.
    Activating a row (double-click, Enter) asks to open that note."""

    open_requested = Signal(Path, str)  # folder, path relative to it
    files_wanted = Signal()  # shown while the latest status has no file list: read one

    def __init__(self) -> None:
        super().__init__()
        self.model = FileStatusModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName("Files and their status")
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        self.table.activated.connect(self._activated)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.filter = QComboBox()
        self.filter.setAccessibleName("Show files")
        shown = (("All files", "all"), ("Problems", "problems"), ("Waiting for vectors", "pending"))
        for label, key in shown:
            self.filter.addItem(label, key)
        self.filter.currentIndexChanged.connect(
            lambda _: self.model.set_files(self._files, self.filter.currentData())
        )
        self.summary = QLabel()
        self._files: list[FileStatus] = []  # the rows' source, before the filter
        self._stale = False  # the rows are older than the latest status
        self._waiting: list[FileStatus] | None = None  # a list that came while hidden
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.filter)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.table)

    def _activated(self, index: QModelIndex) -> None:
        row = self.model.rows[index.row()]
        self.open_requested.emit(Path(row.folder), row.path)

    def show_status(self, status: IndexStatus) -> None:
        c = status.counts
        self.summary.setText(
            f"{c.notes} notes · {c.chunks} passages · {c.pending_embedding} waiting "
            f"for vectors · {c.skipped} skipped · {c.failed} failed"
        )
        # 20,000 rows refilled on the event loop at every status refresh stall it while a large
        # vault is read: a hidden view keeps a list for when it is shown (the window lists the
        # files only while the view is shown, so a status may come without them)
        self._waiting, self._stale = status.files, True
        if self.isVisible():
            self._refill()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self._refill()

    def _refill(self) -> None:
        if self._waiting is None:
            self.files_wanted.emit()
            return
        self._stale = False
        self.model.set_files(self._waiting)
        self._files, self._waiting = self._waiting, None
