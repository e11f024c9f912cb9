"""Evidence first: the sentences, list items, table rows or code blocks of the top passages that
best answer the question, quoted verbatim with their exact character span in the note.

Shown before any token is generated, so they can never be wrong about what the notes say.
Scored with what Quire already has: IDF-weighted content-word overlap (by stem and by prefix,
so inflected and other-language forms still match), the embedder's cosine where it knows the
question's language, and cheap answer-type cues (numbers and units for "how long / how many",
dates for "when", names for "who / where") in English, German and Czech.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Container, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from desktop_app.core.answer import cues
from desktop_app.core.answer.cues import AnswerKind
from desktop_app.core.answer.figures import folded_words
from desktop_app.core.answer.question import KeyWords, Question, Weights
from desktop_app.core.answer.units import (
    CODE,
    SENTENCE,
    Unit,
    joined,
    split_units,
    words_of,
)
from desktop_app.core.passage import Evidence
from desktop_app.core.retrieval import analyzer
from desktop_app.core.retrieval.dates import MONTHS
from desktop_app.core.text import DAY_MONTH, FENCE

if TYPE_CHECKING:
    from desktop_app.core.passage import Passage
    from desktop_app.core.retrieval.search import SearchResult

MAX_EVIDENCE = 3
PASSAGES_READ = 4  # the top passages split into units
MIN_UNIT_WORDS = 3
# One set of weights for every language and question, so none is tuned to a test set: they
# are set by `tests/bench/evidence_dev.py --fit` on development questions apart from the ones
# the benches score (docs/answers.md, "Fitting the evidence weights").
KEEP_RATIO = 0.4  # a second or third unit is shown when it scores this close to the best
MAX_RUN = 600  # characters: kept units side by side in a passage are quoted as one up to this
COSINE_WEIGHT = 1.2  # how much the embedder's similarity adds (only where it is trusted)
RANK_PRIOR = 0.15  # a preference for units of higher-ranked passages
CUE_WEIGHT = 0.2  # the unit holds the kind of thing asked for (a number, a date, a name)
ORDER_WEIGHT = 0.1  # the question's words stand together in the unit, as in the question
COSINE_READ = 12  # units whose cosine is computed (the best by words)
# For a "how do I" (set on the how-to development questions, tests/data/til_dev_questions.jsonl,
# apart from the til-en questions the benches score):
CARRY = 1.0  # share of the best word match before the unit in its note (the problem)
TITLE_WEIGHT = 0.3  # share of the note title's words the unit holds (the title names the fix)
STEP_CUE_WEIGHT = 0.4  # the unit holds code the question does not: the step itself
SOLUTION_WEIGHT = 0.4  # "However, …", "Instead, …", "The trick is…": the turn to the fix
CODE_WEIGHT = 0.3  # a code block: technical notes keep the step itself in one


# -- scoring -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Forms:
    """The words of a text in the forms a question word can match, in text order."""

    words: tuple[str, ...]  # folded
    stems: tuple[str, ...]
    months: frozenset[str] = frozenset()  # months of the days written in figures ("30. 10.")

    @classmethod
    def of(cls, text: str, language: str) -> _Forms:
        shown = words_of(text)
        tokens = analyzer.words(shown)
        months = frozenset(str(int(month)) for _day, month in DAY_MONTH.findall(shown))
        folded = tuple(analyzer.fold(t) for t in tokens)
        return cls(folded, tuple(analyzer.stems(tokens, language)), months)

    def position(self, word: str, stem: str, prefix: str) -> int | None:
        """Where a question word first stands in the text, by stem, prefix, as the start of a
        longer form ("peče" in "pečeme": a word shorter than a prefix has none to match), as
        the end of a compound ("Pergamonmuseum" holds "museum") or, for a month's name, as the
        month of a day written in figures ("října" in "30. 10."); None if nowhere."""
        for i, (folded, own) in enumerate(zip(self.words, self.stems, strict=True)):
            if own == stem or (len(prefix) >= PREFIX and folded[:PREFIX] == prefix):
                return i
            if analyzer.begins(word, folded):
                return i
            if len(word) >= COMPOUND and len(folded) > len(word) and folded.endswith(word):
                return i
        month = str(MONTHS.get(word, ""))
        if month in self.months:
            return next((i for i, w in enumerate(self.words) if w.lstrip("0") == month), None)
        return None

    def ends(self, word: str) -> bool:
        """A word of the text ends the question's compound ("Zugfahrt" asked, "Fahrt" written):
        it matches, but the question word itself stands nowhere."""
        return len(word) >= COMPOUND and any(
            len(w) >= COMPOUND and word.endswith(w) for w in self.words
        )

    def has(self, word: str, stem: str, prefix: str) -> bool:
        return self.position(word, stem, prefix) is not None or self.ends(word)


# -- the units to choose from: those worth showing of the first passages read ----------------
def candidate_units(
    results: Sequence[SearchResult], numbered: Container[int]
) -> Iterator[tuple[SearchResult, Unit, int]]:
    """The units worth showing of the first PASSAGES_READ results that are prompt sources (chunk
    ids in `numbered`), each with its passage and the passage's rank among them."""
    for rank, r in enumerate(r for r in results if r.chunk_id in numbered):
        if rank >= PASSAGES_READ:
            return
        heading = r.heading_path[-1] if r.heading_path else ""
        for u in split_units(r.text, r.start):
            if worth_showing(u, r):
                yield r, (u if u.heading else replace(u, heading=heading)), rank


