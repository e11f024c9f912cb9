"""Download a model the user chose: resumable, sha256-verified, atomic.

Bytes go to `<name>.part` next to the target; an interrupted transfer keeps them and the next
attempt asks the server for the rest (HTTP Range). Only a complete file whose sha256 matches is
renamed into place (`os.replace`), so a half-downloaded or wrong file never looks like a model.
Plain `urllib`; nothing here runs unless the user starts a download.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import shutil
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from desktop_app.core.cancel import CancelToken, Phase, Progress, ProgressCallback, no_progress
from desktop_app.core.models.catalog import CatalogEntry, RemoteFile

CHUNK = 1 << 16
SPACE_MARGIN = 64 << 20  # keep this much free on the disk after the download
USER_AGENT = "Quire-model-download"
REPORT_EVERY = 1 << 20  # bytes between two progress reports


class DownloadError(Exception):
    """The download failed; the message says why and whether starting again resumes it."""


class _RangeRefused(Exception):
    """416: the server cannot continue from the bytes we have (the file changed?)."""


@dataclass(frozen=True)
class Downloaded:
    path: Path
    size: int
    sha256: str
    verified: bool  # the sha256 matched a pinned value (False: none was pinned)
    resumed_from: int = 0  # bytes already on disk from an earlier attempt


def _gb(n: int) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e8 else f"{n / 1e6:.1f} MB"


def check_space(folder: Path, needed: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(folder).free
    if needed > 0 and free < needed + SPACE_MARGIN:
        raise DownloadError(
            f"not enough disk space in {folder}: the download needs {_gb(needed)} and only "
            f"{_gb(free)} is free"
        )


def _hash_of(path: Path) -> Any:
    hasher = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            hasher.update(block)
    return hasher


def download_file(
    url: str,
    dest: Path,
    *,
    sha256: str | None = None,
    size: int | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    timeout: float = 30.0,
) -> Downloaded:
    """Fetch `url` into `dest`; resume a `.part` left by an earlier attempt."""
    if dest.is_file() and (sha256 is None or _hash_of(dest).hexdigest() == sha256):
        return Downloaded(dest, dest.stat().st_size, sha256 or "", sha256 is not None)
    part = dest.with_name(dest.name + ".part")
    have = part.stat().st_size if part.is_file() else 0
    if size is not None and have > size:
        part.unlink()
        have = 0
    check_space(dest.parent, (size or 0) - have)
    if size is not None and have == size:  # complete already: only the check is left
        return _finish(part, dest, _hash_of(part), sha256, have)
    fetch = _Fetch(url, dest.name, progress, cancel or CancelToken(), timeout)
    try:
        hasher, got, resumed = fetch.into(part, have, size)
    except _RangeRefused:
        part.unlink(missing_ok=True)
        hasher, got, resumed = fetch.into(part, 0, size)
    return _finish(part, dest, hasher, sha256, got, resumed)


def _finish(
    part: Path, dest: Path, hasher: Any, sha256: str | None, size: int, resumed: int = 0
) -> Downloaded:
    digest = hasher.hexdigest()
    if sha256 is not None and digest != sha256.lower():
        part.unlink(missing_ok=True)
        raise DownloadError(
            f"{dest.name}: checksum mismatch (expected sha256 {sha256[:16]}…, got "
            f"{digest[:16]}…); the file was deleted — the server sent different bytes"
        )
    os.replace(part, dest)
    return Downloaded(dest, size, digest, sha256 is not None, resumed)


def _stalled(label: str, timeout: float) -> str:
    return (
        f"{label}: the server stopped sending (nothing for {timeout:g} s); what arrived is kept "
        "— start the download again to resume"
    )


@dataclass
class _Fetch:
    url: str
    label: str
    progress: ProgressCallback
    cancel: CancelToken
    timeout: float

    def _open(self, have: int) -> http.client.HTTPResponse:
        if not self.url.lower().startswith(("https://", "http://")):
            raise DownloadError(f"only http(s) downloads are supported: {self.url}")
        request = urllib.request.Request(self.url, headers={"User-Agent": USER_AGENT})
        if have:
            request.add_header("Range", f"bytes={have}-")
        try:
            return urllib.request.urlopen(request, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            if exc.code == 416 and have:
                raise _RangeRefused from exc
            raise DownloadError(f"the server answered {exc.code} {exc.reason}: {self.url}") from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise DownloadError(_stalled(self.label, self.timeout)) from exc
            raise DownloadError(f"could not reach the server: {exc.reason} ({self.url})") from exc
        except TimeoutError as exc:
            raise DownloadError(_stalled(self.label, self.timeout)) from exc

    def into(self, part: Path, have: int, size: int | None) -> tuple[Any, int, int]:
        """Append the rest of the file to `part`: (sha256 so far, bytes on disk, resumed from)."""
        with self._open(have) as response:
            if have and response.status != 206:  # the server ignored the range: start over
                have = 0
            if "text/html" in response.headers.get("Content-Type", "").lower():
                raise DownloadError(self._html())
            length = response.headers.get("Content-Length", "")
            total = have + int(length) if length.isdigit() else size
            hasher = _hash_of(part) if have else hashlib.sha256()
            try:
                got = self._write(part, response, hasher, have, total)
            finally:
                if part.is_file() and part.stat().st_size == 0:
                    part.unlink()  # nothing worth resuming
        if total is not None and got < total:
            raise DownloadError(
                f"{self.label}: the transfer was cut short ({_gb(got)} of {_gb(total)}); what "
                "arrived is kept — start the download again to resume"
            )
        if size is not None and got != size:
            part.unlink(missing_ok=True)
            raise DownloadError(f"{self.label}: the server sent {got} bytes, expected {size}")
        return hasher, got, have

    def _write(self, part: Path, response: Any, hasher: Any, have: int, total: int | None) -> int:
        with part.open("ab" if have else "wb") as out:
            try:
                return self._copy(response, out, hasher, have, total)
            finally:
                out.flush()
                os.fsync(out.fileno())

    def _html(self) -> str:
        return (
            "the server sent a web page instead of the model (an error or login page?): "
            f"{self.url}; nothing was installed"
        )

    def _copy(self, response: Any, out: BinaryIO, hasher: Any, done: int, total: int | None) -> int:
        first, reported = done == 0, done
        while True:
            self.cancel.raise_if_cancelled()
            try:
                block = response.read1(CHUNK)  # what has arrived: nothing is lost on a stall
            except http.client.IncompleteRead as exc:
                block = exc.partial or b""
            except TimeoutError as exc:
                raise DownloadError(_stalled(self.label, self.timeout)) from exc
            if not block:
                self.progress(Progress(Phase.DOWNLOAD, done, total or 0, self.label))
                return done
            if first and block.lstrip()[:1] == b"<":
                raise DownloadError(self._html())
            first = False
            out.write(block)
            hasher.update(block)
            done += len(block)
            if done - reported >= REPORT_EVERY:
                reported = done
                self.progress(Progress(Phase.DOWNLOAD, done, total or 0, self.label))


def download_entry(
    entry: CatalogEntry,
    folder: Path,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    timeout: float = 30.0,
) -> Path:
    """Download a catalog entry into `folder`: a chat model becomes one GGUF file, an embedding
    model a folder, filled under `<key>.part/` and renamed into place when every file is in."""
    cancel = cancel or CancelToken()
    target = folder / entry.target

    def fetch(file: RemoteFile, dest: Path) -> None:
        download_file(
            file.url,
            dest,
            sha256=file.sha256,
            size=file.size,
            progress=progress,
            cancel=cancel,
            timeout=timeout,
        )

    if entry.kind == "chat":
        file = entry.files[0]
        if file.size is None:  # otherwise download_file checks with the exact size
            check_space(folder, entry.approx_bytes - _bytes_under(folder / f"{file.path}.part"))
        fetch(file, target)
        return target
    if target.is_dir():
        return target
    staging = folder / f"{entry.key}.part"
    check_space(folder, entry.approx_bytes - _bytes_under(staging))
    for file in entry.files:
        dest = staging / file.path
        dest.parent.mkdir(parents=True, exist_ok=True)
        fetch(file, dest)
    os.replace(staging, target)
    return target


def _bytes_under(path: Path) -> int:
    """What an earlier attempt already left there (a .part file or a staging folder)."""
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0
