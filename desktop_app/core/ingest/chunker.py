"""Structure-aware chunking: follow the heading tree, keep blocks whole, size by tokens.

Chunks are exact spans: `text[chunk.start:chunk.end] == chunk.text` always holds.
A second pass (`split_for_embedder`) cuts chunks the embedding model would truncate into
labelled, slightly overlapping parts, so no text is ever silently cut.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace

from desktop_app.core.ingest.budget import spend
from desktop_app.core.ingest.markdown import Block, FrontMatter, iter_blocks, read_front_matter
from desktop_app.core.text import SENTENCE_BREAK, finditer_windowed

TokenCounter = Callable[[str], int]
TokenOffsets = Callable[[str], list[tuple[int, int]]]  # (start, end) per token

_SPACE = re.compile(r"\s")


@dataclass(frozen=True)
class Chunk:
    start: int
    end: int
    line_start: int  # 1-based, inclusive
    line_end: int
    heading_path: tuple[str, ...]
    text: str
    page_start: int | None = None  # 1-based pages of a paged document (PDF)
    page_end: int | None = None


@dataclass(frozen=True)
class Part:
    """A piece of a chunk sized for the embedder (offsets into the note, 1-based number)."""

    start: int
    end: int
    number: int
    count: int


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int
    heading_path: tuple[str, ...]
    tokens: int  # counted once; packing adds these up
    is_heading: bool = False
    opens: bool = False  # always starts a chunk (a journal's date heading)


_LINE_END = re.compile(r"\r\n|\r|\n")


class LineIndex:
    """Maps character offsets to 1-based line numbers."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in finditer_windowed(_LINE_END, text)]

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)


def chunk_note(
    text: str,
    count_tokens: TokenCounter,
    target_tokens: int = 200,
    markdown: bool = True,
    headings: str = "",
    opens_chunk: Callable[[str], bool] = lambda _: False,
    front: FrontMatter | None = None,
) -> tuple[list[Chunk], dict]:
    """Split a note into chunks along its structure. Returns the chunks and the front matter.

    Chunks aim at `target_tokens`; a single paragraph, list, table or code block stays whole up
    to twice that, and a small tail is merged into the chunk before it. A heading for which
    `opens_chunk` holds (a journal's date) always starts a chunk, however small the one before.
    `front`: the note's front matter when the caller has read it.
    """
    if front is None:
        front = read_front_matter(text) if markdown else FrontMatter()
    # Blocks, spans and groups flow through one at a time: only the chunks are ever all kept.
    blocks = iter_blocks(text, markdown, headings, front.body_start)
    spans = (
        replace(s, opens=True)
        if s.is_heading and s.heading_path and opens_chunk(s.heading_path[-1])
        else s
        for s in _spans_from_blocks(text, blocks, count_tokens, 2 * target_tokens)
    )
    groups = _merge_small_tails(_pack(spans, target_tokens), target_tokens)
    lines = LineIndex(text)
    chunks = (_make_chunk(text, group, lines) for group in groups)
    return [c for c in chunks if c.text.strip()], front.metadata


def pack_spans(text: str, spans: list[Span], target_tokens: int) -> list[Chunk]:
    """Chunks of `spans` found by another reader (a PDF's headings and paragraphs), packed as
    a note's are, except that a heading always ends a chunk holding no heading: the tail of the
    section before (a page break cut it, or the chunk before filled up) joins the chunk before
    it when small, instead of heading the next section's chunk."""
    groups = _merge_small_tails(_pack(spans, target_tokens, tails_back=True), target_tokens)
    lines = LineIndex(text)
    return [_make_chunk(text, group, lines) for group in groups]


# A `data:` URI with a long payload (an image pasted into an exported note) is no text to read:
# it is left out of every chunk, and the text after it starts a chunk of its own. A short one
# (`data:text/plain,hello` in a note about data URIs) is text like any other.
DATA_URI = re.compile(r"data:[\w.+-]+/[\w.+-]+(?:;[\w.+=-]+)*,[\w+/=%.-]{200,}")


def _spans_from_blocks(
    text: str, blocks: Iterable[Block], count: TokenCounter, target: int
) -> Iterator[Span]:
    for block in blocks:
        spend()
        if block.kind == "text" and "data:" in text[block.start : block.end]:
            pieces = _around_data_uris(text, block.start, block.end)
        else:
            pieces = [(block.start, block.end, False)]
        for start, end, after_gap in pieces:
            found = _block_spans(text, block, start, end, count, target)
            if after_gap and found:
                found[0] = replace(found[0], opens=True)
            yield from found


