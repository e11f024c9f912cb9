"""The model finder on fake LM Studio / GPT4All / Jan / Ollama / Hugging Face trees in a temp
home (real GGUF headers), including broken manifests, dangling links and non-GGUF files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from desktop_app import cli
from desktop_app.core.models.finder import FoundModel, find_models
from desktop_app.core.models.memory import MARGIN_BYTES, total_ram_bytes
from tests.support.fake_gguf import write_gguf

pytestmark = pytest.mark.usefixtures("fake_embedder")

GIB = 1 << 30
BLOB = "ab" * 32


def _manifest(path: Path, digest: str, media: str = "application/vnd.ollama.image.model") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    template = {"mediaType": "application/vnd.ollama.image.template", "digest": f"sha256:{BLOB}"}
    layers = [template, {"mediaType": media, "digest": f"sha256:{digest}", "size": 1}]
    path.write_text(json.dumps({"schemaVersion": 2, "layers": layers}), "utf-8")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "user"
    lms = home / ".lmstudio" / "models"
    write_gguf(lms / "lmstudio-community" / "Qwen-GGUF" / "Qwen2.5-3B-Instruct-Q4_K_M.gguf",
               name="Qwen2.5 3B", context=32768, file_type=15)  # fmt: skip
    write_gguf(home / ".cache" / "lm-studio" / "models" / "old" / "repo" / "phi-2.Q8_0.gguf",
               file_type=None)  # fmt: skip
    (lms / "pub" / "repo").mkdir(parents=True)
    (lms / "pub" / "repo" / "gone.gguf").symlink_to(lms / "pub" / "repo" / "deleted.gguf")
    (lms / "loop").symlink_to(lms)  # a symlinked folder is not followed (no endless loop)
    deep = lms.joinpath(*[f"d{i}" for i in range(10)])
    write_gguf(deep / "too-deep.gguf")
    write_gguf(lms / "pub" / "vision" / "mmproj-f16.gguf", arch="clip", file_type=1)
    gpt4all = home / ".local" / "share" / "nomic.ai" / "GPT4All"
    write_gguf(gpt4all / "Meta-Llama-3-8B-Instruct.Q4_0.gguf", file_type=2, context=8192)
    (gpt4all / "fake.gguf").write_text("<!DOCTYPE html><html>Sign in</html>")
    (gpt4all / "notes.txt").write_text("not a model")
    write_gguf(home / "jan" / "models" / "tinyllama" / "tinyllama-1.1b.gguf", file_type=14)
    jan_mac = home / "Library" / "Application Support" / "Jan" / "data" / "models"
    write_gguf(jan_mac / "gemma" / "gemma-2b-it-q6_k.gguf", arch="gemma", file_type=18)
    ollama = home / ".ollama" / "models"
    write_gguf(ollama / "blobs" / f"sha256-{BLOB}", name="Llama 3.2 3B", file_type=15)
    manifests = ollama / "manifests" / "registry.ollama.ai"
    _manifest(manifests / "library" / "llama3.2" / "3b", BLOB)
    _manifest(manifests / "library" / "llama3.2" / "latest", BLOB)  # same blob, listed once
    _manifest(ollama / "manifests" / "hf.co" / "bartowski" / "smol" / "Q8_0", "cd" * 32)
    (manifests / "library" / "broken" / "latest").parent.mkdir(parents=True)
    (manifests / "library" / "broken" / "latest").write_text("{not json", "utf-8")
    _manifest(manifests / "library" / "nolayer" / "latest", BLOB, media="application/x-other")
    hub = home / ".cache" / "huggingface" / "hub" / "models--Qwen--Qwen2.5-0.5B-Instruct-GGUF"
    write_gguf(hub / "blobs" / "f00d", name="Qwen2.5 0.5B", file_type=7)
    for rev in ("rev1", "rev2"):  # two snapshots, one blob
        (hub / "snapshots" / rev).mkdir(parents=True)
        (hub / "snapshots" / rev / "qwen2.5-0.5b-instruct-q8_0.gguf").symlink_to(
            Path("..") / ".." / "blobs" / "f00d"
        )
    return home


def _by_name(models: list[FoundModel]) -> dict[str, FoundModel]:
    return {m.name: m for m in models}


def test_finds_models_of_every_app_each_once(home: Path) -> None:
    scan = find_models(home=home, env={}, ram_bytes=16 * GIB)
    found = _by_name(scan.models)
    assert sorted(found) == sorted([
        "Qwen2.5-3B-Instruct-Q4_K_M", "phi-2.Q8_0", "Meta-Llama-3-8B-Instruct.Q4_0",
        "tinyllama-1.1b", "gemma-2b-it-q6_k", "llama3.2:3b", "qwen2.5-0.5b-instruct-q8_0",
    ])  # fmt: skip
    qwen = found["Qwen2.5-3B-Instruct-Q4_K_M"]
    assert (qwen.source, qwen.quantization, qwen.context_length) == ("LM Studio", "Q4_K_M", 32768)
    assert qwen.size_bytes == qwen.path.stat().st_size and qwen.fits is True
    assert found["phi-2.Q8_0"].quantization == "Q8_0"  # no file_type: read from the name
    assert found["Meta-Llama-3-8B-Instruct.Q4_0"].source == "GPT4All"
    assert {found["tinyllama-1.1b"].source, found["gemma-2b-it-q6_k"].source} == {"Jan"}
    assert found["gemma-2b-it-q6_k"].quantization == "Q6_K"
    llama = found["llama3.2:3b"]
    assert llama.source == "Ollama" and llama.path.name == f"sha256-{BLOB}"
    hf = found["qwen2.5-0.5b-instruct-q8_0"]
    assert hf.source == "Hugging Face cache (Qwen/Qwen2.5-0.5B-Instruct-GGUF)"
    assert hf.quantization == "Q8_0"


def test_bad_things_are_skipped_with_a_reason(home: Path) -> None:
    scan = find_models(home=home, env={}, ram_bytes=16 * GIB)
    reasons = {Path(p).name: r for p, r in scan.problems}
    assert "no longer exists" in reasons["gone.gguf"]
    assert "web page" in reasons["fake.gguf"]
    broken = {Path(p).parent.name: r for p, r in scan.problems if "Ollama manifest" in r}
    assert set(broken) == {"broken", "nolayer"}  # not JSON; no model layer
    assert "no model layer" in broken["nolayer"]
    assert "missing" in reasons["Q8_0"]  # manifest whose blob is not there
    assert "not a chat model (clip)" in reasons["mmproj-f16.gguf"]
    names = {m.path.name for m in scan.models}
    assert "too-deep.gguf" not in names  # beyond the depth limit


def test_unreadable_folder_is_reported_and_the_rest_still_found(home: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every folder")
    locked = home / ".lmstudio" / "models" / "locked"
    write_gguf(locked / "hidden.gguf")
    locked.chmod(0)
    try:
        scan = find_models(home=home, env={}, ram_bytes=16 * GIB)
    finally:
        locked.chmod(0o755)
    assert any("cannot read" in r for p, r in scan.problems if p.endswith("locked"))
    assert len(scan.models) == 7


def test_fits_ram_from_the_header(tmp_path: Path) -> None:
    small = write_gguf(tmp_path / "mine" / "small-Q4_K_M.gguf")
    # the header of a 70B-class model: 80 layers, 8 KV heads of 128 → 1.34 GB KV at 4096
    write_gguf(tmp_path / "mine" / "big-Q4_K_M.gguf", layers=80, width=8192, heads=64,
               kv_heads=8, context=131072)  # fmt: skip
    scan = find_models(home=tmp_path / "empty", env={}, extra=[str(tmp_path / "mine")],
                       ram_bytes=2 * GIB)  # fmt: skip
    found = _by_name(scan.models)
    assert found["small-Q4_K_M"].fits is True and found["small-Q4_K_M"].source == "Your folder"
    assert found["small-Q4_K_M"].needed_bytes >= small.stat().st_size + MARGIN_BYTES
    big = found["big-Q4_K_M"]
    assert big.fits is False and big.needed_bytes > 80 * 4096 * 8 * 256 * 2
    assert big.context_length == 131072
    unknown = find_models(home=tmp_path / "empty", env={}, extra=[tmp_path / "mine"], ram_bytes=0)
    assert {m.fits for m in unknown.models} == {None}


def test_environment_folders_are_honoured(tmp_path: Path) -> None:
    hf_home = tmp_path / "hf"
    snap = hf_home / "hub" / "models--org--model-GGUF" / "snapshots" / "abc"
    write_gguf(snap / "model-Q5_K_M.gguf", file_type=17)
    ollama = tmp_path / "ollama-store"
    write_gguf(ollama / "blobs" / f"sha256-{BLOB}")
    _manifest(ollama / "manifests" / "registry.ollama.ai" / "someone" / "mistral" / "7b", BLOB)
    local = tmp_path / "local"
    write_gguf(local / "nomic.ai" / "GPT4All" / "orca-mini-3b.gguf")
    env = {"HF_HOME": str(hf_home), "OLLAMA_MODELS": str(ollama), "LOCALAPPDATA": str(local)}
    found = _by_name(find_models(home=tmp_path / "nobody", env=env, ram_bytes=GIB).models)
    assert found["model-Q5_K_M"].source == "Hugging Face cache (org/model-GGUF)"
    assert found["someone/mistral:7b"].source == "Ollama"
    assert found["orca-mini-3b"].source == "GPT4All"


def test_split_models_are_listed_once_with_their_total_size(tmp_path: Path) -> None:
    folder = tmp_path / "split"
    first = write_gguf(folder / "big-Q4_K_M-00001-of-00002.gguf")
    second = write_gguf(folder / "big-Q4_K_M-00002-of-00002.gguf")
    found = find_models(home=tmp_path / "nobody", env={}, extra=[str(folder)], ram_bytes=GIB)
    assert [m.name for m in found.models] == ["big-Q4_K_M-00001-of-00002"]
    assert found.models[0].size_bytes == first.stat().st_size + second.stat().st_size


def test_quire_downloads_come_first_and_a_file_is_listed_once(tmp_path: Path) -> None:
    downloads = tmp_path / "quire" / "models"
    model = write_gguf(downloads / "qwen2.5-1.5b-instruct-q4_k_m.gguf")
    found = find_models(home=tmp_path / "nobody", env={}, extra=[str(downloads)],
                        downloads=downloads, ram_bytes=GIB)  # fmt: skip
    assert [(m.path, m.source) for m in found.models] == [(model, "Quire downloads")]


def test_total_ram_is_known_here() -> None:
    ram = total_ram_bytes()
    assert ram is not None and ram > 256 << 20


def test_cli_lists_found_models(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["models", "--json", "--home", str(home)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "llama3.2:3b" in {m["name"] for m in data["models"]}
    assert any("no longer exists" in s["reason"] for s in data["skipped"])
    assert cli.main(["models", "--home", str(home)]) == 0
    out = capsys.readouterr().out
    # the bundled model is listed first, with the languages each family writes
    assert "8 chat model(s) found" in out and "Qwen2.5-3B-Instruct-Q4_K_M  [LM Studio]" in out
    assert out.splitlines()[1].startswith("* SmolLM2-135M-Instruct") and "writes en" in out
    assert "[bundled with Quire]" in out
    assert cli.main(["models", "download"]) == 0
    assert "qwen2.5-1.5b" in capsys.readouterr().out
    assert cli.main(["models", "download", "nope"]) == 2
    assert "choose one of" in capsys.readouterr().err


def test_model_folders_setting_round_trips_and_drops_junk(tmp_path: Path) -> None:
    from desktop_app.settings import Settings

    path = tmp_path / "settings.json"
    Settings(model_folders=["/models/a", "~/b"]).save(path)
    assert Settings.load(path).model_folders == ["/models/a", "~/b"]
    path.write_text(json.dumps({"model_folders": ["/ok", 3, None], "chat_model": "x"}), "utf-8")
    loaded = Settings.load(path)
    assert loaded.model_folders == ["/ok"] and loaded.chat_model == "x"
    assert Settings.load(tmp_path / "none.json").model_folders == []


def test_hugging_face_datasets_and_blobs_are_not_walked(home: Path) -> None:
    hub = home / ".cache" / "huggingface" / "hub"
    write_gguf(hub / "datasets--someone--data" / "snapshots" / "r" / "weights.gguf")
    write_gguf(hub / "models--a--b" / "blobs" / "orphan.gguf")  # not in any snapshot
    names = {m.path.name for m in find_models(home=home, env={}, ram_bytes=GIB).models}
    assert "weights.gguf" not in names and "orphan.gguf" not in names


def test_a_huge_folder_is_cut_off_with_a_note(tmp_path: Path) -> None:
    folder = tmp_path / "huge"
    for i in range(12):
        write_gguf(folder / f"m{i:02d}.gguf")
    scan = find_models(home=tmp_path / "nobody", env={}, extra=[folder], ram_bytes=GIB,
                       max_entries=5)  # fmt: skip
    assert len(scan.models) == 5
    assert scan.problems == [(str(folder), "stopped after 5 entries (folder too big)")]