def worth_showing(unit: Unit, r: SearchResult) -> bool:
    """Not a fragment of two words, not the note's title line repeated."""
    if unit.kind == SENTENCE and len(analyzer.words(words_of(unit.text))) < MIN_UNIT_WORDS:
        return False
    return unit.text.strip() != (r.title or "").strip()


def title_forms(title: str, language: str) -> _Forms:
    """A note title's words as `unit_signals` reads its `context` (tests/bench/evidence_dev.py)."""
    return _Forms.of(title, language)


PREFIX = analyzer.PREFIX_LEN
COMPOUND = 5  # the shortest word matched inside a compound
CONTEXT_DISCOUNT = 0.5  # a word of the note's title is its topic, not what singles a sentence out
HEADING_CREDIT = 0.5  # a word found only in the unit's heading ("## Dough" over the list)


@dataclass(frozen=True)
class Signals:
    """What ranks a unit, besides the embedder's cosine (added later, for the best only)."""

    # Share of the question's content-word IDF mass present in the unit (stem, prefix or
    # compound; heading words count a little), the note title's words counting less:
    ranking: float
    plain: float  # the same without the discount (the gate reads it)
    order: float  # share of the question's neighbouring word pairs that stand close in the unit

    def score(self, cue: bool, rank: int) -> float:
        cued = CUE_WEIGHT if cue else 0.0
        return self.ranking + cued - RANK_PRIOR * rank + ORDER_WEIGHT * self.order


NEAR = 3  # words apart: two question words this close read as the question's phrase


def unit_signals(unit: Unit, keys: KeyWords, context: _Forms | None = None) -> Signals:
    if not keys.words:
        return Signals(0.0, 0.0, 0.0)
    forms = _Forms.of(unit.text, keys.language)
    heading = _Forms.of(unit.heading, keys.language) if unit.heading else None
    ranking = plain = 0.0
    positions: list[int | None] = []
    for word, stem, prefix, weight in ((k.word, k.stem, k.prefix, k.weight) for k in keys.words):
        position = forms.position(word, stem, prefix)
        if position is not None or forms.ends(word):
            topical = context is not None and context.has(word, stem, prefix)
            ranking += weight * (CONTEXT_DISCOUNT if topical else 1.0)
            plain += weight
        elif heading is not None and heading.has(word, stem, prefix):
            ranking += weight * HEADING_CREDIT
            plain += weight * HEADING_CREDIT
        positions.append(position)
    pairs = list(itertools.pairwise(positions))
    near = sum(1 for a, b in pairs if a is not None and b is not None and abs(a - b) <= NEAR)
    return Signals(ranking / keys.mass, plain / keys.mass, near / max(1, len(pairs)))


def question_overlap(text: str, keys: KeyWords, source: str | None = None) -> float:
    """Share of the question's key-word IDF mass a text holds (the gate's plain overlap); with
    `source`, only the key words the source holds too count (an answer that echoes the question
    holds its words, the passage it copies may not)."""
    if source is not None:
        forms = _Forms.of(source, keys.language)
        words = tuple(k for k in keys.words if forms.has(k.word, k.stem, k.prefix))
        held = replace(keys, words=words)
        return question_overlap(text, held) * held.mass / keys.mass if held.words else 0.0
    return unit_signals(Unit(0, len(text), text, SENTENCE), keys).plain


# question, texts, whether each is in another language than the question → the cosines
Cosines = Callable[[str, list[str], list[bool]], list[float]]
Following = Callable[["SearchResult"], "SearchResult | None"]  # the passage after one in its note


def read_on(
    question: Question, results: Sequence[SearchResult], following: Following
) -> list[SearchResult]:
    """`results` with the passage that follows the best one in its note read right after it,
    for a "how do I" (or a question of no other kind, when that passage keeps a fenced block):
    a technical note names the problem in one passage and often gives the fix in the next
    ("…I can run the following command." | the block), which the question's words miss (when
    it is among the results further down, it moves up)."""
    if not results or question.kind not in (AnswerKind.PROCEDURE, AnswerKind.OTHER):
        return list(results)
    best = results[0]
    found = (r for r in results if r.note_id == best.note_id and r.seq == best.seq + 1)
    after = next(found, None) or following(best)
    if after is None or (question.kind == AnswerKind.OTHER and not FENCE.search(after.text)):
        return list(results)
    after = replace(after, score=best.score)  # read as the rest of the best passage
    return [best, after, *(r for r in results[1:] if r.chunk_id != after.chunk_id)]


