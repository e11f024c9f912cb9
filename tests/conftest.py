from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from desktop_app.core.api import Answers, Quire
from desktop_app.paths import sample_notes
from tests.support.fakes import FakeEmbedder, QueuedModel

pytest_plugins = ["pytester"]  # tests/core/test_fakes.py runs the harness on planted tests

ROOT = Path(__file__).resolve().parents[1]
SHARED_EVAL_DIR = ROOT.parent / "shared" / "eval"
MINI_EVAL_DIR = ROOT / "tests" / "data" / "eval-mini"
# The full eval sets (../shared/eval, next to a checkout of the project) when present; a clone
# without them runs on the small set in the repo, which has the same layout and format.
EVAL_DIR = SHARED_EVAL_DIR if (SHARED_EVAL_DIR / "score.py").is_file() else MINI_EVAL_DIR
# For a fixture or test that should run on both: the fake embedder, and the real one (slow).
EMBEDDERS = ["fake", pytest.param("real", marks=pytest.mark.slow)]
THREAD_GRACE_SECONDS = 2.0  # how long a test's threads get to finish after its teardown
# Threads a library starts once and keeps for the life of the process (not a test's leak):
# tqdm's monitor, started by the first progress bar (sentence-transformers loading the model).
PROCESS_THREADS = {"tqdm_monitor"}


class _Models:
    """Whether the running test uses the real embedding model (tests marked `slow` or
    `real_embedder`) or, in a module using `fake_embedder`, the fake one; read whenever a
    `Quire` is built (by module-scoped fixtures and `cli.main` too)."""

    real = False


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _Models.real = any(item.get_closest_marker(m) for m in ("slow", "real_embedder"))


@pytest.fixture(scope="module")
def fake_embedder() -> Iterator[None]:
    """While the module runs, every `Quire` opened by a test not marked `slow` (by the test, a
    fixture or `cli.main`) gets `FakeEmbedder` (fast and deterministic) as `Quire.open`'s
    `embedder`, unless the test passes its own. A module asks for it with
    `pytestmark = pytest.mark.usefixtures("fake_embedder")`."""
    factory = Quire.open

    def open_with_fakes(home: Path | None = None, *args: Any, **kwargs: Any) -> Quire:
        if kwargs.get("embedder") is None and not _Models.real:
            kwargs["embedder"] = FakeEmbedder()
        return factory(home, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Quire, "open", staticmethod(open_with_fakes))
        yield


@pytest.fixture
def queued_model(monkeypatch: pytest.MonkeyPatch) -> QueuedModel:
    """Every `Quire` answers with this fake model (queue answers on it: `.answers.append`)."""
    model = QueuedModel()
    monkeypatch.setattr(Answers, "chat_model", lambda self, path=None: model)
    return model


def _running_threads() -> set[threading.Thread]:
    # Threads that Qt's pool lends to Python show up as _DummyThread and never end in
    # threading's eyes; the window tests check Qt's pool instead (tests/ui/conftest.py).
    return {
        t
        for t in threading.enumerate()
        if not isinstance(t, threading._DummyThread) and t.name not in PROCESS_THREADS
    }


@pytest.fixture(autouse=True)
def no_thread_left_running(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails a test that leaves a thread of its own running after its teardown (set up first,
    torn down last, so the test's other fixtures have stopped what they started)."""
    before = _running_threads()
    yield
    deadline = time.monotonic() + THREAD_GRACE_SECONDS
    for thread in _running_threads() - before:
        thread.join(max(0.0, deadline - time.monotonic()))
    left = sorted(
        f"{t.name} ({'daemon' if t.daemon else 'non-daemon'}, target {_target(t)})"
        for t in _running_threads() - before
    )
    if left:
        pytest.fail(f"{request.node.nodeid} left threads running: {', '.join(left)}", False)


def _target(thread: threading.Thread) -> str:
    target = getattr(thread, "_target", None)
    return getattr(target, "__qualname__", type(thread).__name__)


@pytest.fixture(autouse=True)
def quire_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("QUIRE_HOME", str(home))
    return home


@pytest.fixture(scope="module")
def sample_keywords(
    tmp_path_factory: pytest.TempPathFactory, fake_embedder: None
) -> Iterator[Quire]:
    """The sample notes indexed by keywords only (no vectors), once per test module."""
    quire = Quire.open(tmp_path_factory.mktemp("home"))
    quire.index([sample_notes()], embed=False)
    yield quire
    quire.close()


@pytest.fixture
def notes_dir(tmp_path: Path) -> Path:
    """A small mixed-language notes folder."""
    folder = tmp_path / "notes"
    (folder / "sync").mkdir(parents=True)
    (folder / ".obsidian").mkdir()
    (folder / ".obsidian" / "config.md").write_text("# hidden\nnever index me", "utf-8")
    (folder / "sync" / "settings.md").write_text(
        "---\ntitle: Sync settings\ntags: [sync, setup]\n---\n"
        "# Sync\n\nQuire keeps folders in sync.\n\n"
        "## Settings\n\n### Selective sync\n\n"
        "Selective sync lets you choose which folders are copied to the laptop.\n"
        "Open Preferences and untick the folders you do not need.\n",
        "utf-8",
    )
    (folder / "kolo.md").write_text(
        "# Jízdní kola\n\nNa jaře jsem vyměnil řetěz na horském kole. Nový řetěz stál 600 korun "
        "a výměna trvala půl hodiny.\n",
        "utf-8",
    )
    (folder / "garten.txt").write_text(
        "Im Garten wachsen Tomaten und Gurken. Die Tomatenpflanzen brauchen viel Wasser "
        "und einen sonnigen Standort.\n",
        "utf-8",
    )
    # an attachment Quire does not read (pictures it reads by OCR: tests/core/test_ocr.py)
    (folder / "sketch.gif").write_bytes(b"GIF89a" + bytes(64))
    return folder


@pytest.fixture(scope="module")
def sample(
    tmp_path_factory: pytest.TempPathFactory, fake_embedder: None
) -> Iterator[tuple[Quire, Path]]:
    """The bundled sample notes, copied and indexed by keywords (one per test module)."""
    folder = tmp_path_factory.mktemp("sample") / "notes"
    shutil.copytree(sample_notes(), folder)
    quire = Quire.open(tmp_path_factory.mktemp("home"))
    quire.index([folder], embed=False)
    yield quire, folder
    quire.close()
