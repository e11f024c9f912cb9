"""A small, offset-exact Markdown block parser: front matter, headings, fenced code, text blocks.

Every block keeps `[start, end)` character offsets into the note's text, so chunks built from
blocks can point at exactly the passage the user will see highlighted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*$")
_FRONT_MATTER_END = re.compile(r"^(---|\.\.\.)[ \t]*$")


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
    metadata: dict[str, Any] = field(default_factory=dict)
    body_start: int = 0


def _lines_with_offsets(text: str) -> list[tuple[int, str]]:
    lines = []
    offset = 0
    for line in text.splitlines(keepends=True):
        lines.append((offset, line))
        offset += len(line)
    return lines


def _strip_eol(line: str) -> str:
    return line.rstrip("\r\n")


def parse_front_matter(text: str) -> tuple[dict[str, Any], int]:
    """Return YAML front matter as a dict and the offset where the body starts."""
    if not text.startswith("---"):
        return {}, 0
    lines = _lines_with_offsets(text)
    if not lines or _strip_eol(lines[0][1]).strip() != "---":
        return {}, 0
    for offset, line in lines[1:]:
        if _FRONT_MATTER_END.match(_strip_eol(line)):
            raw = text[len(lines[0][1]) : offset]
            return _load_yaml(raw), offset + len(line)
    return {}, 0


def _load_yaml(raw: str) -> dict[str, Any]:
    import yaml

    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def parse_markdown(text: str, markdown: bool = True) -> ParsedNote:
    metadata, body_start = parse_front_matter(text) if markdown else ({}, 0)
    lines = [(o, line) for o, line in _lines_with_offsets(text) if o >= body_start]
    blocks: list[Block] = []
    headings: list[tuple[int, str]] = []  # (level, title) stack
    para: list[tuple[int, str]] = []

    def path() -> tuple[str, ...]:
        return tuple(title for _, title in headings)

    def flush_para() -> None:
        if para:
            start = para[0][0]
            end = para[-1][0] + len(_strip_eol(para[-1][1]))
            blocks.append(Block("text", start, end, path()))
            para.clear()

    def push_heading(level: int, title: str, start: int, end: int) -> None:
        while headings and headings[-1][0] >= level:
            headings.pop()
        headings.append((level, title or "…"))
        blocks.append(Block("heading", start, end, path(), level))

    i = 0
    while i < len(lines):
        offset, raw = lines[i]
        line = _strip_eol(raw)
        if not line.strip():
            flush_para()
            i += 1
            continue
        if markdown and (fence := _FENCE.match(line)):
            flush_para()
            i = _consume_fence(lines, i, fence.group(1), blocks, path())
            continue
        if markdown and (atx := _ATX.match(line)):
            flush_para()
            push_heading(
                len(atx.group(1)), (atx.group(2) or "").strip(), offset, offset + len(line)
            )
            i += 1
            continue
        if markdown and len(para) == 1 and _SETEXT.match(line) and not para[0][1].startswith(" "):
            head_offset, head_raw = para.pop()
            level = 1 if line.strip().startswith("=") else 2
            push_heading(level, _strip_eol(head_raw).strip(), head_offset, offset + len(line))
            i += 1
            continue
        para.append((offset, raw))
        i += 1
    flush_para()
    return ParsedNote(blocks, metadata, body_start)


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