def select(
    question: Question,
    results: Sequence[SearchResult],
    sources: Sequence[Passage],
    idf: Weights | None = None,
    similarity: Cosines | None = None,
    crossed_raise: float = 0.0,
) -> list[Evidence]:
    """The 1–3 units that best answer `question`, from the first passages of `results`.

    `sources` (the numbered prompt sources) give each unit its `[n]`; `similarity`, when given,
    returns the embedder's cosine of the question with each unit text (`crossed_raise` added
    for a unit of a passage in another language); `idf` weighs the words of note titles (for a
    "how do I").
    """
    number_of = {cid: s.number for s in sources for cid in s.chunk_ids}
    scored = _scored_units(question, results, number_of)
    if not scored:
        return []
    scored.sort(key=lambda c: -c.score)
    if similarity is not None:
        _add_cosines(scored, question.text, similarity, crossed_raise)
    how_to = _how_to_notes(question, scored)
    _read_as_steps([c for c in scored if how_to(c.result.note_id)], question, idf)
    scored.sort(key=lambda c: -c.score)
    best = scored[0].score
    kept = [c for c in _apart(scored) if c.score >= KEEP_RATIO * best and c.score > 0]
    return [_evidence(number_of[c.result.chunk_id], c) for c in _runs(kept) or scored[:1]]


def _runs(kept: list[ScoredUnit]) -> list[ScoredUnit]:
    """The first MAX_EVIDENCE quotes of `kept` (best first). Where code is, a unit that stands
    right next to a better one of its passage (`units.joined`: only white space or fence lines
    between) joins its quote: the sentence before a command, the command, the next step are
    read as the note gives them, and the three quotes reach further into a how-to. Prose stays
    a sentence a quote: joined prose gives the small model longer quotes to wander in, and its
    answers get worse (docs/benchmarks.md). Once three quotes stand, the first lower unit that
    touches none of them ends the reading."""
    runs: list[ScoredUnit] = []
    for c in kept:
        if _join(runs, c):
            continue
        if len(runs) >= MAX_EVIDENCE:
            break
        runs.append(c)
    return runs


def _join(runs: list[ScoredUnit], c: ScoredUnit) -> bool:
    """Grow the first run `c` touches by it, then by every run it now touches (the better run
    keeps its place); False if it touches none."""
    grown = next(((i, g) for i, run in enumerate(runs) if (g := _joined(run, c))), None)
    if grown is None:
        return False
    at = grown[0]
    runs[at] = grown[1]
    while True:
        pairs = ((j, _joined(*_in_rank(runs, at, j))) for j in range(len(runs)) if j != at)
        merged = next(((j, g) for j, g in pairs if g is not None), None)
        if merged is None:
            return True
        better, worse = sorted((at, merged[0]))
        runs[better] = merged[1]
        del runs[worse]
        at = better


def _in_rank(runs: list[ScoredUnit], i: int, j: int) -> tuple[ScoredUnit, ScoredUnit]:
    return runs[min(i, j)], runs[max(i, j)]


def _joined(run: ScoredUnit, c: ScoredUnit) -> ScoredUnit | None:
    """`run` grown by `c` into one span of their passage (`run`'s signals and place), or None."""
    r = run.result
    if c.result.chunk_id != r.chunk_id:
        return None
    unit = joined(run.unit, c.unit, r.text, r.start, MAX_RUN)
    return None if unit is None else replace(run, unit=unit)


def _scored_units(
    question: Question, results: Sequence[SearchResult], number_of: dict[int, int]
) -> list[ScoredUnit]:
    contexts: dict[int, _Forms] = {}
    scored = []
    for r, unit, rank in candidate_units(results, number_of):
        if r.chunk_id not in contexts:
            contexts[r.chunk_id] = _Forms.of(r.title or "", question.language)
        signals = unit_signals(unit, question.keys, contexts[r.chunk_id])
        cue = _holds_the_kind(question, unit)
        scored.append(ScoredUnit(r, unit, rank, signals, cue))
    return scored


def _holds_the_kind(question: Question, unit: Unit) -> bool:
    if question.kind == AnswerKind.PROCEDURE:
        return _is_step(question, unit)
    return cues.matches(question.kind, unit.text, question)


def _is_step(question: Question, unit: Unit) -> bool:
    """The unit holds code the question does not: a code block as it stands (one that opens its
    passage has no fence in it), or inline code, a `$ command` in a sentence."""
    if unit.kind == CODE:
        return bool(set(folded_words(unit.text)) - question.folded)
    return cues.has_new_code(unit.text, question)


