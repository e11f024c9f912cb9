"""The downloader end to end against a real HTTP server on 127.0.0.1: a good file, a resumed
transfer after a cut, a wrong checksum, HTML error pages, a stalling server, no disk space,
cancel and resume, and a multi-file embedding model folder."""

from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from desktop_app.core.cancel import Cancelled, CancelToken, Phase, Progress
from desktop_app.core.models.catalog import CatalogEntry, RemoteFile
from desktop_app.core.models.download import DownloadError, download_entry, download_file

BODY = random.Random(7).randbytes(3 * (1 << 20) + 123)
SHA = hashlib.sha256(BODY).hexdigest()


@dataclass
class Server:
    url: str
    requests: list[tuple[str, str]] = field(default_factory=list)  # (path, Range header)
    release: threading.Event = field(default_factory=threading.Event)
    files: dict[str, bytes] = field(default_factory=dict)


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path, ranged = self.path, self.headers.get("Range", "")
            server.requests.append((path, ranged))
            first_try = sum(p == path for p, _ in server.requests) == 1
            if path == "/cut.bin" and first_try:
                return self._send(BODY, length=len(BODY), stop_after=len(BODY) // 3)
            if path == "/stall.bin" and first_try:
                return self._send(BODY, length=len(BODY), stop_after=200_000, stall=True)
            if path == "/error.html":
                return self._send(b"Repository not found", kind="text/html; charset=utf-8")
            if path == "/sneaky.bin":  # an error page served as a binary
                return self._send(b"\n<!DOCTYPE html><html>Sign in</html>")
            if path == "/missing.bin":
                self.send_error(404, "Not Found")
                return None
            body = server.files.get(path, BODY)
            return self._send(body, start=int(ranged[6:-1]) if ranged else 0)

        def _send(self, body: bytes, start: int = 0, length: int | None = None,
                  stop_after: int | None = None, stall: bool = False,
                  kind: str = "application/octet-stream") -> None:  # fmt: skip
            self.send_response(206 if start else 200)
            self.send_header("Content-Type", kind)
            if start:
                self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
            self.send_header("Content-Length", str(length or len(body) - start))
            self.end_headers()
            self.wfile.write(body[start : stop_after or len(body)])
            self.wfile.flush()
            if stall:
                server.release.wait(30)

        def log_message(self, *args: object) -> None:
            return

    return Handler


@pytest.fixture
def server() -> Iterator[Server]:
    state = Server("")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{httpd.server_port}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield state
    state.release.set()
    httpd.shutdown()
    httpd.server_close()
    thread.join(10)


def test_good_file_is_verified_and_renamed_into_place(server: Server, tmp_path: Path) -> None:
    seen: list[Progress] = []
    dest = tmp_path / "models" / "model.gguf"
    result = download_file(f"{server.url}/good.bin", dest, sha256=SHA, size=len(BODY),
                           progress=seen.append)  # fmt: skip
    assert dest.read_bytes() == BODY and result.verified and result.sha256 == SHA
    assert not dest.with_name("model.gguf.part").exists()
    assert seen[-1] == Progress(Phase.DOWNLOAD, len(BODY), len(BODY), "model.gguf")
    assert [p.done for p in seen] == sorted(p.done for p in seen) and len(seen) >= 3
    again = download_file(f"{server.url}/good.bin", dest, sha256=SHA)  # already there
    assert again.path == dest and len(server.requests) == 1


def test_truncated_transfer_keeps_the_part_and_resumes(server: Server, tmp_path: Path) -> None:
    dest = tmp_path / "model.gguf"
    with pytest.raises(DownloadError, match=r"cut short.*resume"):
        download_file(f"{server.url}/cut.bin", dest, sha256=SHA, size=len(BODY))
    part = tmp_path / "model.gguf.part"
    assert not dest.exists() and part.read_bytes() == BODY[: len(BODY) // 3]
    result = download_file(f"{server.url}/cut.bin", dest, sha256=SHA, size=len(BODY))
    assert server.requests[-1] == ("/cut.bin", f"bytes={len(BODY) // 3}-")
    assert result.resumed_from == len(BODY) // 3 and dest.read_bytes() == BODY
    assert not part.exists()


def test_wrong_checksum_deletes_the_file(server: Server, tmp_path: Path) -> None:
    dest = tmp_path / "model.gguf"
    with pytest.raises(DownloadError, match="checksum mismatch"):
        download_file(f"{server.url}/good.bin", dest, sha256="0" * 64)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("path", ["/error.html", "/sneaky.bin"])
def test_an_html_error_page_is_not_saved(server: Server, tmp_path: Path, path: str) -> None:
    with pytest.raises(DownloadError, match="web page instead of the model"):
        download_file(f"{server.url}{path}", tmp_path / "model.gguf")
    assert list(tmp_path.iterdir()) == []


def test_http_error_is_named(server: Server, tmp_path: Path) -> None:
    with pytest.raises(DownloadError, match="404"):
        download_file(f"{server.url}/missing.bin", tmp_path / "model.gguf")
    with pytest.raises(DownloadError, match=r"only http\(s\)"):
        download_file(f"file://{tmp_path}/x.gguf", tmp_path / "model.gguf")


def test_a_stalling_server_times_out_and_the_download_resumes(
    server: Server, tmp_path: Path
) -> None:
    dest = tmp_path / "model.gguf"
    with pytest.raises(DownloadError, match="stopped sending"):
        download_file(f"{server.url}/stall.bin", dest, sha256=SHA, timeout=0.5)
    assert (tmp_path / "model.gguf.part").stat().st_size == 200_000
    server.release.set()
    result = download_file(f"{server.url}/stall.bin", dest, sha256=SHA, timeout=5)
    assert result.resumed_from == 200_000 and dest.read_bytes() == BODY


def test_disk_space_is_checked_before_any_request(server: Server, tmp_path: Path) -> None:
    with pytest.raises(DownloadError, match="not enough disk space"):
        download_file(f"{server.url}/good.bin", tmp_path / "model.gguf", size=1 << 60)
    assert server.requests == []


def test_cancel_keeps_what_arrived_for_a_resume(server: Server, tmp_path: Path) -> None:
    token = CancelToken()
    dest = tmp_path / "model.gguf"

    def cancel_after_first(p: Progress) -> None:
        token.cancel()

    with pytest.raises(Cancelled):
        download_file(f"{server.url}/good.bin", dest, sha256=SHA, progress=cancel_after_first,
                      cancel=token)  # fmt: skip
    kept = (tmp_path / "model.gguf.part").stat().st_size
    assert 0 < kept < len(BODY) and not dest.exists()
    assert download_file(f"{server.url}/good.bin", dest, sha256=SHA).resumed_from == kept
    assert dest.read_bytes() == BODY


def test_an_embedding_model_folder_appears_only_when_complete(
    server: Server, tmp_path: Path
) -> None:
    server.files = {"/st/modules.json": b'[{"idx": 0}]', "/st/1_Pooling/config.json": b"{}"}
    files = (RemoteFile("modules.json", f"{server.url}/st/modules.json", 12, None),
             RemoteFile("1_Pooling/config.json", f"{server.url}/st/1_Pooling/config.json", None,
                        hashlib.sha256(b"{}").hexdigest()),
             RemoteFile("model.safetensors", f"{server.url}/cut.bin", len(BODY), SHA))  # fmt: skip
    entry = CatalogEntry("mini", "Mini", "embedding", "Apache-2.0", len(BODY), files)
    with pytest.raises(DownloadError, match="cut short"):
        download_entry(entry, tmp_path)
    assert not (tmp_path / "mini").exists()  # half a model never looks like a model
    folder = download_entry(entry, tmp_path)
    assert folder == tmp_path / "mini" and not (tmp_path / "mini.part").exists()
    assert (folder / "1_Pooling" / "config.json").read_bytes() == b"{}"
    assert (folder / "model.safetensors").read_bytes() == BODY


def test_a_chat_entry_downloads_one_file(server: Server, tmp_path: Path) -> None:
    file = RemoteFile("tiny-Q4_K_M.gguf", f"{server.url}/good.bin", len(BODY), SHA)
    entry = CatalogEntry("tiny", "Tiny", "chat", "MIT", len(BODY), (file,))
    assert download_entry(entry, tmp_path / "models") == tmp_path / "models" / "tiny-Q4_K_M.gguf"


def test_the_curated_list_is_well_formed() -> None:
    import re

    from desktop_app.core.models.catalog import CATALOG, find_entry

    assert len({e.key for e in CATALOG}) == len(CATALOG)
    assert {e.kind for e in CATALOG} == {"chat", "embedding"}
    for entry in CATALOG:
        assert find_entry(entry.key) is entry and entry.licence and entry.approx_bytes > 0
        for file in entry.files:
            assert file.url.startswith("https://huggingface.co/")
            assert "/resolve/main/" not in file.url  # pinned to a revision
            assert file.sha256 is None or re.fullmatch(r"[0-9a-f]{64}", file.sha256)
        if entry.kind == "chat":
            (file,) = entry.files
            assert file.path.endswith(".gguf") and file.sha256 and file.size
    with pytest.raises(KeyError, match="choose one of"):
        find_entry("gpt-5")
