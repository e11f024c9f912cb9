"""The question, read once: its language, its key words with their weights, the kind of answer it
asks for, the figures it states itself, and whether it leans on the previous turn. Made at the
start of an answer and read by the gate, the evidence, the cues, the prompt and the checks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from desktop_app.core.answer import cues, figures
from desktop_app.core.retrieval import analyzer, languages
from desktop_app.core.text import YEAR

Weights = Callable[[list[str]], dict[str, float]]  # terms → IDF over the whole index

SHORT_QUESTION_WORDS = 6  # a follow-up this short leans on the previous question
FOLLOW_UP_OPENERS = frozenset(
    w for language in languages.REGISTERED for w in language.follow_up_openers
)


@dataclass(frozen=True)
class KeyWord:
    word: str  # folded
    stem: str
    prefix: str
    weight: float  # IDF of its more common form (stem or prefix) in the index; 1 without one


@dataclass(frozen=True)
class KeyWords:
    """The key words of a text (a question, a note title), one per stem, in text order."""

    language: str
    words: tuple[KeyWord, ...]

    @property
    def mass(self) -> float:
        return sum(k.weight for k in self.words) or 1.0

    @classmethod
    def of(
        cls, text: str, language: str, idf: Weights | None = None, written_in: str | None = None
    ) -> KeyWords:
        """Each key word weighed by the IDF of its more common form, so a word matched only by
        its prefix is not weighed as unseen. `written_in`: the language the text's own words
        are in, when they say (then only its function words are left out)."""
        tokens = languages.key_words(analyzer.words(text), written_in)
        stems = analyzer.stems(tokens, language)
        prefixes = analyzer.prefixes(tokens)
        weights = idf(list({*stems, *prefixes})) if idf is not None else {}
        seen: dict[str, KeyWord] = {}
        for word, stem, prefix in zip(tokens, stems, prefixes, strict=True):
            weight = min(weights.get(stem, 1.0), weights.get(prefix, 1.0)) or 1.0
            seen.setdefault(stem, KeyWord(analyzer.fold(word), stem, prefix, weight))
        return cls(language, tuple(seen.values()))


@dataclass(frozen=True)
class Question:
    text: str
    language: str
    words: tuple[str, ...]  # as `analyzer.words` splits them (case-folded)
    folded: frozenset[str]  # the same, folded: what the question itself says
    keys: KeyWords
    kind: cues.AnswerKind  # the kind of answer asked for (cues.question_kind)
    numbers: frozenset[float]  # the figures it states itself ("the Seven Years' War")
    years: frozenset[str]
    follow_up: bool  # it leans on the previous turn ("and how long?")

    @classmethod
    def read(
        cls, text: str, language: str, idf: Weights | None = None, has_history: bool = False
    ) -> Question:
        words = tuple(analyzer.words(text))
        opener = bool(words) and words[0] in FOLLOW_UP_OPENERS
        return cls(
            text=text,
            language=language,
            words=words,
            folded=frozenset(analyzer.fold(w) for w in words),
            keys=KeyWords.of(text, language, idf, _written_in(text, language)),
            kind=cues.question_kind(text),
            numbers=frozenset(figures.numbers(text)),
            years=frozenset(YEAR.findall(text)),
            follow_up=has_history and (len(words) <= SHORT_QUESTION_WORDS or opener),
        )

    def missing(self, found: set[str]) -> list[str]:
        """Its key words (of three letters or more) that are not in `found`, in its order."""
        key = [w for w in self.words if languages.is_key_word(w) and len(w) > 2]
        return list(dict.fromkeys(w for w in key if w not in found))


def _written_in(text: str, language: str) -> str | None:
    """`language` when the question's own words are in it, read without the index's languages
    and how many notes each has (which decide `language` for a short question: "Wann backt man
    Brot?" over English notes is read as English, and its "man" is no key word)."""
    codes = [lang.code for lang in languages.REGISTERED]
    return language if analyzer.detect_language(text, codes) == language else None
