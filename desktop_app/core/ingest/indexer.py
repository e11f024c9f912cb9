"""Index notes folders into the database: scan → analyse → write (`writer`), skipping what is
unchanged.

Lexical rows (chunks + FTS) are written first, so a note is keyword-searchable at once;
embeddings follow in `embed_pass.embed_pending`, which only encodes texts it has never seen.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from desktop_app.core import names, processes
from desktop_app.core.cancel import (
    Cancelled,
    CancelToken,
    Phase,
    Progress,
    ProgressCallback,
    no_progress,
)
from desktop_app.core.heavy import collector_paused
from desktop_app.core.ingest import analysis_pool, formats, loaders, note_file, ocr
from desktop_app.core.ingest.document import Document
from desktop_app.core.ingest.extractor import Extractor
from desktop_app.core.ingest.note_analysis import AnalyzedNote
from desktop_app.core.ingest.writer import (
    FileProblem,
    IndexReport,
    NoteRows,
    Pending,
    Write,
    flush,
    status_writer,
    touch_writer,
)
from desktop_app.core.retrieval import dates
from desktop_app.core.store import folder_rows, meta, notes
from desktop_app.core.store.db import Database
from desktop_app.core.store.note_status import NoteStatus
from desktop_app.core.store.notes import QUICK_HASH, KnownNote
from desktop_app.core.store.recovery import save_folder_list

COMMIT_EVERY_SECONDS = 0.5
# At least this many new text notes in a folder are read quickly first, when asked for
# (`IndexOptions.quick`): each note one passage; the next run reads them in full.
QUICK_FROM = 1000


@dataclass(frozen=True)
class IndexOptions:
    chunk_tokens: int = 200
    max_file_bytes: int = 20_000_000
    suffixes: frozenset[str] = formats.SUFFIXES  # the file types indexed (a setting)
    ocr_languages: tuple[str, ...] = ocr.DEFAULT_LANGUAGES  # () : pictures are not read
    # Only a quick reading of the new text notes (`note_analysis.analyze_whole`) where there
    # are at least QUICK_FROM: keyword-searchable soonest; the next run reads them in full.
    quick: bool = False

    @property
    def chunking(self) -> str:
        """What decides the chunks: when it changes, every note is chunked again."""
        return f"tokens={self.chunk_tokens}"


# (path relative to the folder, full path, why it is not read or None)
FileEntry = tuple[str, Path, str | None]


def ensure_folder(database: Database, folder: Path) -> int:
    path = str(folder.resolve())
    with database.write() as db:
        known = folder_rows.folder_id(db, path)
        if known is not None:
            return known
        folder_id = folder_rows.add_folder(db, path)
    save_folder_list(database)  # the folder list outlives a damaged index
    return folder_id


def index_folder(
    database: Database,
    folder: Path,
    options: IndexOptions,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> IndexReport:
    cancel = cancel or CancelToken()
    folder = folder.resolve()
    if not folder.is_dir():
        raise FileNotFoundError(f"not a folder: {folder}")
    # A run builds a few objects per file and almost no cycles: a full collection over them
    # would hold the window's interpreter lock for tens of milliseconds, several times a run.
    with collector_paused(freeze=False):
        return _index_folder(database, folder, options, progress, cancel)


def _index_folder(
    database: Database,
    folder: Path,
    options: IndexOptions,
    progress: ProgressCallback,
    cancel: CancelToken,
) -> IndexReport:
    folder_id = ensure_folder(database, folder)
    use_chunking(database, options.chunking)
    known = _known_notes(database, folder_id)
    processes.warm_up()  # the note readers' server starts while the folder is scanned
    # Small notes first: most of a big vault is searchable long before its largest files are done.
    unreadable: list[OSError] = []
    files = sorted(
        _scan(folder, options.suffixes, unreadable), key=lambda item: _size_or_zero(item[1])
    )
    report = IndexReport(scanned=len(files))
    to_read = files
    if options.quick:
        to_read, options = _quick_reading(files, known, options)
        report.quick = options.quick
    for exc in unreadable:
        rel = _folder_rel(exc, folder)
        reason = f"cannot open folder: {exc.strerror or exc}"
        report.problems.append(FileProblem(rel + "/", NoteStatus.FAILED, reason))
    _index_files(database, folder_id, to_read, known, options, report, progress, cancel)
    seen = {names.storable(rel) for rel, _, _ in files}
    gone = [rel for rel in known if rel not in seen]
    if gone:
        remove_notes(database, folder_id, gone)
        report.removed = len(gone)
        report.removed_paths = gone
    return report


def _quick_reading(
    files: list[FileEntry], known: dict[str, KnownNote], options: IndexOptions
) -> tuple[list[FileEntry], IndexOptions]:
    """The new text notes to read quickly, when there are enough of them for a quick reading
    to be worth reading them twice; else every file, read in full."""
    new = [entry for entry in files if entry[0] not in known and _read_ahead(*entry)]
    if len(new) < QUICK_FROM:
        return files, replace(options, quick=False)
    return new, options


def _folder_rel(exc: OSError, folder: Path) -> str:
    if not exc.filename:
        return "."
    try:
        return names.storable(Path(os.fsdecode(exc.filename)).relative_to(folder).as_posix())
    except ValueError:
        return names.storable(os.fsdecode(exc.filename))


def _index_files(
    database: Database,
    folder_id: int,
    files: list[FileEntry],
    known: dict[str, KnownNote],
    options: IndexOptions,
    report: IndexReport,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> None:
    """Analyze files one by one, committing every half second so progress is never lost.
    Whatever goes wrong with one file becomes that file's status; only a full disk (DiskFull)
    or a cancel stops the run."""
    pending = Pending()
    try:
        with _readers(files, known, options, progress, cancel) as analyze:
            for done, (rel, path, unsupported) in enumerate(files, start=1):
                if cancel is not None:
                    cancel.raise_if_cancelled()
                key = names.storable(rel)
                progress(Progress(Phase.INDEX, done, len(files), key))
                try:
                    write = _index_file(
                        folder_id, rel, path, known.get(key), options, report, analyze, unsupported
                    )
                except Cancelled:
                    raise  # a stop, not this file's problem: the next run reads it again
                except Exception as exc:  # anything else about this one file: its status says
                    reason = f"unexpected error: {type(exc).__name__}: {exc}"
                    write = _problem(
                        folder_id, key, known.get(key), report, NoteStatus.FAILED, reason
                    )
                if write is not None:
                    pending.add(write)
                if time.monotonic() - pending.since > COMMIT_EVERY_SECONDS:
                    full, pending = pending, Pending()  # a failed flush is not flushed again
                    report.write_seconds += flush(database, full, report)
    finally:  # a cancelled run keeps what it analyzed; the next run resumes after it
        report.write_seconds += flush(database, pending, report)


@contextmanager
def _readers(
    files: list[FileEntry],
    known: dict[str, KnownNote],
    options: IndexOptions,
    progress: ProgressCallback,
    cancel: CancelToken | None,
) -> Iterator[Callable[[analysis_pool.Job], analysis_pool.NoteRead]]:
    """How a run reads each changed note: a parsed format extracted by the extractor (its
    worker starts with the first PDF, DOCX, web page or picture) and analyzed by the analyzer,
    text notes by the readers' pool ahead (when enough changed) else here. Leaving ends the
    run's workers and frees the analyzer."""
    extractor = Extractor(cancel=cancel, ocr_languages=options.ocr_languages)
    extractor.on_page = lambda path, page, pages: progress(
        Progress(Phase.OCR, page, pages, path.name)
    )
    parsed = _changed_jobs(files, known, options, parsed=True)
    extractor.expect([(job.path, job.max_bytes) for job in parsed])
    here = analysis_pool.shared_analyzer().run(
        parsed, extractor.load_pickled, cancel or CancelToken()
    )
    ahead = analysis_pool.ahead_of(_changed_jobs(files, known, options, parsed=False))
    try:
        yield ahead.analyzer(here.read) if ahead is not None else here.read
    finally:
        extractor.close()
        here.close()
        if ahead is not None:
            ahead.close()