def _around_data_uris(text: str, start: int, end: int) -> list[tuple[int, int, bool]]:
    """The stretches of text[start:end] outside its data URIs, each with whether one precedes it."""
    pieces = []
    pos, gap = start, False
    for uri in DATA_URI.finditer(text, start, end):
        if text[pos : uri.start()].strip():
            pieces.append((pos, uri.start(), gap))
        pos, gap = uri.end(), True
    if text[pos:end].strip():
        pieces.append((pos, end, gap))
    return pieces


def _block_spans(
    text: str, block: Block, start: int, end: int, count: TokenCounter, target: int
) -> list[Span]:
    if block.kind == "heading":
        body = text[start:end]
        return [Span(start, end, block.heading_path, count(body), True)]
    return [
        Span(start + a, start + b, block.heading_path, tokens)
        for a, b, tokens in block_pieces(text[start:end], count, target, block.kind == "code")
    ]


def block_pieces(
    body: str, count: TokenCounter, limit: int, by_lines: bool = False
) -> list[tuple[int, int, int]]:
    """A block whole, or cut into pieces of at most `limit` tokens; each with its tokens."""
    tokens = count(body)
    if tokens <= limit:
        return [(0, len(body), tokens)]
    return [(a, b, count(body[a:b])) for a, b in split_oversized(body, count, limit, by_lines)]


def _tokens(spans: list[Span]) -> int:
    return sum(s.tokens for s in spans)


