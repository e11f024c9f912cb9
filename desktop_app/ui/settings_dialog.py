"""Settings: models, chunking, context budget, temperature and retrieval depth, validated."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.api import (
    MULTILINGUAL,
    ModelFileError,
    ProcessMemory,
    bundled_chat_model_path,
    formats,
    inspect_model,
    is_packed_model,
    parse_languages,
    profile_of,
)
from desktop_app.settings import RANGES, Settings
from desktop_app.ui.models_panel import ModelsPanel


def check_chat_model(path: str) -> str:
    """'' if the GGUF file looks loadable, else the reason (the same checks as before loading)."""
    if not path:
        return ""

    try:
        inspect_model(Path(path))
    except ModelFileError as exc:
        return str(exc)
    return ""


def check_embedding_model(path: str) -> str:
    """'' if the folder looks like a local sentence-transformers model (or the setting names the
    bundled multilingual model, or a packed e5 file)."""
    if not path or path == MULTILINGUAL or is_packed_model(Path(path)):
        return ""
    folder = Path(path)
    if not folder.is_dir():
        return f"not a folder: {folder}"
    if not (folder / "modules.json").is_file() and not (folder / "config.json").is_file():
        return f"{folder} has no modules.json or config.json: not a sentence-transformers model"
    return ""


def _with_browse(edit: QLineEdit, browse: QPushButton) -> QWidget:
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(edit, 1)
    layout.addWidget(browse)
    return row


def _chat_model_path(chosen: str) -> Path:
    """The chat model a setting names (the bundled one when empty), as the facade resolves it."""
    if chosen:
        return Path(chosen).resolve()
    try:
        return bundled_chat_model_path().resolve()
    except ModelFileError:
        return Path("bundled")


def _default_languages(chosen: str) -> str:
    """What the model's family writes, shown until the user corrects it."""
    try:
        info = inspect_model(_chat_model_path(chosen))
    except ModelFileError:
        return "en"
    profile = profile_of(info, info.context_length)
    return f"{profile.languages_label()} (what {profile.family} models write)"


def memory_line(processes: list[ProcessMemory]) -> str:
    """What each of Quire's processes holds now, and all of them together."""
    known = [(p.what, p.resident_bytes) for p in processes if p.resident_bytes is not None]
    if not known:
        return "Not shown on this system"
    parts = [f"{what} {size / 2**20:,.0f} MB" for what, size in known]
    if len(known) > 1:
        parts.append(f"in all {sum(size for _, size in known) / 2**20:,.0f} MB")
    return " · ".join(parts)