def _changed_jobs(
    files: list[FileEntry], known: dict[str, KnownNote], options: IndexOptions, parsed: bool
) -> list[analysis_pool.Job]:
    """The notes whose size or time changed, as `_index_file` will ask for them: the parsed
    formats (extracted and analyzed by workers, the next ones while the indexer writes this
    one), or the text notes (the readers' pool reads them ahead)."""
    jobs = []
    for rel, path, unsupported in files:
        if unsupported or names.storable(rel) != rel:  # `_index_file` says why, alone
            continue
        if (formats.suffix_of(rel) in formats.ISOLATED) != parsed:
            continue
        note = known.get(rel)
        try:
            stat = path.stat()
        except OSError:
            continue
        if not _unchanged(note, stat, options):
            jobs.append(_job(rel, path, note, options, stat))
    return jobs


def _read_ahead(rel: str, path: Path, unsupported: str | None) -> bool:
    """A text note the readers can read (a parsed format goes to the extractor; a name that
    is not valid UTF-8, or a type not read, gets its status in `_index_file`)."""
    return (
        not unsupported
        and formats.suffix_of(rel) not in formats.ISOLATED
        and (names.storable(rel) == rel)
    )


def _job(
    rel: str, path: Path, known: KnownNote | None, options: IndexOptions, stat: os.stat_result
) -> analysis_pool.Job:
    indexed = known is not None and known.status == NoteStatus.INDEXED
    return analysis_pool.Job(
        rel,
        path,
        formats.size_cap(rel, options.max_file_bytes),
        known.content_hash if known is not None and indexed else None,
        options.chunk_tokens,
        stat.st_size,
        stat.st_mtime_ns,
        options.quick,
    )


