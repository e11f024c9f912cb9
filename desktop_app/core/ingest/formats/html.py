"""Web pages (saved pages; Notion, Evernote and Obsidian exports) with the standard library's
parser, written as Markdown: scripts, styles, navigation, headers, footers and forms dropped;
`h1`–`h6` become headings, list items `- ` items, table rows `| … |`, `pre` fenced code.
Nothing is fetched: links and images are text only."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from desktop_app.core.ingest.document import Document
from desktop_app.core.ingest.note_file import NoteFailed, read_note
from desktop_app.core.text import code_fence

_SKIPPED = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "svg",
        "nav",
        "header",
        "footer",
        "aside",
        "form",
        "button",
        "select",
        "iframe",
        "head",
    }
)
_VOID = frozenset(
    {
        "br",
        "hr",
        "img",
        "input",
        "meta",
        "link",
        "area",
        "base",
        "col",
        "embed",
        "source",
        "track",
        "wbr",
    }
)
_BLOCKS = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "main",
        "blockquote",
        "dl",
        "dt",
        "dd",
        "figure",
        "figcaption",
        "ul",
        "ol",
        "table",
        "body",
        "details",
        "summary",
        "address",
    }
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
# Page furniture marked by role or class (DocBook's navheader / navfooter, site menus).
_FURNITURE_ROLES = frozenset({"navigation", "banner", "contentinfo", "search", "menu"})
_FURNITURE_CLASS = re.compile(
    r"(?:^|[\s_-])(?:nav|navbar|navheader|navfooter|navigation|menu|menubar|breadcrumbs?|"
    r"skip-?link|site-?header|site-?footer)(?:$|[\s_-])",
    re.IGNORECASE,
)


class _Markdown(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self.line: list[str] = []
        self.prefix = ""
        self.skipping: list[str] = []
        self.pre = 0
        self.cells: list[str] | None = None
        self.title: list[str] = []
        self.in_title = False
        self.lists: list[list[int]] = []  # open lists: [] for `ul`, [next number] for `ol`

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            if tag == "br" and not self.skipping:
                self.line.append("\n" if self.pre else " ")
            return
        if self.skipping or tag in _SKIPPED or _hidden(attrs) or _furniture(attrs):
            self.skipping.append(tag)
            return
        if tag == "title":
            self.in_title = True
        elif tag in _HEADINGS:
            self.end_block()
            self.prefix = "#" * _HEADINGS[tag] + " "
        elif tag in ("ul", "ol"):
            self.end_block()
            self.lists.append([] if tag == "ul" else [1])
        elif tag == "li":
            self.end_block()
            numbered = self.lists[-1] if self.lists else []
            self.prefix = f"{numbered[0]}. " if numbered else "- "
            if numbered:
                numbered[0] += 1
        elif tag == "sup":
            self.line.append("^")
        elif tag == "pre":
            self.end_block()
            self.pre += 1
        elif tag == "tr":
            self.end_block()
            self.cells = []
        elif tag in ("td", "th") and self.cells is not None:
            self.line = []
        elif tag in _BLOCKS:
            self.end_block()

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        if self.skipping:  # end tags may be left out (`li`, `p`): close up to the matching one
            if tag in self.skipping:
                while self.skipping.pop() != tag:
                    pass
            return
        if tag == "title":
            self.in_title = False
        elif tag == "pre":
            code = "".join(self.line).strip("\n")
            self.line = []
            if code.strip():
                fence = code_fence(code)
                self.blocks.append(f"{fence}\n{code}\n{fence}")
            self.pre = max(0, self.pre - 1)
        elif tag in ("td", "th") and self.cells is not None:
            self.cells.append(" ".join("".join(self.line).split()).replace("|", "/"))
            self.line = []
        elif tag == "tr" and self.cells is not None:
            if any(self.cells):
                self.blocks.append("| " + " | ".join(self.cells) + " |")
            self.cells = None
        elif tag in ("ul", "ol"):
            self.end_block()
            if self.lists:
                self.lists.pop()
        elif tag in _HEADINGS or tag == "li" or tag in _BLOCKS:
            self.end_block()

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        if self.in_title:
            self.title.append(data)
        else:
            self.line.append(data)

    def end_block(self) -> None:
        if self.pre or self.cells is not None:
            return
        text = " ".join("".join(self.line).split())
        self.line = []
        if text:  # an empty block (the `p` opening inside an `li`) keeps the item's marker
            prefix = self.prefix or ("\\" if re.match(r"^(?:#|```)", text) else "")
            self.blocks.append(prefix + text)
            self.prefix = ""


def _furniture(attrs: list[tuple[str, str | None]]) -> bool:
    for name, value in attrs:
        if name == "role" and value and value.strip().lower() in _FURNITURE_ROLES:
            return True
        if name in ("class", "id") and value and _FURNITURE_CLASS.search(value):
            return True
    return False


def _hidden(attrs: list[tuple[str, str | None]]) -> bool:
    for name, value in attrs:
        if name == "hidden" or (name == "aria-hidden" and value == "true"):
            return True
        if name == "style" and value and re.search(r"display\s*:\s*none", value):
            return True
    return False


def markdown_of(html: str) -> str:
    parser = _Markdown()
    parser.feed(html)
    parser.close()
    parser.end_block()
    blocks = parser.blocks
    title = " ".join("".join(parser.title).split())
    if title and not any(b.startswith("# ") for b in blocks[:3]):
        blocks.insert(0, f"# {title}")
    return _joined(blocks)


def _joined(blocks: list[str]) -> str:
    """Blank lines between blocks, none between rows of one table or items of one list."""
    out: list[str] = []
    for block in blocks:
        if out and _same_kind(block, out[-1].rsplit("\n", 1)[-1]):
            out[-1] += "\n" + block
        else:
            out.append(block)
    return "\n\n".join(out) + "\n"


def _same_kind(block: str, previous: str) -> bool:
    """Rows of one table, items of one list: kept on consecutive lines."""
    item = re.compile(r"^(?:- |\d+\. )")
    return (block[:2] == previous[:2] == "| ") or bool(item.match(block) and item.match(previous))


def load(path: Path, max_bytes: int) -> Document:
    decoded, _ = read_note(path, max_bytes)
    try:
        text = markdown_of(decoded.text)
    except Exception as exc:  # the parser is lenient; anything else is this file's problem
        raise NoteFailed(f"not a readable web page ({type(exc).__name__}: {exc})") from exc
    return Document(text, markdown=True, encoding=decoded.encoding, warning=decoded.warning)
