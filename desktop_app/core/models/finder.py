"""Find GGUF chat models already on this computer: LM Studio, GPT4All, Jan, Ollama (its blobs
through its manifests), the Hugging Face cache, Quire's own downloads and folders the user adds.

Bounded and forgiving: a depth limit and an entry budget per folder, symlinked folders are not
followed, and an unreadable folder, a dangling link, a broken Ollama manifest or a file named
.gguf that is not GGUF becomes one line in `Scan.problems` — never an exception.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from desktop_app.core.answer.gguf import GgufInfo, ModelFileError, inspect_model
from desktop_app.core.answer.profile import profile_of
from desktop_app.core.models import memory
from desktop_app.core.models.locations import Root, model_roots

MAX_DEPTH = 6  # folder levels below a root
MAX_ENTRIES = 20_000  # directory entries looked at per root
NOT_CHAT = {"clip", "bert", "nomic-bert", "jina-bert-v2", "t5encoder", "wavtokenizer-dec"}
_SPLIT = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$", re.IGNORECASE)
_QUANT_IN_NAME = re.compile(
    r"(?:^|[-_.])((?:I?Q[1-8](?:_[A-Z0-9]+)*)|BF16|F16|F32)(?=$|[-_.])", re.IGNORECASE
)
_FILE_TYPES = {
    0: "F32",
    1: "F16",
    2: "Q4_0",
    3: "Q4_1",
    7: "Q8_0",
    8: "Q5_0",
    9: "Q5_1",
    10: "Q2_K",
    11: "Q3_K_S",
    12: "Q3_K_M",
    13: "Q3_K_L",
    14: "Q4_K_S",
    15: "Q4_K_M",
    16: "Q5_K_S",
    17: "Q5_K_M",
    18: "Q6_K",
    19: "IQ2_XXS",
    20: "IQ2_XS",
    21: "Q2_K_S",
    22: "IQ3_XS",
    23: "IQ3_XXS",
    24: "IQ1_S",
    25: "IQ4_NL",
    26: "IQ3_S",
    27: "IQ3_M",
    28: "IQ2_S",
    29: "IQ2_M",
    30: "IQ4_XS",
    31: "IQ1_M",
    32: "BF16",
    36: "TQ1_0",
    37: "TQ2_0",
}
_DIGEST = re.compile(r"sha256[:-]([0-9a-f]{64})")
OLLAMA_MODEL_LAYER = "application/vnd.ollama.image.model"


@dataclass(frozen=True)
class FoundModel:
    path: Path
    name: str
    source: str
    size_bytes: int
    quantization: str
    context_length: int
    architecture: str
    needed_bytes: int
    fits: bool | None  # None: this machine's RAM is unknown
    writes: str = "en"  # the languages its family writes ("any language", or codes)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "path": str(self.path)}


@dataclass
class Scan:
    models: list[FoundModel] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (path, why it was skipped)
    ram_bytes: int | None = None


@dataclass(frozen=True)
class _Candidate:
    path: Path
    source: str
    name: str = ""  # Ollama's "model:tag"; otherwise the file name is used


def quantization(info: GgufInfo) -> str:
    file_type = info.metadata.get("general.file_type")
    if isinstance(file_type, int) and file_type in _FILE_TYPES:
        return _FILE_TYPES[file_type]
    match = _QUANT_IN_NAME.search(info.path.stem)
    return match.group(1).upper() if match else "?"


def find_models(
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    extra: Iterable[str | Path] = (),
    downloads: Path | None = None,
    ram_bytes: int | None = None,
    max_entries: int = MAX_ENTRIES,
) -> Scan:
    """Every usable GGUF chat model under the known folders, each file once."""
    scan = Scan(ram_bytes=ram_bytes if ram_bytes is not None else memory.total_ram_bytes())
    roots = [Root("Quire downloads", downloads)] if downloads else []
    roots += [Root("Your folder", Path(p).expanduser()) for p in extra if isinstance(p, str | Path)]
    roots += model_roots(home, env)
    seen: set[str] = set()
    for root in roots:
        for candidate in _candidates(root, scan.problems, max_entries):
            real = os.path.realpath(candidate.path)
            if real in seen:
                continue
            seen.add(real)
            found = _describe(candidate, scan)
            if found is not None:
                scan.models.append(found)
    return scan


def _candidates(
    root: Root, problems: list[tuple[str, str]], max_entries: int
) -> Iterator[_Candidate]:
    try:
        if not root.path.is_dir():
            return
    except OSError:
        return
    if root.layout == "ollama":
        yield from _ollama(root, problems)
        return
    if root.layout == "huggingface":  # only models' snapshots, never datasets or blobs
        tops = sorted(p / "snapshots" for p in root.path.glob("models--*"))
        found = [f for top in tops if top.is_dir() for f in _walk(top, problems, max_entries)]
    else:
        found = list(_walk(root.path, problems, max_entries))
    files = sorted(found, key=lambda p: str(p).lower())
    for path in files:
        split = _SPLIT.search(path.name)
        if split and split.group(1) != "00001":
            continue  # later parts of a split model are loaded through the first one
        source = _hf_source(root, path) if root.layout == "huggingface" else root.source
        yield _Candidate(path, source)


def _hf_source(root: Root, path: Path) -> str:
    repo = path.relative_to(root.path).parts[0]
    return f"Hugging Face cache ({repo.removeprefix('models--').replace('--', '/')})"


def _walk(top: Path, problems: list[tuple[str, str]], max_entries: int) -> Iterator[Path]:
    """*.gguf files under `top`: depth-limited, entry-budgeted, symlinked folders not followed."""
    budget = max_entries
    stack = [(top, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as entries:
                listing = list(entries)
        except OSError as exc:
            problems.append((str(folder), f"cannot read this folder ({exc.strerror or exc})"))
            continue
        for entry in listing:
            budget -= 1
            if budget < 0:
                problems.append((str(top), f"stopped after {max_entries} entries (folder too big)"))
                return
            if entry.name.startswith("."):
                continue
            if entry.name.lower().endswith(".gguf"):
                if entry.is_symlink() and not os.path.exists(entry.path):
                    problems.append((entry.path, "a link to a file that no longer exists"))
                elif entry.is_file():
                    yield Path(entry.path)
            elif depth < MAX_DEPTH and entry.is_dir(follow_symlinks=False):
                stack.append((Path(entry.path), depth + 1))


def _ollama(root: Root, problems: list[tuple[str, str]]) -> Iterator[_Candidate]:
    """Ollama keeps weights as content-addressed blobs; manifests name them
    (manifests/<host>/<namespace>/<model>/<tag>)."""
    manifests = root.path / "manifests"
    for manifest in sorted(_manifest_files(manifests, problems)):
        host, namespace, model, tag = manifest.relative_to(manifests).parts
        try:
            digest = _model_digest(manifest)
        except (OSError, ValueError) as exc:
            problems.append((str(manifest), f"broken Ollama manifest: {exc}"))
            continue
        blob = root.path / "blobs" / f"sha256-{digest}"
        if not blob.is_file() and (root.path / "blobs" / f"sha256:{digest}").is_file():
            blob = root.path / "blobs" / f"sha256:{digest}"  # older Ollama versions
        if not blob.is_file():
            problems.append((str(manifest), f"the model blob sha256-{digest[:12]}… is missing"))
            continue
        prefix = "" if namespace == "library" else f"{namespace}/"
        if host != "registry.ollama.ai":
            prefix = f"{host}/{prefix}"
        yield _Candidate(blob, root.source, f"{prefix}{model}:{tag}")


def _manifest_files(manifests: Path, problems: list[tuple[str, str]]) -> Iterator[Path]:
    if not manifests.is_dir():
        return
    try:
        for host in manifests.iterdir():
            for namespace in _subdirs(host):
                for model in _subdirs(namespace):
                    yield from (t for t in _entries(model) if t.is_file())
    except OSError as exc:
        problems.append((str(manifests), f"cannot read Ollama's manifests ({exc})"))


def _entries(folder: Path) -> list[Path]:
    return list(folder.iterdir()) if folder.is_dir() and not folder.is_symlink() else []


def _subdirs(folder: Path) -> list[Path]:
    return [p for p in _entries(folder) if p.is_dir()]


def _model_digest(manifest: Path) -> str:
    if manifest.stat().st_size > 1 << 20:
        raise ValueError("too big for a manifest")
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError("not text") from exc
    layers = data.get("layers") if isinstance(data, dict) else None
    if not isinstance(layers, list):
        raise ValueError("no layer list")
    for layer in layers:
        if isinstance(layer, dict) and layer.get("mediaType") == OLLAMA_MODEL_LAYER:
            match = _DIGEST.fullmatch(str(layer.get("digest", "")))
            if not match:
                raise ValueError(f"odd digest {str(layer.get('digest'))[:80]!r}")
            return match.group(1)
    raise ValueError("no model layer")


def _describe(candidate: _Candidate, scan: Scan) -> FoundModel | None:
    try:
        return describe(candidate.path, candidate.source, scan.ram_bytes, candidate.name)
    except (ModelFileError, OSError) as exc:
        scan.problems.append((str(candidate.path), str(exc)))
        return None


def describe(path: Path, source: str, ram_bytes: int | None, name: str = "") -> FoundModel:
    """One GGUF chat model file; ModelFileError when it is not one."""
    info = inspect_model(path)
    if info.architecture in NOT_CHAT:
        raise ModelFileError(f"not a chat model ({info.architecture})")
    size = _total_size(path, info.size_bytes)
    needed = memory.needed_bytes(info, size)
    return FoundModel(
        path=path,
        name=name or path.name.removesuffix(".gguf"),
        source=source,
        size_bytes=size,
        quantization=quantization(info),
        context_length=info.context_length,
        architecture=info.architecture,
        needed_bytes=needed,
        fits=memory.fits(needed, ram_bytes),
        writes=profile_of(info, info.context_length).languages_label(),
    )


def _total_size(path: Path, size: int) -> int:
    """A split model's size is the sum of its parts."""
    split = _SPLIT.search(path.name)
    if not split:
        return size
    stem = path.name[: split.start()]
    total = int(split.group(2))
    parts = (path.with_name(f"{stem}-{i:05d}-of-{total:05d}.gguf") for i in range(2, total + 1))
    return size + sum(p.stat().st_size for p in parts if p.is_file())