class SettingsDialog(QDialog):
    def __init__(
        self,
        settings: Settings,
        parent: QWidget | None = None,
        memory: Callable[[], list[ProcessMemory]] | None = None,
    ) -> None:
        """`memory`: Quire's processes and what they hold now (shown every two seconds)."""
        super().__init__(parent)
        self.setWindowTitle("Quire settings")
        self.original = settings
        self.chat_model = QLineEdit(settings.chat_model, placeholderText="Bundled SmolLM2-135M")
        chat_browse = QPushButton("Choose…")
        chat_browse.clicked.connect(self._choose_chat_model)
        self.embedding_model = QLineEdit(
            settings.embedding_model,
            placeholderText=f"Bundled all-MiniLM-L6-v2 (English), or {MULTILINGUAL}",
        )
        embed_browse = QPushButton("Choose…")
        embed_browse.clicked.connect(self._choose_embedding_model)
        self._switches(settings, memory)
        self._number_fields(settings)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #d93025")
        general = self._general_page(chat_browse, embed_browse)
        self.models = ModelsPanel(settings.chat_model, settings.model_folders)
        self.models.chosen.connect(self._use_chat_model)
        self.models.embedding_ready.connect(self.embedding_model.setText)
        self.model_languages = QLineEdit(
            " ".join(settings.languages_of(_chat_model_path(settings.chat_model)) or ()),
            placeholderText=_default_languages(settings.chat_model),
        )
        self.model_languages.setAccessibleName("Languages the chat model writes")
        self.tabs = QTabWidget()
        self.tabs.addTab(general, "General")
        self.models_page = self._models_page()
        self.tabs.addTab(self.models_page, "Models")
        self.tabs.currentChanged.connect(self._tab_changed)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        outer = QVBoxLayout(self)
        for widget in (self.tabs, self.problem, self.buttons):
            outer.addWidget(widget)

    def _switches(
        self, settings: Settings, memory: Callable[[], list[ProcessMemory]] | None
    ) -> None:
        """Other languages, pausing vectors, OCR, and the memory line."""
        self.companion = QCheckBox(f"Read other languages with {MULTILINGUAL} beside it")
        self.companion.setChecked(settings.multilingual_companion)
        self.companion.setToolTip(
            "Beside an English-only model, the multilingual one also embeds every passage, so "
            "Czech and German questions and notes are found by meaning, across languages too."
        )
        self.pause_vectors = QCheckBox("Pause passage vectors")
        self.pause_vectors.setChecked(settings.pause_vectors)
        self.pause_vectors.setToolTip(
            "Vectors are computed in a background process; while paused, new and changed notes "
            "are found by their words only. Keyword search and answers keep working."
        )
        self.ocr = QCheckBox(f"Read scans and pictures by OCR ({' '.join(settings.ocr_languages)})")
        self.ocr.setChecked(settings.ocr)
        self.ocr.setToolTip(
            "Pictures and PDF pages without a text layer are read on this machine, about a "
            "second a page; off, they are not read (what was read stays found)."
        )
        self.memory = QLabel()
        self.memory.setWordWrap(True)
        self._memory_of = memory
        self._memory_timer = QTimer(self, interval=2000)
        self._memory_timer.timeout.connect(self._show_memory)
        self._show_memory()
        if memory is not None:
            self._memory_timer.start()

    def _number_fields(self, settings: Settings) -> None:
        low, high = RANGES["chunk_tokens"]  # the dialog allows what loading accepts
        self.chunk_tokens = QSpinBox(minimum=int(low), maximum=int(high), singleStep=25)
        self.chunk_tokens.setValue(settings.chunk_tokens)
        self.chunk_tokens.setSuffix(" tokens")
        self.context_tokens = QSpinBox(minimum=0, maximum=131072, singleStep=512)
        self.context_tokens.setSpecialValueText("From the model (capped by memory)")
        self.context_tokens.setValue(settings.context_tokens)
        low, high = RANGES["temperature"]
        self.temperature = QDoubleSpinBox(minimum=low, maximum=high, singleStep=0.05, decimals=2)
        self.temperature.setValue(settings.temperature)
        self.candidates = QSpinBox(minimum=5, maximum=500)
        self.candidates.setValue(settings.candidates)
        self.top_k = QSpinBox(minimum=1, maximum=50)
        self.top_k.setValue(settings.top_k)
        self.theme = QComboBox()
        for label, key in (("Follow the system", "system"), ("Light", "light"), ("Dark", "dark")):
            self.theme.addItem(label, key)
        self.theme.setCurrentIndex(max(0, self.theme.findData(settings.theme)))
        self.file_kinds: dict[str, QCheckBox] = {}
        for kind, suffixes in formats.KINDS.items():
            box = QCheckBox(kind)
            box.setChecked(not set(suffixes) & set(settings.ignored_types))
            box.setToolTip(" ".join(suffixes))
            self.file_kinds[kind] = box

    def _general_page(self, chat_browse: QPushButton, embed_browse: QPushButton) -> QWidget:
        general = QWidget()
        form = QFormLayout(general)
        rows = (
            ("Chat model (GGUF file)", _with_browse(self.chat_model, chat_browse)),
            ("Embedding model (folder)", _with_browse(self.embedding_model, embed_browse)),
            ("Other languages", self.companion),
            ("Passage size", self.chunk_tokens),
            ("Context budget", self.context_tokens),
            ("Temperature", self.temperature),
            ("Candidates per retriever", self.candidates),
            ("Passages shown", self.top_k),
            ("Files read", self._kinds_row()),
            ("Scans and pictures", self.ocr),
            ("Colours", self.theme),
            ("Background work", self.pause_vectors),
            ("Memory in use", self.memory),
        )
        for label, widget in rows:
            widget.setAccessibleName(label)
            form.addRow(label, widget)
        note = QLabel(
            "A different embedding model embeds every passage again, and a different passage "
            "size re-reads every note; both run in the background with progress at the bottom "
            "of the window."
        )
        note.setWordWrap(True)
        note.setEnabled(False)
        form.addRow(note)
        return general

    def _models_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        form = QFormLayout()
        form.addRow("Languages the chat model writes", self.model_languages)
        hint = QLabel(
            "Codes like en, de, cs (or * for any). For a question in another language Quire "
            "answers in your notes' own words instead of letting the model write."
        )
        hint.setWordWrap(True)
        hint.setEnabled(False)
        form.addRow(hint)
        layout.addLayout(form)
        layout.addWidget(self.models, 1)
        return page

    def _kinds_row(self) -> QWidget:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        for box in self.file_kinds.values():
            box.setAccessibleName(f"Read {box.text()} files")
            layout.addWidget(box)
        layout.addStretch(1)
        return row

    def _show_memory(self) -> None:
        if self._memory_of is None:
            self.memory.setText("Not shown here")
            return
        self.memory.setText(memory_line(self._memory_of()))

    def _tab_changed(self, index: int) -> None:
        if self.tabs.widget(index) is self.models and not self.models.scanned:
            self.models.rescan()  # looked for only when the user opens the tab

    def _use_chat_model(self, path: str) -> None:
        """One click in the Models list: use that file now (validated like OK)."""
        self.chat_model.setText(path)
        self.accept()

    def done(self, result: int) -> None:
        self.models.stop()
        self._memory_timer.stop()
        super().done(result)

    def _choose_chat_model(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF model", "", "GGUF (*.gguf)")
        if path:
            self.chat_model.setText(path)

    def _choose_embedding_model(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Choose a sentence-transformers folder")
        if path:
            self.embedding_model.setText(path)

    def chosen(self) -> Settings:
        return replace(
            self.original,
            model_languages=self._model_languages(),
            chat_model=self.chat_model.text().strip(),
            model_folders=list(self.models.folders),
            embedding_model=self.embedding_model.text().strip(),
            multilingual_companion=self.companion.isChecked(),
            pause_vectors=self.pause_vectors.isChecked(),
            ocr=self.ocr.isChecked(),
            chunk_tokens=self.chunk_tokens.value(),
            context_tokens=self.context_tokens.value(),
            temperature=round(self.temperature.value(), 2),
            candidates=self.candidates.value(),
            top_k=self.top_k.value(),
            theme=self.theme.currentData(),
            ignored_types=sorted(
                s
                for kind, box in self.file_kinds.items()
                if not box.isChecked()
                for s in formats.KINDS[kind]
            ),
        )

    def _model_languages(self) -> dict[str, list[str]]:
        """The settings' languages per model, with the chosen model's as typed (if they parse)."""
        kept = dict(self.original.model_languages)
        key = str(_chat_model_path(self.chat_model.text().strip()))
        try:
            codes = parse_languages(self.model_languages.text())
        except ValueError:
            return kept  # accept() says what is wrong and keeps the dialog open
        kept.pop(key, None)
        return {**kept, key: codes} if codes else kept

    def accept(self) -> None:
        settings = self.chosen()
        problem = check_chat_model(settings.chat_model) or check_embedding_model(
            settings.embedding_model
        )
        try:
            parse_languages(self.model_languages.text())
        except ValueError as exc:
            problem = problem or str(exc)
        if problem:
            self.problem.setText(problem)  # stay open: nothing is lost, the user can fix it
            return
        super().accept()
