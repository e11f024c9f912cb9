"""The languages Quire reads questions and answers in, registered in one place, and the one
content-word rule.

Adding a language is one data file beside `en.toml` (its words, read into a `Language`) and its
code in `REGISTERED`.
Questions and answers mix languages (a German question over English notes, an English word in
a Czech note), so the word rules use every registered language's lists at once; what is said
only in one language (the prompt's language name, German nouns written with a capital) is
looked up by the question's language code.
"""

from __future__ import annotations

from collections.abc import Iterable

from desktop_app.core.retrieval.analyzer import fold
from desktop_app.core.retrieval.languages.language import Language, load

REGISTERED: tuple[Language, ...] = tuple(load(code) for code in ("en", "de", "cs"))
_BY_CODE = {language.code: language for language in REGISTERED}

FUNCTION_WORDS = frozenset(w for language in REGISTERED for w in language.function_words)
QUESTION_WORDS = frozenset(w for language in REGISTERED for w in language.question_words)
MIN_BORROWED = 3  # letters of another language's function word that counts as a key word


def registered(code: str) -> Language | None:
    """The language of an ISO 639-1 code, if Quire knows its words."""
    return _BY_CODE.get(code)


def is_function_word(word: str) -> bool:
    """A word that says nothing about what a text is about ("the", "die", "jak", "get")."""
    return fold(word.casefold()) in FUNCTION_WORDS


def is_question_word(word: str) -> bool:
    """A word a question asks with ("which", "wie viele", "kolik")."""
    return fold(word.casefold()) in QUESTION_WORDS


def is_content_word(word: str) -> bool:
    """The content-word rule: a word that is no function word of any registered language."""
    return not is_function_word(word)


def content_words(words: Iterable[str], shortest: int = 1) -> list[str]:
    """The content words among `words`, of at least `shortest` letters (a number always counts:
    short words are too common to prove a match, "2" is not)."""
    return [w for w in words if is_content_word(w) and (len(w) >= shortest or w.isdigit())]


def key_words(words: Iterable[str], language: str | None = None) -> list[str]:
    """The words a passage must hold to answer a question: its content words less the words it
    asks with; all its content words if nothing else is left ("Who was who?"). Given the
    question's `language`, another language's function words of three letters or more stay
    ("die", "war", "man" are German ones: "What year did Tesla die?"; where they are function
    words, the index's weights make them light); shorter ones never say much ("s" of
    "Melbourne's" is a Czech one)."""
    own = registered(language) if language else None
    if own is None:
        content = content_words(words)
    else:
        content = [
            w
            for w in words
            if fold(w.casefold()) not in own.function_words
            and (len(w) >= MIN_BORROWED or is_content_word(w))
        ]
    return [w for w in content if not is_question_word(w)] or content


def is_key_word(word: str) -> bool:
    return is_content_word(word) and not is_question_word(word)


__all__ = [
    "FUNCTION_WORDS",
    "QUESTION_WORDS",
    "REGISTERED",
    "Language",
    "content_words",
    "is_content_word",
    "is_function_word",
    "is_key_word",
    "is_question_word",
    "key_words",
    "registered",
]
