"""What must be verbatim is checked verbatim.

Code blocks, inline code, command lines, flags and options, file paths, URLs, identifiers and
anything an answer presents as a quotation of the notes mean nothing unless they are exactly
what the notes hold: sharing words with a note ("first commit", "repository") cannot vouch for
an invented `git ls-clone --head=1`. Each such span of an answer is looked up in the sources,
whitespace-normalised (quotations also ignoring case and Markdown emphasis); the ones found
in no source are reported with their span, to be marked in place and to keep their sentence
from counting as backed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from desktop_app.core.answer.support import CITATION
from desktop_app.core.retrieval import analyzer, languages
from desktop_app.core.text import FENCE, TextSpan, plain_text

# The label Quire puts before a sentence of the notes it quotes; a model imitating it is
# presenting its own words as the notes'.
NOTES_SAY = "Your notes say:"

CODE, COMMAND, FLAG, PATH, URL = "code", "command", "flag", "path", "url"
IDENTIFIER, QUOTE = "identifier", "quote"
_CLOSE = '"”“»«'
_FENCE = FENCE.pattern + r"[^\n]*"
_QUOTED = r"[\"“„«»](?P<v>[^\"“”„«»\n]{2,}?)[\"”“»«]"
_LABEL = r"(?P<label>(?i:your notes say)\s*:?\s*)"
_OPTION = r"--?[A-Za-z][\w-]*(?:=[^\s,;)]+)?"
_BLOCK = _FENCE + r"\n(?P<v>.*?)(?:" + _FENCE + r"$|\Z)"
_URL = r"(?P<v>(?:https?|ftp)://[^\s<>()\[\]`\"“”]+[^\s<>()\[\]`\"“”.,;:!?'])"
# options, with the command word right before them: "ls-clone --head=1"
_FLAGS = (
    rf"(?P<v>(?:(?<=\s)|^)(?:[a-z][\w.-]*[ \t]+)?{_OPTION}(?:[ \t]+{_OPTION})*)(?=[\s,;.:)!?]|$)"
)
# @directives, snake_case, CONSTANT_CASE, camelCase, calls()
_IDENTIFIER = (
    r"(?<![\w.@-])(?P<v>@{1,2}[a-z][\w-]*|[a-z][a-z0-9]*(?:_[a-z0-9]+)+"
    r"|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+_?|[a-z]+[A-Z][A-Za-z0-9]*"
    r"|\w+(?:\.\w+)*\(\))(?![\w-])"
)
# ~/x, /etc/hosts, ./tmp/a.txt, dir/file, config.yml, .envrc
_PATH = (
    r"(?<![\w/.~-])(?P<v>(?:~|\.{1,2})?/(?:[\w.-]+/)*[\w.-]*[\w-]"
    r"|(?:[\w.-]+/)+[\w.-]*[\w-]"
    r"|\.?[a-z0-9_-]{2,}(?:\.[a-z0-9_-]+)*\.[a-z][a-z0-9]{0,4})(?![\w/-])"
)
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (CODE, re.compile(_BLOCK, re.MULTILINE | re.DOTALL)),
    (CODE, re.compile(r"`(?P<v>[^`\n]+)`")),
    (URL, re.compile(_URL)),
    (QUOTE, re.compile(_LABEL + "?" + _QUOTED)),
    (QUOTE, re.compile(_LABEL + r"(?P<v>[^\"“„«»\s][^.!?\n]*)")),
    (COMMAND, re.compile(r"^[ \t]*(?P<v>\$ [^\n]+)", re.MULTILINE)),
    (FLAG, re.compile(_FLAGS, re.MULTILINE)),
    (IDENTIFIER, re.compile(_IDENTIFIER)),
    (PATH, re.compile(_PATH)),
)
# A flag's leading word that is ordinary prose ("use -p", "the --force"), not a command.
_PROSE_BEFORE_FLAG = frozenset(w for lang in languages.REGISTERED for w in lang.prose_before_flag)
_EMPHASIS = re.compile(r"[*_`]+")
_SHORT = 12  # items up to this long must stand alone in the source ("-p" is not in "--pretend")


@dataclass(frozen=True)
class VerbatimSpan(TextSpan):
    """A part of an answer that must be found as such in the notes (its text is what is
    marked, a quotation's label included)."""

    kind: str
    value: str  # what is looked up (the code inside its backticks, the quotation's words)


def spans(answer: str) -> list[VerbatimSpan]:
    """Every part of `answer` that must be verbatim, in text order, none overlapping (a code
    block before inline code, before a URL, a quotation, a command, a flag, a path, a name)."""
    blanked = blank_citations(answer)
    taken: list[VerbatimSpan] = []
    for kind, pattern in _PATTERNS:
        for span in _found_spans(kind, pattern, blanked):
            if not any(s.start < span.end and span.start < s.end for s in taken):
                taken.append(replace(span, text=answer[span.start : span.end]))
    return sorted(taken, key=lambda s: s.start)


def blank_citations(text: str) -> str:
    """`text` with every citation group turned into as many spaces (offsets stay)."""
    return CITATION.sub(lambda m: " " * len(m.group(0)), text)


def _found_spans(kind: str, pattern: re.Pattern[str], text: str) -> Iterator[VerbatimSpan]:
    for match in pattern.finditer(text):
        if kind == CODE and "\n" in match.group("v"):
            yield from _block_lines(match.start("v"), match.group("v"))
            continue
        start, end = match.span(0 if kind == CODE else "v")  # inline code marked with its ``
        value = match.group("v")
        if kind == FLAG:
            first = value.split()[0]
            if not first.startswith("-") and first.casefold() in _PROSE_BEFORE_FLAG:
                start += len(value) - len(value[len(first) :].lstrip())
                value = text[start:end]
        if kind == QUOTE and match.group("label"):
            start = match.start("label")
            if end < len(text) and text[end] in _CLOSE:
                end += 1
        if value.strip() and _worth_checking(kind, value):
            yield VerbatimSpan(start, end, text[start:end], kind, value.strip())


def _block_lines(offset: int, block: str) -> Iterator[VerbatimSpan]:
    """A code block is checked line by line, so only the invented lines are marked."""
    pos = 0
    for line in block.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if body.strip():
            lead = len(body) - len(body.lstrip())
            start = offset + pos + lead
            yield VerbatimSpan(
                start, offset + pos + len(body.rstrip()), body.strip(), CODE, body.strip()
            )
        pos += len(line)


def _worth_checking(kind: str, value: str) -> bool:
    if kind == QUOTE:  # a quoted word or two is a term, as in the note: look it up the same way
        return bool(analyzer.words(value))
    if kind == PATH:  # "and/or", "km/h", "input/output", a date "1/2": not paths
        rooted = value.startswith(("~", "/", "./", "../")) or value.count("/") >= 2
        named = "." in value.rsplit("/", 1)[-1].strip(".")
        return len(value) > 3 and (rooted or named) and not re.fullmatch(r"[\d/.]+", value)
    return True


class SourceTexts:
    """The sources' texts in the forms a span is looked up in."""

    def __init__(self, texts: list[str]) -> None:
        self.plain = [_spaced(t.replace("`", "")) for t in texts]
        # as written and as read (Quire quotes a line without its markup: `text.plain_text`)
        self.loose = [_loose(t) for t in texts] + [_loose(plain_text(t)) for t in texts]

    def holds(self, span: VerbatimSpan) -> bool:
        if span.kind == QUOTE:
            wanted = _loose(span.value).strip(" .,;:!?…")
            parts = [p.strip(" .,;:!?") for p in re.split(r"…|\.\.\.", wanted)]
            return all(any(p in s for s in self.loose) for p in parts if p)
        value = _spaced(span.value.replace("`", ""))
        if span.kind in (CODE, COMMAND) and value.startswith("$ "):
            value = value[2:]
        if len(value) <= _SHORT:
            edge = re.compile(rf"(?<![\w-]){re.escape(value)}(?![\w-])")
            return any(edge.search(s) for s in self.plain)
        return any(value in s for s in self.plain)


def _spaced(text: str) -> str:
    return " ".join(text.split())


def _loose(text: str) -> str:
    return _spaced(_EMPHASIS.sub("", text.replace("’", "'")).casefold())


def unfound(answer: str, source_texts: list[str]) -> list[VerbatimSpan]:
    """The spans of `answer` that must be verbatim and that no source holds."""
    sources = SourceTexts(source_texts)
    return [s for s in spans(answer) if not sources.holds(s)]