def _known_notes(database: Database, folder_id: int) -> dict[str, KnownNote]:
    with database.read() as db:
        return notes.known_notes(db, folder_id)


def index_paths(
    database: Database, folder: Path, rel_paths: list[str], options: IndexOptions
) -> IndexReport:
    """Bring single notes up to date (the watcher's path): index what exists, drop what is gone."""
    folder = folder.resolve()
    folder_id = ensure_folder(database, folder)
    known = _known_notes(database, folder_id)
    report = IndexReport(scanned=len(rel_paths))
    present: list[FileEntry] = []
    gone: list[str] = []
    for rel in rel_paths:
        path = folder / rel
        if loaders.is_note_path(rel, options.suffixes) and os.path.lexists(path):
            present.append((rel, path, loaders.unsupported_reason(path, folder)))
        elif names.storable(rel) in known:
            gone.append(names.storable(rel))
    present.sort(key=lambda item: _size_or_zero(item[1]))  # small edits never wait for a huge file
    _index_files(database, folder_id, present, known, options, report)
    if gone:
        remove_notes(database, folder_id, gone)
        report.removed = len(gone)
        report.removed_paths = gone
    return report


def _size_or_zero(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def move_note(database: Database, folder: Path, src: str, dest: str) -> bool:
    """Rename a note in place (chunks, FTS rows and vectors stay). False if there was nothing to
    move or the destination is already indexed."""
    if names.has_undecodable(src) or names.has_undecodable(dest):
        return False  # such a name is stored as a failed row: index both paths instead
    if dates.day_in_path(src) != dates.day_in_path(dest):
        return False  # the day its name gives changed: read it again (its day, its title)
    folder_id = ensure_folder(database, folder.resolve())
    with database.write() as db:
        return notes.rename_note(db, folder_id, src, dest)


def _scan(
    folder: Path, suffixes: frozenset[str], errors: list[OSError] | None = None
) -> Iterator[FileEntry]:
    skipped: list[tuple[Path, str]] = []
    for path in loaders.walk_notes(folder, errors, skipped, suffixes):
        yield loaders.relative_note_path(path, folder), path, None
    for path, reason in skipped:
        yield loaders.relative_note_path(path, folder), path, reason


def _index_file(
    folder_id: int,
    rel: str,
    path: Path,
    known: KnownNote | None,
    options: IndexOptions,
    report: IndexReport,
    analyze: Callable[[analysis_pool.Job], analysis_pool.NoteRead],
    unsupported: str | None = None,
) -> Write | None:
    key = names.storable(rel)
    if key != rel:
        reason = "file name is not valid UTF-8: rename the file to index it"
        return _problem(folder_id, key, known, report, NoteStatus.FAILED, reason)
    if unsupported:
        return _problem(folder_id, key, known, report, NoteStatus.SKIPPED, unsupported)
    try:
        stat = path.stat()
    except OSError as exc:
        reason = f"cannot stat: {exc.strerror or exc}"
        return _problem(folder_id, key, known, report, NoteStatus.FAILED, reason)
    if _unchanged(known, stat, options):
        report.unchanged += 1
        return None  # a skipped or failed file is looked at again: a permission fix or a
        # larger size limit changes no mtime, and every run reports every problem
    try:
        read = analyze(_job(rel, path, known, options, stat))
    except (note_file.NoteSkipped, note_file.NoteFailed) as exc:
        skipped = isinstance(exc, note_file.NoteSkipped)
        status = NoteStatus.SKIPPED if skipped else NoteStatus.FAILED
        return _problem(
            folder_id, key, known, report, status, str(exc), stat.st_size, stat.st_mtime_ns
        )
    if read.analyzed is None or read.document is None:  # the content it had when indexed
        report.unchanged += 1
        assert known is not None
        return touch_writer(known.id, stat.st_size, stat.st_mtime_ns)
    document, analyzed = read.document, read.analyzed
    report.indexed += 1
    report.changed_paths.append(rel)
    for warning in (document.warning, analyzed.warning):
        if warning:
            report.problems.append(FileProblem(rel, NoteStatus.INDEXED, warning))
    note = _note_row(folder_id, rel, stat, read.content_hash, analyzed, document)
    if read.whole:  # looks changed (as `notes.mark_all_changed`): the next pass reads it in full
        note.update(content_hash=QUICK_HASH + read.content_hash, mtime_ns=-1)
    return NoteRows(note, analyzed, replaces=known is not None)


def _unchanged(known: KnownNote | None, stat: os.stat_result, options: IndexOptions) -> bool:
    """Indexed before with this size and time (or found to hold no text by OCR in the same
    languages: a folder of photos is not read again at every start): not read again."""
    if not known:
        return False
    empty = known.reason == ocr.nothing_found(options.ocr_languages)
    if known.status != NoteStatus.INDEXED and not (known.status == NoteStatus.SKIPPED and empty):
        return False
    return (known.size, known.mtime_ns) == (stat.st_size, stat.st_mtime_ns)


def _note_row(
    folder_id: int,
    rel: str,
    stat: os.stat_result,
    content_hash: str,
    analyzed: AnalyzedNote,
    document: Document,
) -> dict[str, Any]:
    return {
        "folder_id": folder_id,
        "path": rel,
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "content_hash": content_hash,
        "language": analyzed.language,
        "title": analyzed.title,
        "metadata": json.dumps(
            {**analyzed.metadata, **_ocr_metadata(document)}, default=str, ensure_ascii=False
        ),
        "encoding": document.encoding,
        "status": NoteStatus.INDEXED,
        "reason": "; ".join(w for w in (document.warning, analyzed.warning) if w) or None,
        "day": analyzed.day.day.isoformat() if analyzed.day else None,
        "day_source": analyzed.day.source if analyzed.day else None,
        "indexed_at": time.time(),
    }


def _ocr_metadata(document: Document) -> dict[str, Any]:
    """How many pages OCR read, and its words' places and boxes (the viewer's highlight),
    each box to a ten-thousandth of its page."""
    if not document.ocr_pages:
        return {}
    words = [[*w[:3], *(round(x, 4) for x in w[3:])] for w in document.ocr_words]
    return {"ocr_pages": len(document.ocr_pages), "ocr_words": words}


def _problem(
    folder_id: int,
    key: str,
    known: KnownNote | None,
    report: IndexReport,
    status: NoteStatus,
    reason: str,
    size: int = 0,
    mtime_ns: int = 0,
) -> Write | None:
    """Count and report a skipped or failed file; its row is written only when it changed."""
    if status == NoteStatus.SKIPPED:
        report.skipped += 1
    else:
        report.failed += 1
    report.problems.append(FileProblem(key, status, reason))
    row = (size, mtime_ns, status, reason)
    if known is not None and (known.size, known.mtime_ns, known.status, known.reason) == row:
        return None
    return status_writer(folder_id, key, size, mtime_ns, status, reason)


def remove_notes(database: Database, folder_id: int, rel_paths: list[str]) -> None:
    with database.write() as db:
        notes.delete_notes(db, folder_id, [names.storable(rel) for rel in rel_paths])


def remove_folder(database: Database, folder: Path) -> bool:
    path = str(folder.resolve())
    with database.write() as db:
        folder_id = folder_rows.folder_id(db, path)
        if folder_id is None:
            return False
        folder_rows.delete_folder(db, folder_id)
    save_folder_list(database)
    return True


def use_chunking(database: Database, chunking: str) -> bool:
    """Record the chunking settings; different ones than before mark every note for re-chunking
    (vectors are kept by text hash, so unchanged passages are not embedded again)."""
    with database.read() as db:
        if meta.read_meta(db, meta.CHUNKING) == chunking:
            return False
    with database.write() as db:
        recorded = meta.read_meta(db, meta.CHUNKING)
        changed = recorded is not None and recorded != chunking
        if changed:
            notes.mark_all_changed(db)
        meta.set_meta(db, meta.CHUNKING, chunking)
    return changed
