"""Settings → Models: GGUF chat models found on this computer (one click switches), extra
model folders, and downloads from Quire's short list with progress and cancel."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.api import (
    CATALOG,
    CatalogEntry,
    ModelFileError,
    bundled_chat_model_path,
    describe,
    download_entry,
    downloads_dir,
    find_models,
)
from desktop_app.ui.workers import Task, run_in_background

FOUND_COLUMNS = ("Model", "Source", "Size", "Quant", "Context", "Memory", "")
BUNDLED = "Bundled with Quire"


def _size(n: int) -> str:
    if n < 1e6:
        return f"{n / 1e3:.0f} KB"
    return f"{n / 1e9:.1f} GB" if n >= 1e8 else f"{n / 1e6:.0f} MB"


def _fit_text(model: Any) -> str:
    needs = f"needs ~{_size(model.needed_bytes)}"
    return {True: f"fits ({needs})", False: f"too big ({needs})", None: needs}[model.fits]


def _bundled(ram: int | None) -> Any:
    """The bundled SmolLM2 as a row of its own, so one click also goes back to it."""

    try:
        return describe(bundled_chat_model_path(), BUNDLED, ram, "SmolLM2-135M (bundled)")
    except (ModelFileError, OSError):
        return None


def _setting(model: Any) -> str:
    """The chat_model setting that selects this model ('' is the bundled one)."""
    return "" if model.source == BUNDLED else str(model.path)


class ModelsPanel(QWidget):
    chosen = Signal(str)  # the path of a GGUF file to use as the chat model now
    embedding_ready = Signal(str)  # a downloaded embedding model folder
    folders_changed = Signal(list)

    def __init__(self, current: str, folders: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.current, self.folders = current, list(folders)
        self.catalog: tuple[CatalogEntry, ...] = CATALOG
        self.download_timeout = 30.0
        self.scanned = False
        self.home: Path | None = None  # None: the real home folder and environment
        self.env: Mapping[str, str] | None = None
        self.scan_task: Task | None = None
        self.download_task: Task | None = None
        self.found = QTreeWidget()
        self.found.setHeaderLabels(FOUND_COLUMNS)
        self.found.setRootIsDecorated(False)
        self.found.setAccessibleName("Chat models on this computer")
        header = self.found.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.scan_status = QLabel("Not searched yet.")
        self.scan_status.setWordWrap(True)
        rescan = QPushButton("Search again")
        rescan.clicked.connect(lambda: self.rescan())
        add = QPushButton("Add folder…")
        add.clicked.connect(self._choose_folder)
        buttons = QHBoxLayout()
        for w in (self.scan_status, rescan, add):
            buttons.addWidget(w, 1 if w is self.scan_status else 0)
        layout = QVBoxLayout(self)
        layout.addWidget(
            QLabel(
                "GGUF chat models found in LM Studio, GPT4All, Jan, Ollama, the "
                "Hugging Face cache and your folders:"
            )
        )
        layout.addWidget(self.found, 1)
        layout.addLayout(buttons)
        layout.addWidget(self._download_box())

    # -- found models ------------------------------------------------------------------------
    def rescan(self, home: Path | None = None, env: Mapping[str, str] | None = None) -> None:
        """Search in the background. A `home` (and `env`) given once replaces the real ones for
        this and every later search of this panel (tests build fake homes)."""

        if home is not None:
            self.home, self.env = home, env
        folders, downloads, home, env = list(self.folders), downloads_dir(), self.home, self.env

        def work(progress: Any, cancel: Any) -> Any:
            scan = find_models(home=home, env=env, extra=folders, downloads=downloads)
            return _bundled(scan.ram_bytes), scan

        if self.scan_task is not None:
            self.scan_task.cancel()
        self.scanned = True
        self.scan_status.setText("Searching…")
        self.scan_task = run_in_background(work, self._show, self._scan_failed)

    def _show(self, found: tuple[Any, Any]) -> None:
        bundled, scan = found
        self.found.clear()
        for model in ([bundled] if bundled else []) + scan.models:
            cells = (
                model.name,
                model.source,
                _size(model.size_bytes),
                model.quantization,
                f"{model.context_length:,}",
                _fit_text(model),
                "",
            )
            item = QTreeWidgetItem(list(cells))
            item.setData(0, Qt.ItemDataRole.UserRole, _setting(model))
            item.setToolTip(0, str(model.path))
            self.found.addTopLevelItem(item)
            self.found.setItemWidget(item, len(FOUND_COLUMNS) - 1, self._use_button(model))
        for column in range(1, len(FOUND_COLUMNS)):
            self.found.resizeColumnToContents(column)
        ram = f" · this computer has {_size(scan.ram_bytes)} of RAM" if scan.ram_bytes else ""
        skipped = f" · {len(scan.problems)} file(s) skipped" if scan.problems else ""
        self.scan_status.setText(f"{len(scan.models)} found on this computer{ram}{skipped}")
        self.scan_status.setToolTip("\n".join(f"{p}: {r}" for p, r in scan.problems[:50]))

    def _use_button(self, model: Any) -> QPushButton:
        in_use = _setting(model) == self.current
        button = QPushButton("In use" if in_use else "Use")
        button.setEnabled(not in_use)
        button.setAccessibleName(f"Use {model.name}")
        button.clicked.connect(lambda: self.chosen.emit(_setting(model)))
        return button

    def _scan_failed(self, message: str) -> None:
        self.scan_status.setText(f"Search failed: {message.partition(chr(10))[0]}")

    def model_rows(self) -> list[tuple[str, QPushButton]]:
        """(chat_model setting, its Use button) per listed model, top to bottom."""
        rows = []
        for i in range(self.found.topLevelItemCount()):
            item = self.found.topLevelItem(i)
            assert item is not None, "index within topLevelItemCount"
            button = self.found.itemWidget(item, len(FOUND_COLUMNS) - 1)
            if isinstance(button, QPushButton):
                rows.append((str(item.data(0, Qt.ItemDataRole.UserRole)), button))
        return rows

    def add_folder(self, folder: str) -> None:
        if folder and folder not in self.folders:
            self.folders.append(folder)
            self.folders_changed.emit(list(self.folders))
        self.rescan()

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder with GGUF models")
        if folder:
            self.add_folder(folder)

    # -- downloads -----------------------------------------------------------------------------
    def _download_box(self) -> QGroupBox:
        box = QGroupBox("Download a model (only when you click Download)")
        self.catalog_list = QTreeWidget()
        self.catalog_list.setHeaderLabels(("Model", "Kind", "Size", "Licence"))
        self.catalog_list.setRootIsDecorated(False)
        self.catalog_list.setAccessibleName("Models to download")
        self.catalog_list.setMaximumHeight(110)
        self.download_button = QPushButton("Download")
        self.download_button.clicked.connect(self.start_download)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_download)
        self.download_progress = QProgressBar()
        self.download_progress.setVisible(False)
        self.download_status = QLabel("Interrupted downloads resume where they stopped.")
        self.download_status.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.download_progress, 1)
        row.addStretch()
        row.addWidget(self.download_button)
        row.addWidget(self.cancel_button)
        layout = QVBoxLayout(box)
        layout.addWidget(self.catalog_list)
        layout.addLayout(row)
        layout.addWidget(self.download_status)
        self.fill_catalog()
        return box

    def fill_catalog(self) -> None:
        self.catalog_list.clear()
        for entry in self.catalog:
            kind = "chat" if entry.kind == "chat" else "embeddings"
            item = QTreeWidgetItem(
                [entry.name, kind, f"~{_size(entry.approx_bytes)}", entry.licence]
            )
            item.setToolTip(0, entry.note)
            self.catalog_list.addTopLevelItem(item)
        first = self.catalog_list.topLevelItem(0)
        if first is not None:
            self.catalog_list.setCurrentItem(first)
        self.catalog_list.resizeColumnToContents(0)

    def start_download(self) -> None:

        current = self.catalog_list.currentItem()
        row = self.catalog_list.indexOfTopLevelItem(current) if current is not None else -1
        if row < 0 or self.download_task is not None:
            return
        entry, folder, timeout = self.catalog[row], downloads_dir(), self.download_timeout

        def work(progress: Any, cancel: Any) -> Path:
            return download_entry(entry, folder, progress=progress, cancel=cancel, timeout=timeout)

        self._downloading(True, f"Downloading {entry.name}…")
        self.download_task = run_in_background(
            work,
            lambda path: self._downloaded(entry, path),
            self._download_failed,
            self._download_progress,
        )

    def _downloading(self, running: bool, message: str) -> None:
        self.download_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.download_progress.setVisible(running)
        self.download_status.setText(message)
        if not running:
            self.download_task = None

    def _download_progress(self, p: Any) -> None:
        if p.total:
            self.download_progress.setRange(0, 1000)
            self.download_progress.setValue(int(1000 * p.done / p.total))
        else:  # the server did not say how big: a busy bar
            self.download_progress.setRange(0, 0)
        self.download_progress.setFormat(f"{p.detail} {_size(p.done)}")

    def _downloaded(self, entry: CatalogEntry, path: Path) -> None:
        if entry.kind == "chat":
            self._downloading(False, f"Saved {path.name}. Click Use in the list above.")
            self.rescan()
        else:
            self._downloading(False, f"Saved {path.name}: press OK to embed your notes with it.")
            self.embedding_ready.emit(str(path))

    def _download_failed(self, message: str) -> None:
        self._downloading(False, f"Download failed: {message.partition(chr(10))[0]}")

    def cancel_download(self) -> None:
        if self.download_task is not None:
            self.download_task.cancel()
            self._downloading(False, "Stopped. Download again to continue where it stopped.")

    def stop(self) -> None:
        """The dialog closes: stop a running search and pause a running download."""
        if self.scan_task is not None:
            self.scan_task.cancel()
        self.cancel_download()