def _pack(spans: Iterable[Span], target: int, tails_back: bool = False) -> Iterator[list[Span]]:
    """Greedy packing: a heading opens a new chunk unless the current one is still tiny.

    The headings at the end of the current chunk (`heads`, from index `heads_at`) are carried
    into the next one; they are tracked as they come, so a note of headings only stays linear,
    and a run of headings alone larger than `target` is a chunk of its own."""
    min_tokens = max(1, target // 4)
    current: list[Span] = []
    current_tokens = heads_at = heads_tokens = 0
    for span in spans:
        tokens = span.tokens
        starts_section = span.is_heading and (
            current_tokens >= min_tokens
            or span.opens
            or (tails_back and not any(s.is_heading for s in current))
        )
        overflows = current and current_tokens + tokens > target
        if current and span.opens and not span.is_heading:  # after a data URI: nothing spans it
            yield current
            current, current_tokens, heads_at, heads_tokens = [], 0, 0, 0
        elif current and (starts_section or overflows):
            if heads_at > 0:
                yield current[:heads_at]
                current, current_tokens, heads_at = current[heads_at:], heads_tokens, 0
            elif current_tokens >= target:
                yield current
                current, current_tokens, heads_tokens = [], 0, 0
        if not span.is_heading:
            heads_at, heads_tokens = len(current) + 1, 0
        else:
            heads_tokens += tokens
        current.append(span)
        current_tokens += tokens
    if current:
        yield current


def _merge_small_tails(groups: Iterable[list[Span]], target: int) -> Iterator[list[Span]]:
    """A fragment under half the target joins the chunk before it when both fit in 2× target."""
    before: list[Span] | None = None
    for group in groups:
        if before is not None and not any(s.opens for s in group):
            size = _tokens(group)
            if size < target // 2 and size + _tokens(before) <= 2 * target:
                before = before + group
                continue
        if before is not None:
            yield before
        before = group
    if before is not None:
        yield before


def _common_path(group: list[Span]) -> tuple[str, ...]:
    paths = [s.heading_path for s in group]
    first = paths[0]
    size = len(first)
    for other in paths[1:]:
        size = min(size, len(other))
        while size and other[:size] != first[:size]:
            size -= 1
    return first[:size]


def _make_chunk(text: str, group: list[Span], lines: LineIndex) -> Chunk:
    start, end = group[0].start, group[-1].end
    return Chunk(
        start=start,
        end=end,
        line_start=lines.line_of(start),
        line_end=lines.line_of(max(start, end - 1)),
        heading_path=_common_path(group),
        text=text[start:end],
    )


def split_oversized(
    body: str, count: TokenCounter, limit: int, by_lines: bool = False
) -> list[tuple[int, int]]:
    """Cut `body` into pieces of at most `limit` tokens: lines, then sentences, then words."""
    out: list[tuple[int, int]] = []
    cur_start: int | None = None
    cur_end = cur_tokens = joins = 0
    for start, end in _units(body, by_lines):
        spend()
        tokens = count(body[start:end])
        if tokens > limit:
            if cur_start is not None:
                out.append((cur_start, cur_end))
                cur_start = None
            out.extend(_split_words(body, start, end, count, limit))
            continue
        if cur_start is not None and _over(
            body, cur_start, end, cur_tokens + tokens, joins + 1, count, limit
        ):
            out.append((cur_start, cur_end))
            cur_start = None
        if cur_start is None:
            cur_start, cur_tokens, joins = start, 0, -1
        cur_end, cur_tokens, joins = end, cur_tokens + tokens, joins + 1
    if cur_start is not None:
        out.append((cur_start, cur_end))
    return out


def _over(
    body: str, start: int, end: int, summed: int, joins: int, count: TokenCounter, limit: int
) -> bool:
    """Whether body[start:end] exceeds `limit` tokens. Joining units at whitespace moves the sum
    of their counts by about a token per join, so only a sum near the limit is counted exactly
    (counting every growing piece made long pages quadratic)."""
    if summed + joins <= limit:
        return False
    if summed - joins > limit:
        return True
    return count(body[start:end]) > limit


def _units(body: str, by_lines: bool) -> list[tuple[int, int]]:
    pattern = re.compile(r"\r?\n") if by_lines else SENTENCE_BREAK
    units = []
    pos = 0
    for match in finditer_windowed(pattern, body):
        if match.start() > pos:
            units.append((pos, match.start()))
        pos = match.end()
    if pos < len(body):
        units.append((pos, len(body)))
    if not by_lines and len(units) <= 1 and "\n" in body:
        return _units(body, by_lines=True)
    return units


def _split_words(
    body: str, start: int, end: int, count: TokenCounter, limit: int
) -> list[tuple[int, int]]:
    """Last resort for one huge sentence or line: windows cut at whitespace (or hard)."""
    out = []
    pos = start
    while pos < end:
        spend()
        window_end = _longest_fit(body, pos, end, count, limit)
        out.append((pos, window_end))
        pos = window_end
        while pos < end and body[pos].isspace():
            pos += 1
    return out


def _longest_fit(body: str, pos: int, end: int, count: TokenCounter, limit: int) -> int:
    """Largest cut point (at whitespace when possible) whose piece fits in `limit` tokens."""
    # Tokens rarely span more than 16 characters, so the search never has to look further; this
    # keeps cutting a long single-line note linear instead of counting all the rest per cut.
    lo, hi = pos + 1, min(end, pos + limit * 16)
    window = body[pos:hi]
    if window.isascii() and _SPACE.search(window) is None:
        return min(hi, pos + limit)  # an unbroken run (base64, minified code) is cut by length:
        # an ASCII character is never more than one token
    if count(window) <= limit:
        lo = hi
    while lo < hi:  # binary search on characters; token counts grow with length
        mid = (lo + hi + 1) // 2
        if count(body[pos:mid]) <= limit:
            lo = mid
        else:
            hi = mid - 1
    cut = lo
    if cut < end:
        space = body.rfind(" ", pos + 1, cut)
        newline = body.rfind("\n", pos + 1, cut)
        soft = max(space, newline)
        if soft > pos + (cut - pos) // 2:
            cut = soft
    return max(cut, pos + 1)


def embedding_parts(
    start: int, text: str, token_offsets: TokenOffsets, limit: int, overlap_tokens: int = 16
) -> list[Part]:
    """Second pass: cut a chunk (`text`, starting at `start` in its note) the embedder would
    truncate into labelled, overlapping parts.

    Cuts fall on word starts, so each part re-tokenizes to the same word pieces.
    """
    offsets = token_offsets(text)
    if len(offsets) <= limit:
        return [Part(start, start + len(text), 1, 1)]
    limit = max(limit, 2 * overlap_tokens + 2)
    pieces: list[tuple[int, int]] = []
    i = 0
    while True:
        j = min(i + limit, len(offsets))  # tokens [i, j)
        if j < len(offsets):
            j = _word_start_at_or_before(text, offsets, j, floor=i + limit // 2)
        pieces.append((offsets[i][0], offsets[j - 1][1]))
        if j >= len(offsets):
            break
        i = _word_start_at_or_before(text, offsets, max(j - overlap_tokens, i + 1), floor=i + 1)
    return [Part(start + a, start + b, n, len(pieces)) for n, (a, b) in enumerate(pieces, start=1)]


def _word_start_at_or_before(text: str, offsets: list[tuple[int, int]], k: int, floor: int) -> int:
    """The nearest token index ≤ k that starts a word (not mid-word), but not below `floor`."""
    candidate = k
    while candidate > floor:
        pos = offsets[candidate][0]
        if pos == 0 or text[pos - 1].isspace():
            return candidate
        candidate -= 1
    return k
