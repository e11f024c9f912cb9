"""A small, offset-exact Markdown block parser: front matter, headings, fenced code, text blocks.

Every block keeps `[start, end)` character offsets into the note's text, so chunks built from
blocks can point at exactly the passage the user will see highlighted.
"""

from __future__ import annotations

import re
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


@dataclass(frozen=True)
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


def _lines_with_offsets(text: str, start: int = 0) -> list[tuple[int, str]]:
    lines = []
    offset = start
    for line in text[start:].splitlines(keepends=True):
        lines.append((offset, line))
        offset += len(line)
    return lines


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

    try:
        data = yaml.load(raw, Loader=_front_matter_loader())
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        if isinstance(exc, FrontMatterRefused):
            raise
        return {}
    return data if isinstance(data, dict) else {}


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


class _Blocks:
    """The blocks found so far, the open paragraph's lines and the heading stack above them."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.headings: list[tuple[int, str]] = []  # (level, title) stack
        self.para: list[tuple[int, str]] = []

    def path(self) -> tuple[str, ...]:
        return tuple(title for _, title in self.headings)

    def flush_para(self) -> None:
        if self.para:
            start = self.para[0][0]
            end = self.para[-1][0] + len(_strip_eol(self.para[-1][1]))
            self.blocks.append(Block("text", start, end, self.path()))
            self.para.clear()

    def push_heading(self, level: int, title: str, start: int, end: int) -> None:
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, title or "…"))
        self.blocks.append(Block("heading", start, end, self.path(), level))


def parse_markdown(
    text: str, markdown: bool = True, headings: str = "", front: FrontMatter | None = None
) -> ParsedNote:
    """Blocks of a Markdown note, or of plain text (`markdown` False) whose `headings` follow
    org-mode, AsciiDoc or reStructuredText ("org", "asciidoc", "rst"; "" for none). `front`: its
    front matter when the caller has read it already."""
    if front is None:
        front = read_front_matter(text) if markdown else FrontMatter()
    lines = _lines_with_offsets(text, front.body_start)
    found = _Blocks()
    rst_levels: list[str] = []  # underline characters in the order they first appear
    i = 0
    while i < len(lines):
        spend()
        offset, raw = lines[i]
        line = _strip_eol(raw)
        if not line.strip():
            found.flush_para()
        elif markdown and (fence := FENCE.match(line)):
            found.flush_para()
            i = _consume_fence(lines, i, fence.group(1), found.blocks, found.path())
            continue
        elif markdown and (atx := ATX_HEADING.match(line)):
            found.flush_para()
            title = (atx.group(2) or "").strip()
            found.push_heading(len(atx.group(1)), title, offset, offset + len(line))
        elif (plain := _LINE_HEADINGS.get(headings)) and (m := plain.match(line)):
            found.flush_para()
            found.push_heading(len(m.group(1)), m.group(2), offset, offset + len(line))
        elif headings == "rst" and _is_rst_underline(line, found.para):
            head_offset, head_raw = found.para.pop()
            char = line.strip()[0]
            if char not in rst_levels:
                rst_levels.append(char)
            level = rst_levels.index(char) + 1
            found.push_heading(level, _strip_eol(head_raw).strip(), head_offset, offset + len(line))
        elif markdown and _is_setext_underline(line, found.para):
            head_offset, head_raw = found.para.pop()
            level = 1 if line.strip().startswith("=") else 2
            found.push_heading(level, _strip_eol(head_raw).strip(), head_offset, offset + len(line))
        else:
            found.para.append((offset, raw))
        i += 1
    found.flush_para()
    return ParsedNote(found.blocks, front)


def _is_rst_underline(line: str, para: list[tuple[int, str]]) -> bool:
    """A punctuation line at least as long as the single text line above it."""
    if len(para) != 1 or not _RST_UNDERLINE.match(line):
        return False
    title = _strip_eol(para[0][1])
    return bool(title.strip()) and len(line.rstrip()) >= len(title.rstrip())


def _is_setext_underline(line: str, para: list[tuple[int, str]]) -> bool:
    """`===` or `---` under a single unindented paragraph line makes that line a heading."""
    return len(para) == 1 and bool(_SETEXT.match(line)) and not para[0][1].startswith(" ")


def _consume_fence(
    lines: list[tuple[int, str]], i: int, opener: str, blocks: list[Block], path: tuple[str, ...]
) -> int:
    start = lines[i][0]
    char, length = opener[0], len(opener)
    j = i + 1
    while j < len(lines):
        stripped = _strip_eol(lines[j][1]).strip()
        if stripped.startswith(char * length) and not stripped.strip(char):
            break
        j += 1
    last = min(j, len(lines) - 1)
    end = lines[last][0] + len(_strip_eol(lines[last][1]))
    blocks.append(Block("code", start, end, path))
    return last + 1
