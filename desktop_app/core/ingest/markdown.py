"""A small, offset-exact Markdown block parser: front matter, headings, fenced code, text blocks.

Every block keeps `[start, end)` character offsets into the note's text, so chunks built from
blocks can point at exactly the passage the user will see highlighted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from desktop_app.core.ingest.budget import spend
from desktop_app.core.text import ATX_HEADING, FENCE

_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*$")
# Headings of the other plain-text formats: org-mode "** Title", AsciiDoc "== Title",
# reStructuredText a title underlined with one punctuation character repeated.
_LINE_HEADINGS = {
    "org": re.compile(r"(\*+)[ \t]+(.+?)[ \t]*$"),
    "asciidoc": re.compile(r"(={1,6})[ \t]+(.+?)[ \t]*$"),
}
_RST_UNDERLINE = re.compile(r"([=\-~^\"'`#*+:._])\1{2,}[ \t]*$")


@dataclass(frozen=True, slots=True)
class Block:
    kind: str  # "heading", "code", "text"
    start: int
    end: int
    heading_path: tuple[str, ...]
    level: int = 0


@dataclass
class ParsedNote:
    blocks: list[Block]
    front: FrontMatter


def _strip_eol(line: str) -> str:
    return line.rstrip("\r\n")


# A front matter is a few named values: one larger, deeper or with aliases (a "billion laughs"
# grows a few hundred bytes into gigabytes) is not read, and the note's status says why.
FRONT_MATTER_BYTES = 64 * 1024
FRONT_MATTER_DEPTH = 20
_FRONT_MATTER_CLOSE = re.compile(r"(?:^|(?<=\r))(?:---|\.\.\.)[ \t]*(?:\r\n|\r|\n|$)", re.MULTILINE)
_FIRST_LINE = re.compile(r"---[ \t]*(?:\r\n|\r|\n)")


class FrontMatterRefused(ValueError):
    """A front matter over a bound (size, depth, aliases): the reason is the message."""


@dataclass(frozen=True)
class FrontMatter:
    metadata: dict[str, Any] = field(default_factory=dict)
    body_start: int = 0
    problem: str = ""  # why a front matter was not read ("" when read or absent)


def read_front_matter(text: str) -> FrontMatter:
    """The YAML front matter as a dict, the offset where the body starts, and why a front matter
    over its bounds was not read (its body is still the note's)."""
    first = _FIRST_LINE.match(text)
    if first is None:
        return FrontMatter()
    close = _FRONT_MATTER_CLOSE.search(text, first.end())
    if close is None:
        return FrontMatter()
    raw = text[first.end() : close.start()]
    if len(raw) > FRONT_MATTER_BYTES:
        problem = f"front matter not read: longer than {FRONT_MATTER_BYTES // 1024} KB"
        return FrontMatter({}, close.end(), problem)
    try:
        return FrontMatter(_load_yaml(raw), close.end())
    except FrontMatterRefused as exc:
        return FrontMatter({}, close.end(), f"front matter not read: {exc}")


def parse_front_matter(text: str) -> tuple[dict[str, Any], int]:
    """Return YAML front matter as a dict and the offset where the body starts."""
    front = read_front_matter(text)
    return front.metadata, front.body_start


def _load_yaml(raw: str) -> dict[str, Any]:
    import yaml

    fast = _fast_loader() if _plain(raw) else None
    if fast is not None:
        try:
            data = yaml.load(raw, Loader=fast)
        except (yaml.YAMLError, ValueError, RecursionError):
            return _load_checked(raw)  # the checked loader says what is wrong, as it always did
        return data if isinstance(data, dict) else {}
    return _load_checked(raw)


def _load_checked(raw: str) -> dict[str, Any]:
    import yaml

    try:
        data = yaml.load(raw, Loader=_front_matter_loader())
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        if isinstance(exc, FrontMatterRefused):
            raise
        return {}
    return data if isinstance(data, dict) else {}


def _plain(raw: str) -> bool:
    """No alias or anchor can be in it, and no nesting near FRONT_MATTER_DEPTH: each level takes
    a character of indentation, a `- ` or a bracket, so the count of those bounds the depth.
    Such a front matter (nearly every one) is read by libyaml's C parser (`_fast_loader`)."""
    if "*" in raw or "&" in raw:
        return False
    indent = max((len(ln) - len(ln.lstrip(" -")) for ln in raw.splitlines()), default=0)
    depth = deepest = 0
    for bracket in _BRACKETS.findall(raw):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return indent + deepest < FRONT_MATTER_DEPTH


_BRACKETS = re.compile(r"[\[\]{}]")


@cache
def _front_matter_loader() -> type:
    """YAML's safe loader, but dates stay text: `date: 2026-02-31` must not lose the whole front
    matter (YAML raises on it), and every date is judged by one parser (`core.retrieval.dates`).
    It refuses aliases (`*name`) and nesting deeper than FRONT_MATTER_DEPTH."""
    import yaml

    class Loader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                raise FrontMatterRefused("it uses YAML aliases (*name)")
            self.depth += 1
            if self.depth > FRONT_MATTER_DEPTH:
                raise FrontMatterRefused(f"nested deeper than {FRONT_MATTER_DEPTH} levels")
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    def as_text(loader: yaml.SafeLoader, node: yaml.Node) -> str:
        return str(loader.construct_scalar(node))  # type: ignore[arg-type]

    Loader.add_constructor("tag:yaml.org,2002:timestamp", as_text)
    return Loader


@cache
def _fast_loader() -> type | None:
    """libyaml's safe loader, dates kept as text too; None where PyYAML was built without it."""
    import yaml

    base = getattr(yaml, "CSafeLoader", None)
    if base is None:
        return None

    class LibyamlLoader(base):  # type: ignore[misc,valid-type]
        pass

    def as_text(loader: Any, node: Any) -> str:
        return str(loader.construct_scalar(node))

    LibyamlLoader.add_constructor("tag:yaml.org,2002:timestamp", as_text)
    return LibyamlLoader


class _Blocks:
    """The blocks found and not yet taken, the open paragraph and the heading stack above it.

    The open paragraph is kept as its first line and where it starts and ends (not a list of its
    lines), and the heading path is one tuple shared by every block under the same heading: a
    note of many lines or headings leaves few objects behind for the cyclic collector to walk."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.headings: list[tuple[int, str]] = []  # (level, title) stack
        self.path: tuple[str, ...] = ()
        self.para_lines = 0
        self.para_start = self.para_end = 0
        self.para_first = ""  # the paragraph's first line, with its line break

    def add_line(self, offset: int, raw: str) -> None:
        if not self.para_lines:
            self.para_start, self.para_first = offset, raw
        self.para_end = offset + len(_strip_eol(raw))
        self.para_lines += 1

    def flush_para(self) -> None:
        if self.para_lines:
            self.blocks.append(Block("text", self.para_start, self.para_end, self.path))
            self.para_lines = 0

    def taken(self) -> list[Block]:
        """The blocks found since the last call."""
        blocks, self.blocks = self.blocks, []
        return blocks

    def title_line(self) -> tuple[int, str] | None:
        """The open paragraph's one line (the title an underline makes a heading of), if it
        has exactly one."""
        return (self.para_start, self.para_first) if self.para_lines == 1 else None

    def push_heading(self, level: int, title: str, start: int, end: int) -> None:
        self.para_lines = 0
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, title or "…"))
        self.path = tuple(title for _, title in self.headings)
        self.blocks.append(Block("heading", start, end, self.path, level))


def parse_markdown(
    text: str, markdown: bool = True, headings: str = "", front: FrontMatter | None = None
) -> ParsedNote:
    """Blocks of a Markdown note, or of plain text (`markdown` False) whose `headings` follow
    org-mode, AsciiDoc or reStructuredText ("org", "asciidoc", "rst"; "" for none). `front`: its
    front matter when the caller has read it already."""
    if front is None:
        front = read_front_matter(text) if markdown else FrontMatter()
    return ParsedNote(list(iter_blocks(text, markdown, headings, front.body_start)), front)


def iter_blocks(
    text: str, markdown: bool = True, headings: str = "", body_start: int = 0
) -> Iterator[Block]:
    """`parse_markdown`'s blocks of the body starting at `body_start`, one at a time as they are
    found: the chunker packs them as they come, so a note of many blocks never has them all in
    memory at once."""
    lines = text[body_start:].splitlines(keepends=True)
    found = _Blocks()
    rst_levels: list[str] = []  # underline characters in the order they first appear
    i, offset = 0, body_start
    while i < len(lines):
        spend()
        yield from found.taken()
        raw = lines[i]
        line = _strip_eol(raw)
        if not line.strip():
            found.flush_para()
        elif markdown and (fence := FENCE.match(line)):
            found.flush_para()
            i, offset = _consume_fence(lines, i, offset, fence.group(1), found)
            continue
        elif markdown and (atx := ATX_HEADING.match(line)):
            found.flush_para()
            title = (atx.group(2) or "").strip()
            found.push_heading(len(atx.group(1)), title, offset, offset + len(line))
        elif (plain := _LINE_HEADINGS.get(headings)) and (m := plain.match(line)):
            found.flush_para()
            found.push_heading(len(m.group(1)), m.group(2), offset, offset + len(line))
        elif headings == "rst" and (head := _rst_title(line, found)):
            char = line.strip()[0]
            if char not in rst_levels:
                rst_levels.append(char)
            level = rst_levels.index(char) + 1
            found.push_heading(level, _strip_eol(head[1]).strip(), head[0], offset + len(line))
        elif markdown and (head := _setext_title(line, found)):
            level = 1 if line.strip().startswith("=") else 2
            found.push_heading(level, _strip_eol(head[1]).strip(), head[0], offset + len(line))
        else:
            found.add_line(offset, raw)
        offset += len(raw)
        i += 1
    found.flush_para()
    yield from found.taken()


def _rst_title(line: str, found: _Blocks) -> tuple[int, str] | None:
    """The single text line above a punctuation line at least as long as it."""
    head = found.title_line()
    if head is None or not _RST_UNDERLINE.match(line):
        return None
    title = _strip_eol(head[1])
    return head if title.strip() and len(line.rstrip()) >= len(title.rstrip()) else None


def _setext_title(line: str, found: _Blocks) -> tuple[int, str] | None:
    """`===` or `---` under a single unindented paragraph line makes that line a heading."""
    head = found.title_line()
    if head is None or head[1].startswith(" ") or not _SETEXT.match(line):
        return None
    return head


def _consume_fence(
    lines: list[str], i: int, offset: int, opener: str, found: _Blocks
) -> tuple[int, int]:
    """The fenced code block opening at line `i` (at `offset`): the line and offset after it."""
    char, length = opener[0], len(opener)
    start = end = offset
    j = i
    while j < len(lines):
        end = offset + len(_strip_eol(lines[j]))
        offset += len(lines[j])
        stripped = _strip_eol(lines[j]).strip()
        if j > i and stripped.startswith(char * length) and not stripped.strip(char):
            break
        j += 1
    found.blocks.append(Block("code", start, end, found.path))
    return min(j, len(lines) - 1) + 1, offset
