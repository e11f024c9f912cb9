"""What a language's readers write: wordfreq's frequency list for it (made for exactly this),
read once per language. The installers keep the large lists of the languages Quire reads and
the small ones of the rest."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache

from desktop_app.core.heavy import import_heavy

Lookup = Callable[[str], float]  # word → Zipf frequency (0: not a word of the list)


@cache
def frequency(language: str) -> Lookup | None:
    """`word → Zipf frequency` from wordfreq's largest list for `language`, else None (no list,
    or a damaged install: nothing can be judged by it)."""
    try:
        wordfreq = import_heavy("wordfreq")
        for size in ("large", "small"):
            if language in wordfreq.available_languages(wordlist=size):
                wordfreq.zipf_frequency("a", language, wordlist=size)  # reads the list now

                def lookup(word: str, size: str = size) -> float:
                    return float(wordfreq.zipf_frequency(word, language, wordlist=size))

                return lookup
    except (ImportError, OSError, ValueError):
        return None
    return None


def foreign_words(words: Iterable[str], language: str) -> frozenset[str]:
    """The words (no figures) that are no word of `language`'s list: names and words a note in
    another language gives ("svíčková", "Taigh Beag" in an English question); empty without a
    list."""
    lookup = frequency(language)
    if lookup is None:
        return frozenset()
    return frozenset(w for w in words if not any(c.isdigit() for c in w) and lookup(w) == 0)
