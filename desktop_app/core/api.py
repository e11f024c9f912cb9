"""What the window (desktop_app.ui) and the command line (desktop_app.cli) may use of the core:
the facade, the values it hands out, the stateless helpers that show them, and the chat's view
model (core/turn_view.py). Both import the core only from here (an import-linter contract in
pyproject.toml checks it), so everything else in the core may change without touching a front
end."""

from desktop_app.core.answer.gate import GateDecision
from desktop_app.core.answer.gguf import ModelFileError, inspect_model
from desktop_app.core.answer.llm import bundled_chat_model_path
from desktop_app.core.answer.profile import parse_languages, profile_of
from desktop_app.core.answers import Answers
from desktop_app.core.as_json import as_json
from desktop_app.core.cancel import Cancelled, CancelToken, Phase, Progress, ProgressCallback
from desktop_app.core.conversations import Conversation, Turn
from desktop_app.core.evaluate import evaluate_set

# The events (an answer's and its parts, the live index's changes), each re-exported by name.
from desktop_app.core.events import QUIET_KINDS as QUIET_KINDS
from desktop_app.core.events import AnswerEvent as AnswerEvent
from desktop_app.core.events import Change as Change
from desktop_app.core.events import ChangeKind as ChangeKind
from desktop_app.core.events import Citations as Citations
from desktop_app.core.events import CitedSentence as CitedSentence
from desktop_app.core.events import Done as Done
from desktop_app.core.events import Draft as Draft
from desktop_app.core.events import DraftReplaced as DraftReplaced
from desktop_app.core.events import Error as Error
from desktop_app.core.events import Evidence as Evidence
from desktop_app.core.events import EvidenceShown as EvidenceShown
from desktop_app.core.events import Passage as Passage
from desktop_app.core.events import SourcesFound as SourcesFound
from desktop_app.core.events import Token as Token
from desktop_app.core.events import Unfound as Unfound
from desktop_app.core.ingest import formats
from desktop_app.core.ingest.formats import formats_read, pdf
from desktop_app.core.ingest.formats import image as image_format
from desktop_app.core.ingest.formats.pdf import span_on_page
from desktop_app.core.live import LiveFolders, Watching
from desktop_app.core.models.catalog import CATALOG, CatalogEntry, downloads_dir, find_entry
from desktop_app.core.models.download import DownloadError, download_entry
from desktop_app.core.models.finder import FoundModel, describe, find_models
from desktop_app.core.names import printable
from desktop_app.core.passage import day_label, pages_label
from desktop_app.core.process_memory import ProcessMemory
from desktop_app.core.repair import FolderReport, Reindex, Repair
from desktop_app.core.retrieval.embedder import MULTILINGUAL as MULTILINGUAL
from desktop_app.core.retrieval.highlight import matching_spans
from desktop_app.core.retrieval.languages import content_words
from desktop_app.core.retrieval.packed_e5 import is_packed_model as is_packed_model
from desktop_app.core.retrieval.scope import Chip, Period, Scope, ScopedQuery, date_bound
from desktop_app.core.retrieval.search import ScopedSearch, SearchResult
from desktop_app.core.service import Quire
from desktop_app.core.store.db import DiskFull, NewerDatabaseError
from desktop_app.core.store.health import Health, IndexDamaged
from desktop_app.core.store.note_status import NoteStatus
from desktop_app.core.store.recovery import Recovery
from desktop_app.core.store.status import FileStatus, FolderSummary, IndexStatus
from desktop_app.core.text import IMAGE_TARGET, clean_text, plain_line, suffix_of
from desktop_app.core.turn_view import LinkKind, TurnLink, conversation_markdown, problem_markdown

__all__ = [
    "CATALOG",
    "IMAGE_TARGET",
    "QUIET_KINDS",
    "AnswerEvent",
    "Answers",
    "CancelToken",
    "Cancelled",
    "CatalogEntry",
    "Change",
    "ChangeKind",
    "Chip",
    "Citations",
    "CitedSentence",
    "Conversation",
    "DiskFull",
    "Done",
    "DownloadError",
    "Draft",
    "DraftReplaced",
    "Error",
    "Evidence",
    "EvidenceShown",
    "FileStatus",
    "FolderReport",
    "FolderSummary",
    "FoundModel",
    "GateDecision",
    "Health",
    "IndexDamaged",
    "IndexStatus",
    "LinkKind",
    "LiveFolders",
    "ModelFileError",
    "NewerDatabaseError",
    "NoteStatus",
    "Passage",
    "Period",
    "Phase",
    "ProcessMemory",
    "Progress",
    "ProgressCallback",
    "Quire",
    "Recovery",
    "Reindex",
    "Repair",
    "Scope",
    "ScopedQuery",
    "ScopedSearch",
    "SearchResult",
    "SourcesFound",
    "Token",
    "Turn",
    "TurnLink",
    "Unfound",
    "Watching",
    "as_json",
    "bundled_chat_model_path",
    "clean_text",
    "content_words",
    "conversation_markdown",
    "date_bound",
    "day_label",
    "describe",
    "download_entry",
    "downloads_dir",
    "evaluate_set",
    "find_entry",
    "find_models",
    "formats",
    "formats_read",
    "image_format",
    "inspect_model",
    "matching_spans",
    "pages_label",
    "parse_languages",
    "pdf",
    "plain_line",
    "printable",
    "problem_markdown",
    "profile_of",
    "span_on_page",
    "suffix_of",
]
