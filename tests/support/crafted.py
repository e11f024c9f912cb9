"""Generated crafted notes: files made to cost a naive indexer time and memory out of all
proportion to their size (issue 36), each with the word a good part of it must still be found by."""

from __future__ import annotations

import base64
import random
from pathlib import Path

FOUND = "quokkabody"  # every crafted note's good part says this word


def alias_bomb() -> str:
    """YAML front matter whose aliases expand to 10^9 list items: 530 bytes on disk."""
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for n in range(1, 9):
        ref = ", ".join([f"*a{n - 1}"] * 10)
        levels.append(f"a{n}: &a{n} [{ref}]")
    front = "\n".join([*levels, "tags: *a8"])
    return f"---\n{front}\n---\n# Kept\n\nThe body says {FOUND} all the same.\n"


def many_headings(count: int = 200_000) -> str:
    heads = "".join(f"{'#' * (1 + n % 6)} H{n}\n" for n in range(count))
    return f"The first line says {FOUND}.\n\n{heads}"


def unbroken(size: int = 3_000_000) -> str:
    """A minified or base64 blob: no white space at all."""
    blob = base64.b64encode(random.Random(36).randbytes(size * 3 // 4)).decode()
    return f"{FOUND}:{blob}"


def data_uri(size: int = 2_000_000) -> str:
    """A note with one pasted image as a `data:` URI, as exported notes often carry."""
    blob = base64.b64encode(random.Random(37).randbytes(size * 3 // 4)).decode()
    image = f"![photo](data:image/png;base64,{blob})"
    return f"# Trip\n\nWe saw {FOUND} at the lake.\n\n{image}\n\nThe end.\n"


def nested_list(depth: int = 3_000) -> str:
    items = "".join(f"{'  ' * n}- item {n}\n" for n in range(depth))
    return f"# Deep\n\nA list that says {FOUND}:\n\n{items}"


CRAFTED = {
    "alias-bomb.md": alias_bomb,
    "headings.md": many_headings,
    "unbroken.txt": unbroken,
    "data-uri.md": data_uri,
    "nested-list.md": nested_list,
}


def write_crafted(folder: Path, scale: float = 1.0) -> dict[str, Path]:
    """The crafted notes in `folder`; `scale` below 1 makes the large ones smaller (tests)."""
    folder.mkdir(parents=True, exist_ok=True)
    sizes: dict[str, int] = {
        "headings.md": 200_000,
        "unbroken.txt": 3_000_000,
        "data-uri.md": 2_000_000,
        "nested-list.md": 3_000,
    }
    out = {}
    for name, make in CRAFTED.items():
        out[name] = folder / name
        text = make(int(sizes[name] * scale)) if name in sizes else make()  # type: ignore[call-arg]
        out[name].write_text(text, encoding="utf-8")
    return out


def _more_shapes() -> dict[str, str]:
    """Hostile shapes beyond the crafted notes: YAML nested deep (flow and block style) and too
    large, a deep table and a wide one, deep block quotes, very long lines, a long list of
    links."""
    rows = "".join(f"| {n} | {'x' * 40} |\n" for n in range(100_000))
    block_yaml = "".join(f"{'  ' * n}k{n}:\n" for n in range(200)) + f"{'  ' * 200}v: 1\n"
    return {
        "deep-table.md": f"# Table\n\n| a | b |\n|---|---|\n{rows}",
        "wide-table.md": "# Wide\n\n" + "| c " * 200_000 + "|\n" + "|---" * 200_000 + "|\n",
        "long-line.txt": " ".join(f"word{n % 977}" for n in range(600_000)),
        "long-line.md": "# One line\n\n" + "".join(f"**w{n % 311}**," for n in range(300_000)),
        "flow-yaml.md": "---\na: " + "[" * 5000 + "]" * 5000 + "\n---\n# Body\n\ntext\n",
        "block-yaml.md": f"---\n{block_yaml}---\n# Body\n\nThe body says {FOUND}.\n",
        "big-yaml.md": "---\n"
        + "".join(f"k{n}: {'v' * 60}\n" for n in range(20_000))
        + f"---\n# Body\n\nThe body says {FOUND}.\n",
        "deep-quote.md": "# Quotes\n\n" + "".join(f"{'>' * n} q{n}\n" for n in range(1, 3_000)),
        "links.md": "# Links\n\n" + "".join(f"- [l{n}](https://e.x/{n})\n" for n in range(100_000)),
    }


GOOD_NOTES = 12


def write_corpus(folder: Path) -> dict[str, Path]:
    """The whole hostile corpus in `folder`: the crafted notes, the shapes above, 2,000 small
    notes in `small/`, and GOOD_NOTES good notes (`good{n}.md`, each saying `goodword{n}`)."""
    out = write_crafted(folder)
    for name, text in _more_shapes().items():
        out[name] = folder / name
        out[name].write_text(text, encoding="utf-8")
    small = folder / "small"
    small.mkdir()
    for n in range(2_000):
        (small / f"n{n}.md").write_text(f"# Small {n}\n\nA short note {n}.\n", encoding="utf-8")
    out["small/ (2,000 notes)"] = small
    for n in range(GOOD_NOTES):
        path = folder / f"good{n}.md"
        path.write_text(f"# Good {n}\n\nSays goodword{n}.\n", "utf-8")
    return out
