"""A passage split into the units evidence can quote: sentences, list items, table rows and code.

Every unit is an exact span of its note (`note_text[start:end] == text`). Code is a unit too:
a fenced or indented block, or a `$ command` line, together with the sentence that introduces
it when one stands right before it ("…use `rev-list` to find the initial commit:" + the block)
and the one right after it that says what it does (unless that one introduces the next block),
because technical notes keep their answers in code and explain them next to it. A unit that is
only a link, an image, a URL or markup holds nothing to quote and is never one; the words inside
a URL are not the unit's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from desktop_app.core.retrieval import analyzer, languages
from desktop_app.core.text import (
    ATX_HEADING,
    COMMAND,
    FENCE,
    IMAGE,
    INDENTED,
    LIST_ITEM,
    SENTENCE_END,
    TextSpan,
)

SENTENCE, ITEM, ROW, CODE = "sentence", "item", "row", "code"
Span = tuple[int, int]  # start, end in the note
MAX_CODE_LINES = 15  # a longer block is cut into pieces…
CODE_PIECE = 12  # …at a blank line after half this many lines (each piece quoted to MAX_CODE_LINES)

_TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$")
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{2,}")
_ABBREVIATIONS = "|".join(re.escape(a) for lang in languages.REGISTERED for a in lang.abbreviations)
_ABBREVIATION = re.compile(rf"(?:\b(?:{_ABBREVIATIONS})|\b[A-Za-z]|\b\d{{1,2}})\.$")
# Links, images and URLs: `[text](target)` keeps its text, the target is no word of the unit.
_LINK_TARGET = re.compile(r"(\]\()[^)\s]*(?:\s+\"[^\"]*\")?(\))")
_URL = re.compile(r"<?(?:https?://|ftp://|www\.)[^\s<>]+>?")
_LINK_ONLY = re.compile(r"^\W*(?:!?\[[^\]]*\]\([^)]*\)\W*)+$")
_MARKUP = re.compile(r"<[^>\n]*>|[*_`~#>|\-=]+")
# A line that is all emphasis ("**Dough**", "__Kann ich offline arbeiten?__:") or a question on
# its own: a label over what follows (an FAQ's question), not something the note says.
_EMPHASISED = re.compile(r"(\*\*|__|\*|_)(?=\S)([^\n]+?)(?<=\S)\1[ \t]*:?")
_EMPHASIS_MARKS = re.compile(r"\*\*|__|(?<!\w)[*_]|[*_](?!\w)")
_QUESTION_END = re.compile(r"[?？][\s\"'”»)*_]*$")


@dataclass(frozen=True)
class Unit(TextSpan):
    """One sentence, list item, table row or code block of a note (`text` its exact span)."""

    kind: str  # SENTENCE, ITEM, ROW or CODE
    heading: str = ""  # the nearest heading above it inside the passage
    code: tuple[Span, ...] = ()  # each code block's lines (no fences), in the note


def words_of(text: str) -> str:
    """The text a reader reads: link and image targets and URLs left out, link texts kept."""
    text = IMAGE.sub(" ", text)
    text = _LINK_TARGET.sub(r"\1\2", text)
    return _URL.sub(" ", text)


def is_link_only(text: str) -> bool:
    """Only a link, an image, a URL or markup: nothing a note says."""
    if _LINK_ONLY.match(text.strip()):
        return True
    return not analyzer.words(_MARKUP.sub(" ", words_of(text)))


def is_question(text: str) -> bool:
    """A sentence that asks (its last word followed by a question mark)."""
    return bool(_QUESTION_END.search(text.strip()))


def is_label_line(line: str) -> bool:
    """A line of one sentence that labels what follows: all of it emphasised, without the full
    stop a sentence of the note ends with, or a question (an FAQ's)."""
    body = line.strip()
    if SENTENCE_END.search(body):
        return False  # more than one sentence: the note says something here
    emphasised = _EMPHASISED.fullmatch(body)
    if emphasised is not None:
        marks, inner = emphasised.group(1), emphasised.group(2).rstrip()
        if marks not in inner and not inner.endswith((".", "!")):
            return True
    return is_question(body)


def joined(a: Unit, b: Unit, passage: str, offset: int, longest: int) -> Unit | None:
    """A code unit and a sentence or code unit beside it, of one passage (its text starts at
    `offset` in the note), as one: when nothing but white space and fence lines stands between
    them and they hold `longest` characters at most together; None otherwise. Two sentences of
    prose stay apart, but a quote that holds code takes in the sentences beside it. Code units
    with only white space between are one block (a block cut at MAX_CODE_LINES, two `$`
    lines)."""
    first, second = sorted((a, b), key=lambda u: u.start)
    kinds = {first.kind, second.kind}
    if kinds - {SENTENCE, CODE} or CODE not in kinds or second.end - first.start > longest:
        return None
    gap = passage[first.end - offset : second.start - offset]
    if second.start < first.end or not _only_fences(gap):
        return None
    code = first.code + second.code
    if first.code and second.code and not gap.strip():
        between = passage[first.code[-1][1] - offset : second.code[0][0] - offset]
        if not between.strip():  # nothing but white space between the code: one block
            code = (*first.code[:-1], (first.code[-1][0], second.code[0][1]), *second.code[1:])
    text = passage[first.start - offset : second.end - offset]
    return Unit(first.start, second.end, text, CODE if code else SENTENCE, a.heading, code)


def _only_fences(text: str) -> bool:
    """Nothing but white space and code fence lines."""
    return not any(line.strip() and not FENCE.match(line) for line in text.splitlines())


def split_units(text: str, offset: int = 0) -> Iterator[Unit]:
    """Units of a passage whose first character sits at `offset` in its note."""
    yield from _Splitter(text, offset).units()


class _Splitter:
    """One pass over the lines: prose paragraphs become sentences; lists, tables, code and
    headings end a paragraph. A sentence is held back until what follows is known: the one right
    before a code block (blank lines between) is that block's lead, part of its unit; a block is
    held back too, for the sentence right after it (what the block does) when no block follows
    that sentence."""

    def __init__(self, text: str, offset: int) -> None:
        self.text, self.offset = text, offset
        self.paragraph: list[tuple[int, int]] = []  # line spans of the current prose paragraph
        self.heading = ""
        self.lead: Unit | None = None  # the last sentence, held back
        self.block: Unit | None = None  # the last code block, held back for what explains it
        self.code: list[tuple[int, int]] = []  # content line spans of the open code block
        self.fence = ""  # the open fence's marker ("" when none is open)
        self.blank_before = True
        self.after_item = False  # an indented line after a list item continues the item

    def units(self) -> Iterator[Unit]:
        pos = 0
        for line in self.text.splitlines(keepends=True):
            start, end = pos, pos + len(line.rstrip("\r\n"))
            pos += len(line)
            yield from self._line(start, end)
        yield from self._end_code()
        yield from self._paragraph()
        yield from self._flush_lead()
        yield from self._flush_code()

    def _line(self, start: int, end: int) -> Iterator[Unit]:
        body = self.text[start:end]
        fence = FENCE.match(body)
        if self.fence:
            if fence and self._closes(fence.group(1)):
                yield from self._end_code()
            else:
                self.code.append((start, end))
            return
        if self.code and (INDENTED.match(body) or not body.strip()):
            self.code.append((start, end))  # an indented block goes on (blank lines inside)
            return
        yield from self._end_code()
        yield from self._structure(body, start, end, fence.group(1) if fence else "")
        self.blank_before = not body.strip()

    def _closes(self, marker: str) -> bool:
        """A fence line closes the open block: the same character, at least as many of it."""
        return marker[0] == self.fence[0] and len(marker) >= len(self.fence)

    def _structure(self, body: str, start: int, end: int, fence: str) -> Iterator[Unit]:
        indented = INDENTED.match(body) and self.blank_before and not self.after_item
        if fence or (indented and not self.paragraph) or COMMAND.match(body):
            yield from self._paragraph()
            if fence:
                self.fence = fence
            else:
                self.code = [(start, end)]
                if COMMAND.match(body):
                    yield from self._end_code()
            return
        item = LIST_ITEM.match(body)
        if not body.strip() or ATX_HEADING.match(body) or item or _TABLE_ROW.match(body):
            yield from self._paragraph()
            if body.strip():
                yield from self._flush_lead()
                yield from self._flush_code()
                self.after_item = item is not None
        if ATX_HEADING.match(body):
            self.heading = body.strip().lstrip("#").strip()
        elif item is not None:
            yield from self._trimmed(start + item.end(), end, ITEM)
        elif _TABLE_ROW.match(body) and not _TABLE_RULE.match(body):
            yield from self._trimmed(start, end, ROW)
        elif body.strip() == "---":
            yield from self._flush_lead()
            yield from self._flush_code()
        elif body.strip():
            if not self.paragraph:
                yield from self._flush_lead()
            self.paragraph.append((start, end))
            self.after_item = self.after_item and body[:1].isspace()

    def _end_code(self) -> Iterator[Unit]:
        """The open code block as units: one, with its lead; a long block, one per stretch
        between blank lines (the lead goes with the first)."""
        if not self.code and not self.fence:
            return
        lines, self.code, self.fence = self.code, [], ""
        lead, self.lead = self.lead, None
        stretches = _stretches(self.text, lines) if len(lines) > MAX_CODE_LINES else [lines]
        for i, stretch in enumerate(s[:MAX_CODE_LINES] for s in stretches):
            while stretch and not self.text[stretch[-1][0] : stretch[-1][1]].strip():
                stretch.pop()
            if stretch:
                first = lead.start - self.offset if lead is not None and i == 0 else stretch[0][0]
                code = (stretch[0][0], stretch[-1][1])
                yield from self._trimmed(first, stretch[-1][1], CODE, code)
                lead = None
        self.lead = lead  # an empty block introduces nothing: its lead stays a sentence

    def _paragraph(self) -> Iterator[Unit]:
        lines, self.paragraph = self.paragraph, []
        if not lines:
            return
        text = self.text
        while lines and is_label_line(text[lines[0][0] : lines[0][1]]):
            yield from self._flush_lead()
            yield from self._flush_code()
            label = text[lines[0][0] : lines[0][1]]
            self.heading = _EMPHASIS_MARKS.sub("", label).strip().rstrip(":").strip()
            lines = lines[1:]
        if not lines:
            return
        first, last = lines[0][0], lines[-1][1]
        block = text[first:last]
        begin = 0
        for match in SENTENCE_END.finditer(block):
            if _ABBREVIATION.search(block[begin : match.start()].rstrip("\"'”»)")):
                continue
            yield from self._trimmed(first + begin, first + match.start(), SENTENCE)
            begin = match.end()
        yield from self._trimmed(first + begin, last, SENTENCE)

    def _flush_code(self) -> Iterator[Unit]:
        if self.block is not None:
            yield self.block
            self.block = None

    def _flush_lead(self) -> Iterator[Unit]:
        """The held sentence: alone, or, when it follows a held block and introduces no other,
        at the end of that block's unit (what the block does)."""
        lead, block, self.lead = self.lead, self.block, None
        if lead is None:
            return
        if block is None or lead.start < block.end:
            yield lead
            return
        self.block = None
        first, last = block.start - self.offset, lead.end - self.offset
        between = self.text[block.end - self.offset : lead.start - self.offset]
        if not _only_fences(between):
            yield block  # the block was cut (MAX_CODE_LINES): its sentence is not next to it
            yield lead
            return
        yield Unit(block.start, lead.end, self.text[first:last], CODE, block.heading, block.code)

    def _trimmed(
        self, start: int, end: int, kind: str, code: tuple[int, int] | None = None
    ) -> Iterator[Unit]:
        text = self.text
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end <= start or is_link_only(text[start:end]):
            return
        blocks: tuple[Span, ...] = ()
        if code is not None:  # the code lines, within the trimmed unit, in the note
            blocks = ((self.offset + max(code[0], start), self.offset + min(code[1], end)),)
        unit = Unit(
            self.offset + start, self.offset + end, text[start:end], kind, self.heading, blocks
        )
        if kind == CODE:
            yield from self._flush_code()
            self.block = unit  # held back: the sentence after it may say what it does
            return
        yield from self._flush_lead()
        if kind == SENTENCE:
            self.lead = unit  # held back: it may explain the block before or introduce the next
            return
        yield from self._flush_code()
        yield unit


def _stretches(text: str, lines: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """A long block's lines in pieces of at most CODE_PIECE lines, cut at blank lines."""
    out: list[list[tuple[int, int]]] = [[]]
    for span in lines:
        blank = not text[span[0] : span[1]].strip()
        if blank and len(out[-1]) >= CODE_PIECE // 2:
            out.append([])
        elif not blank or out[-1]:
            out[-1].append(span)
    return [s for s in out if s]