def _how_to_notes(question: Question, scored: list[ScoredUnit]) -> Callable[[int], bool]:
    """Whose units are read as steps: every note's for a "how do I"; for a question of no other
    kind ("What built-in function gives…"), the notes that keep code in a fenced block (an
    indented line in a travel diary is no sign of a technical note)."""
    if question.kind == AnswerKind.PROCEDURE:
        return lambda _note: True
    if question.kind != AnswerKind.OTHER:
        return lambda _note: False
    coded = {c.result.note_id for c in scored if c.unit.kind == CODE and FENCE.search(c.unit.text)}
    return coded.__contains__


@dataclass
class ScoredUnit:
    """A unit of one of the passages read, and what ranks it."""

    result: SearchResult
    unit: Unit
    rank: int  # of its passage among those read
    signals: Signals
    cue: bool  # holds the kind of thing asked for
    cosine: float = 0.0  # the embedder's, where computed (the best units by words)
    extra: float = 0.0  # what reading a how-to note as steps adds (_read_as_steps)

    @property
    def relevance(self) -> float:
        """How much the unit is about the question (words and meaning, not its kind or rank)."""
        return self.signals.ranking + COSINE_WEIGHT * max(0.0, self.cosine)

    @property
    def score(self) -> float:
        words_and_kind = self.signals.score(self.cue, self.rank)
        return words_and_kind + COSINE_WEIGHT * max(0.0, self.cosine) + self.extra


def _read_as_steps(steps: list[ScoredUnit], question: Question, idf: Weights | None) -> None:
    """A "how do I" is answered by the step that follows the problem it solves, in a note whose
    title names the solution: each unit gains a share of the best relevance before it in its
    note, a share of its note title's words, more for holding new code (more again for a code
    block) and for the words that turn a story to its fix (what each part adds:
    docs/benchmarks.md, "Technical notes")."""
    titles: dict[str, KeyWords] = {}
    for c in steps:
        title = c.result.title or ""
        if title not in titles:
            titles[title] = KeyWords.of(title, question.language, idf)
        before = [
            o.signals.ranking
            for o in steps
            if o.result.note_id == c.result.note_id and o.unit.end <= c.unit.start
        ]
        c.extra = (
            CARRY * max(before, default=0.0)
            + TITLE_WEIGHT * unit_signals(c.unit, titles[title]).plain
            + (STEP_CUE_WEIGHT if _is_step(question, c.unit) else 0.0)
            + (CODE_WEIGHT if c.unit.kind == CODE else 0.0)
            + (SOLUTION_WEIGHT if cues.tells_the_fix(c.unit.text) else 0.0)
        )


def _apart(scored: list[ScoredUnit]) -> list[ScoredUnit]:
    """Best first, leaving out a unit that shares characters with a better one of its note."""
    kept: list[ScoredUnit] = []
    for c in scored:
        if not any(_overlap(k, c) for k in kept):
            kept.append(c)
    return kept


def _overlap(a: ScoredUnit, b: ScoredUnit) -> bool:
    same_note = a.result.note_id == b.result.note_id
    return same_note and a.unit.start < b.unit.end and b.unit.start < a.unit.end


def _add_cosines(
    scored: list[ScoredUnit], question: str, similarity: Cosines, crossed_raise: float = 0.0
) -> None:
    """Add the embedder's cosine to the COSINE_READ best units by words (the units words rank
    low seldom become the evidence, and encoding them too would only delay it), and to as many
    of the rest from passages in another language than the question's, which words cannot
    rank; their cosines are raised by `crossed_raise` (a multilingual model's run lower across
    languages)."""
    across = [c for c in scored[COSINE_READ:] if c.result.crossed][:COSINE_READ]
    head = scored[:COSINE_READ] + across
    crossed = [c.result.crossed for c in head]
    cosines = similarity(question, [words_of(c.unit.text) for c in head], crossed)
    for c, cosine in zip(head, cosines, strict=True):
        c.cosine = cosine + (crossed_raise if c.result.crossed else 0.0)


def _evidence(number: int, c: ScoredUnit) -> Evidence:
    r, unit, score, lexical, cue = c.result, c.unit, c.score, c.signals.plain, c.cue
    before = r.text[: unit.start - r.start]
    line_start = r.line_start + before.count("\n")
    return Evidence(
        number=number,
        path=r.path,
        folder=r.folder,
        title=r.title,
        start=unit.start,
        end=unit.end,
        line_start=line_start,
        line_end=line_start + unit.text.count("\n"),
        text=unit.text,
        kind=unit.kind,
        score=score,
        overlap=lexical,
        cue=cue,
        page=r.page_at(unit.start),
        day=r.written,
        code=unit.code,
    )
