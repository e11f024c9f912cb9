"""What a language's readers write: wordfreq's frequency list for it (made for exactly this),
read once per language. The installers keep the large lists of the languages Quire reads and
the small ones of the rest.

The list is read here a frequency bucket at a time (`_frequencies`), not by wordfreq's own
loader, which decodes the whole file in one call and so holds the interpreter lock (the
window's, on a first question) for as long; a word's Zipf value is then computed as wordfreq
computes it (a test compares the two).
"""

from __future__ import annotations

import gzip
import math
from collections.abc import Callable, Iterable
from functools import cache, partial
from typing import Any

import msgpack

from desktop_app.core.heavy import import_heavy

Lookup = Callable[[str], float]  # word → Zipf frequency (0: not a word of the list)


@cache
def frequency(language: str) -> Lookup | None:
    """`word → Zipf frequency` from wordfreq's largest list for `language`, else None (no list,
    or a damaged install: nothing can be judged by it)."""
    try:
        wordfreq = import_heavy("wordfreq")
        for size in ("large", "small"):
            files = wordfreq.available_languages(wordlist=size)
            if language in files:
                freqs = _frequencies(files[language])
                return partial(_zipf, wordfreq, freqs, language, size)
    except (ImportError, OSError, ValueError, EOFError):
        return None
    return None


def _frequencies(path: str) -> dict[str, float]:
    """Token → frequency from a wordfreq "cBpack" file: a gzipped msgpack list of a header and
    one list of words per centibel of frequency, the most frequent first."""
    with gzip.open(path, "rb") as file:
        unpacker = msgpack.Unpacker(file, raw=False)
        count = unpacker.read_array_header()
        header = unpacker.unpack()
        if not isinstance(header, dict) or header.get("format") != "cB":
            raise ValueError(f"{path} is not a wordfreq list")
        freqs: dict[str, float] = {}
        for index in range(count - 1):
            freq = 10 ** (-index / 100)
            for word in unpacker.unpack():
                freqs[word] = freq
    return freqs


def _zipf(wordfreq: Any, freqs: dict[str, float], language: str, size: str, word: str) -> float:
    """wordfreq's `zipf_frequency(word, language, size)` over `freqs`: its tokens, the harmonic
    sum of their frequencies, rounded to three significant digits, then to the Zipf scale."""
    tokens = wordfreq.lossy_tokenize(word, language)
    if not tokens:
        return 0.0
    if any(c.isdigit() for token in tokens for c in token):  # its own rule for digits (rare)
        return float(wordfreq.zipf_frequency(word, language, wordlist=size))
    if not all(token in freqs for token in tokens):
        return 0.0
    freq = 1.0 / sum(1.0 / freqs[token] for token in tokens)
    freq = round(freq, math.floor(-math.log10(freq)) + 3)
    return round(math.log10(freq) + 9, 2)


def foreign_words(words: Iterable[str], language: str) -> frozenset[str]:
    """The words (no figures) that are no word of `language`'s list: names and words a note in
    another language gives ("svíčková", "Taigh Beag" in an English question); empty without a
    list."""
    lookup = frequency(language)
    if lookup is None:
        return frozenset()
    return frozenset(w for w in words if not any(c.isdigit() for c in w) and lookup(w) == 0)
