"""Find the note files in a folder: which names are notes, which are skipped and why."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from desktop_app.core.ingest.formats import SUFFIXES as NOTE_SUFFIXES
from desktop_app.core.text import suffix_of


def is_hidden(name: str) -> bool:
    return name.startswith(".") or name.startswith("~$")


def is_note_name(name: str, suffixes: frozenset[str] = NOTE_SUFFIXES) -> bool:
    if is_hidden(name) or name.endswith("~"):
        return False
    return suffix_of(name) in suffixes


def is_note_path(rel: str, suffixes: frozenset[str] = NOTE_SUFFIXES) -> bool:
    """A relative path is a note when no part of it is hidden and its name is a note name."""
    parts = rel.split("/")
    return is_note_name(parts[-1], suffixes) and not any(is_hidden(p) for p in parts[:-1])


def walk_notes(
    folder: Path,
    errors: list[OSError] | None = None,
    skipped: list[tuple[Path, str]] | None = None,
    suffixes: frozenset[str] = NOTE_SUFFIXES,
) -> Iterator[Path]:
    """Yield note files under `folder` (each folder's in name order, then its subfolders'),
    skipping hidden folders (.git, .obsidian, .trash…).

    Symlinked folders are not followed, so there are no loops and nothing outside the folder.
    Note-named entries that are not read (a link to outside, a pipe) go to `skipped` with why.
    """
    yield from _walk(folder, folder.resolve(), errors, skipped, suffixes)


def _walk(
    directory: Path,
    real: Path,
    errors: list[OSError] | None,
    skipped: list[tuple[Path, str]] | None,
    suffixes: frozenset[str],
) -> Iterator[Path]:
    try:
        with os.scandir(directory) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError as exc:
        if errors is not None:
            errors.append(exc)
        return
    folders = []
    for entry in entries:
        if _is_folder(entry):
            if not is_hidden(entry.name) and not entry.is_symlink():
                folders.append(Path(entry.path))
        elif is_note_name(entry.name, suffixes):
            path = Path(entry.path)
            # the kind of entry comes with the listing: a plain file costs no further call
            plain = entry.is_file(follow_symlinks=False)
            reason = None if plain else unsupported_reason(path, real)
            if reason is None:
                yield path
            elif skipped is not None:
                skipped.append((path, reason))
    for subfolder in folders:
        yield from _walk(subfolder, real, errors, skipped, suffixes)


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # a link to a folder is one, as os.walk counts it (not entered)
    except OSError:
        return False


def unsupported_reason(path: Path, folder: Path) -> str | None:
    """Why a note-named entry is not read, or None for a regular file inside `folder`
    (`folder` resolved). A vanished file is None: reading it says so."""
    try:
        if path.is_symlink():
            target = path.resolve()
            if not _inside(target, folder):
                return "symbolic link to a file outside the folder"
            if not target.exists():
                return "broken symbolic link"
        if path.exists() and not path.is_file():
            # a FIFO or socket named .md would block a read forever
            return "not a regular file (pipe, socket or device)"
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (Python < 3.13)
        return f"cannot follow: {exc}"
    return None


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


def relative_note_path(path: Path, folder: Path) -> str:
    full, base = str(path), str(folder).rstrip(os.sep)
    if full.startswith(base + os.sep):  # as relative_to says, without parsing both again
        return full[len(base) + 1 :].replace(os.sep, "/")
    return path.relative_to(folder).as_posix()
