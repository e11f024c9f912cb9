"""The command line's progress bar: block characters where the stream can show them."""

from __future__ import annotations

import io

import pytest

from desktop_app.cli.progress import ProgressBar
from desktop_app.core.cancel import Phase, Progress


class _Terminal(io.TextIOWrapper):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("terminal", [False, True])
@pytest.mark.parametrize(
    ("encoding", "bar"), [("cp1252", "[###---"), ("ascii", "[###---"), ("utf-8", "[███···")]
)
def test_the_bar_is_ascii_where_the_stream_cannot_encode_blocks(
    encoding: str, bar: str, terminal: bool
) -> None:
    raw = io.BytesIO()
    wrapper = _Terminal if terminal else io.TextIOWrapper
    stream = wrapper(raw, encoding=encoding, errors="backslashreplace")  # as sys.stderr
    progress = ProgressBar(stream, width=10)
    progress(Progress(Phase.INDEX, 0, 0))
    progress(Progress(Phase.EMBED, 3, 10, "poznámka.md"))  # a new phase: drawn at once
    progress(Progress(Phase.EMBED, 10, 10))
    progress.close()
    stream.flush()
    written = raw.getvalue().decode(encoding)
    assert bar in written
    assert "Indexing" + ("…" if encoding == "utf-8" else "...") in written
    assert "ka.md" in written


def test_every_phase_has_a_label_and_its_json_is_its_old_string() -> None:
    import dataclasses
    import json

    from desktop_app.cli.progress import _LABELS

    assert set(_LABELS) == set(Phase)
    assert [p.value for p in Phase] == ["index", "parts", "embed", "download", "ocr"]
    progress = dataclasses.asdict(Progress(Phase.DOWNLOAD, 1, 2))
    assert json.dumps(progress) == '{"phase": "download", "done": 1, "total": 2, "detail": ""}'
    assert Progress(Phase.EMBED, 0, 0).phase == "embed"  # a StrEnum: equal to its string
