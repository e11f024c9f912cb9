"""A generated notes folder of hostile file names, with what Quire must make of each."""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path


def word(n: int) -> str:
    """A made-up word unique to note n, distinct in its first letters (prefix matches differ)."""
    letters = "".join(chr(ord("a") + int(d)) for d in f"{n:03d}")
    return f"{letters}quokkaword"


@dataclass
class Hostile:
    folder: Path
    good: dict[str, str] = field(default_factory=dict)  # stored path -> its unique word
    bad: dict[str, str] = field(default_factory=dict)  # stored path -> status it must have


def _note(n: int) -> bytes:
    return f"# Note {n}\n\nThis note mentions {word(n)} once.\n".encode()


def make_hostile_folder(root: Path, good_extra: int = 6) -> Hostile:
    """Good notes with hostile but valid names, plus files that must be reported, not indexed."""
    folder = root / "hostile"
    (folder / "sub").mkdir(parents=True)
    h = Hostile(folder)
    nfc = unicodedata.normalize("NFC", "café.md")
    nfd = unicodedata.normalize("NFD", "café.md")
    long_name = "l" * 251 + ".md"  # 254 bytes, just under the usual 255-byte limit
    good_names = [
        "line\nbreak.md", "tab\there.md", "CON.md", "aux.md", "note..md", "name. .md",
        nfc, nfd, long_name, "sub/\x1b[31mred.md", "émoji 🦆.md",
    ]  # fmt: skip
    good_names += [f"plain{i}.md" for i in range(good_extra)]
    for n, name in enumerate(good_names):
        (folder / name).write_bytes(_note(n))
        h.good[name] = word(n)
    n = len(good_names)
    # Names that are not valid UTF-8, at the top and in a subfolder whose name is not either.
    for raw in (b"caf\xe9.md", b"sub/\xff\xfe.md"):
        fd = os.open(os.fsencode(folder) + b"/" + raw, os.O_WRONLY | os.O_CREAT, 0o644)
        os.write(fd, _note(n))
        os.close(fd)
        n += 1
    h.bad["caf\\xe9.md"] = "failed"
    h.bad["sub/\\xff\\xfe.md"] = "failed"
    os.mkdir(os.fsencode(folder) + b"/d\xe9r")
    (folder / os.fsdecode(b"d\xe9r") / "inside.md").write_bytes(_note(n))
    h.bad["d\\xe9r/inside.md"] = "failed"
    (folder / "empty.md").write_bytes(b"")
    h.bad["empty.md"] = "skipped"
    (folder / "fake.md").write_bytes(b"\x00\x01binary")
    h.bad["fake.md"] = "skipped"
    outside = root / "outside.md"
    outside.write_bytes(_note(n))
    (folder / "link-out.md").symlink_to(outside)
    h.bad["link-out.md"] = "skipped"
    (folder / "dangling.md").symlink_to(root / "nowhere.md")
    h.bad["dangling.md"] = "skipped"
    os.mkfifo(folder / "pipe.md")
    h.bad["pipe.md"] = "skipped"
    return h
