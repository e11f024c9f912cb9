"""The status of a note file: what the `notes` table stores for it, and what status reports."""

from __future__ import annotations

from enum import StrEnum


class NoteStatus(StrEnum):
    INDEXED = "indexed"
    # Never stored: an indexed note some of whose passages still wait for their vectors.
    PENDING_EMBEDDING = "pending embedding"
    SKIPPED = "skipped"  # not a note Quire reads (unsupported, empty, too large…)
    FAILED = "failed"  # a note Quire could not read


PROBLEMS = (NoteStatus.SKIPPED, NoteStatus.FAILED)
