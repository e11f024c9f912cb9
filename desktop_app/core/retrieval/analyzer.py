"""Language-aware terms for lexical search.

Each note (and each query) gets a language; words are case-folded, stemmed with that
language's Snowball stemmer where PyStemmer has one, cut to a five-letter prefix otherwise,
and folded to ASCII-like letters so that diacritics never decide a match.
"""

from __future__ import annotations

import copy
import lzma
import math
import re
import shutil
import tempfile
import threading
import unicodedata
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

# Word characters, less New Tai Lue vowel signs: SQLite's FTS5 tokenizer (Unicode 6.1 tables)
# splits words there, and every term must be exactly one FTS5 token.
_WORD = re.compile(r"[^\W_\u19b0-\u19c9]+")
PREFIX_LEN = 5
# A question word shorter than a prefix has none to match by: from this length, it matches a word
# it begins, as a reader sees "peče" in "pečeme" (answer checks only; the index keeps its terms).
INFLECTED_FROM = 4
FALLBACK_LANGUAGE = "und"

# ISO 639-1 codes (as py3langid reports them) → PyStemmer algorithm names.
SNOWBALL = dict(
    pair.split(":")
    for pair in [
        "ar:arabic",
        "hy:armenian",
        "eu:basque",
        "ca:catalan",
        "cs:czech",
        "da:danish",
        "nl:dutch",
        "en:english",
        "eo:esperanto",
        "et:estonian",
        "fi:finnish",
        "fr:french",
        "de:german",
        "el:greek",
        "hi:hindi",
        "hu:hungarian",
        "id:indonesian",
        "ga:irish",
        "it:italian",
        "lt:lithuanian",
        "ne:nepali",
        "no:norwegian",
        "nb:norwegian",
        "fa:persian",
        "pl:polish",
        "pt:portuguese",
        "ro:romanian",
        "ru:russian",
        "sr:serbian",
        "st:sesotho",
        "es:spanish",
        "sv:swedish",
        "ta:tamil",
        "tr:turkish",
        "yi:yiddish",
    ]
)


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def word_spans(text: str) -> Iterator[tuple[int, int]]:
    """[start, end) of every word, as `words` splits them."""
    return (m.span() for m in _WORD.finditer(text))


@lru_cache(maxsize=65536)
def begins(word: str, longer: str) -> bool:
    """`word` (folded) starts `longer` (folded) and is long enough to count as the same word."""
    return len(word) >= INFLECTED_FROM and longer.startswith(word)


def fold(word: str) -> str:
    """Strip diacritics: 'příliš' → 'prilis', 'Straße' (case-folded 'strasse') stays.

    Compatibility forms are case-folded again and non-word characters left out ('ℂ' → 'c',
    '½' → '12'), so a term is always a single FTS5 token, stored as it is queried."""
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return "".join(_WORD.findall(stripped.casefold()))


@lru_cache(maxsize=64)
def _stemmer(language: str) -> Any:
    import Stemmer

    algorithm = SNOWBALL.get(language)
    if algorithm is None or algorithm not in Stemmer.algorithms():
        return None
    return Stemmer.Stemmer(algorithm, 50000)


def has_stemmer(language: str) -> bool:
    return _stemmer(language) is not None


# Stems and prefixes of words seen before: a vault repeats its vocabulary, so most words of a
# new chunk are looked up instead of stemmed and folded again.
_CACHE_LIMIT = 200_000
_caches: dict[str, dict[str, str]] = {}
_cache_lock = threading.Lock()  # also guards the stemmers, which are not thread-safe


def clear_caches() -> None:
    """Forget every cached stem and prefix (benchmarks time a first index from cold caches)."""
    with _cache_lock:
        _caches.clear()


def stems(tokens: Sequence[str], language: str) -> list[str]:
    """Stemmed, folded terms; languages without a stemmer get five-letter prefixes."""
    stemmer = _stemmer(language)
    if stemmer is None:
        return prefixes(tokens)
    return _cached_terms(f"stem:{language}", tokens, lambda ws: map(fold, stemmer.stemWords(ws)))


def prefixes(tokens: Sequence[str]) -> list[str]:
    return _cached_terms("prefix", tokens, lambda ws: (fold(w)[:PREFIX_LEN] for w in ws))


def _cached_terms(
    key: str, tokens: Sequence[str], compute: Callable[[list[str]], Iterable[str]]
) -> list[str]:
    cache = _caches.get(key, {})
    if set(tokens).difference(cache):
        with _cache_lock:
            cache = _caches.get(key, {})
            missing = list(set(tokens).difference(cache))
            if len(cache) + len(missing) > _CACHE_LIMIT:
                cache, missing = {}, list(set(tokens))
            cache.update(zip(missing, compute(missing), strict=True))
            _caches[key] = cache  # a replaced dict is never written again: readers keep theirs
    return list(map(cache.__getitem__, tokens))


def detect_language(
    text: str, candidates: Sequence[str] | None = None, prior: Mapping[str, int] | None = None
) -> str:
    """Best-guess ISO 639-1 code, among `candidates` when given (e.g. the index's languages).
    `prior`: how many notes each candidate has. Then a short text, which says little of its
    language, goes to the language most notes are in: one odd note (a list of made-up words read
    as Afrikaans) must not make every one-word query Afrikaans; a sentence still goes by its
    words."""
    sample = text[:1500]
    if not _WORD.search(sample):
        return FALLBACK_LANGUAGE
    identifier = _identifier(tuple(sorted(candidates)) if candidates else ())
    if not prior:
        code, _ = identifier.classify(sample)
        return str(code)
    total = sum(prior.values()) + len(prior)

    def score(ranked: tuple[str, float]) -> float:
        code, probability = ranked
        share = (prior.get(code, 0) + 1) / total
        return math.log(max(probability, 1e-300)) + math.log(share)

    return str(max(identifier.rank(sample), key=score)[0])


def without_names(text: str) -> str:
    """`text` less the words that read as names: capitalised, not first in their sentence
    ("Air France", "British Airways" in a Czech question say nothing of its language)."""
    kept = []
    sentence_starts = True
    for token in text.split():
        if sentence_starts or not token[:1].isupper():
            kept.append(token)
        sentence_starts = token.endswith((".", "!", "?", ":"))
    return " ".join(kept)


@lru_cache(maxsize=1)
def _model() -> Any:
    """The identifier's model, read once (reading it is the slow part): every language subset
    is a copy of it."""
    from py3langid.langid import MODEL_DIR, MODEL_FILE

    return read_identifier(MODEL_DIR / MODEL_FILE)


def read_identifier(path: Path) -> Any:
    """py3langid's identifier from its model file (an xz-compressed npz of arrays), read as its
    own `from_model_file` reads it, except that the transition table (tens of megabytes) is
    copied a piece at a time: copied in one call, it held the interpreter lock, which the
    window's thread shares, for tens of milliseconds."""
    from py3langid.langid import LanguageIdentifier

    with tempfile.TemporaryFile(suffix=".npz") as unpacked:
        with lzma.open(path) as packed:
            shutil.copyfileobj(packed, unpacked, length=1 << 20)
        unpacked.seek(0)
        with np.load(unpacked, allow_pickle=False) as data:
            return LanguageIdentifier(
                data["ptc"],
                data["pc"],
                data["classes"].tolist(),
                _in_pieces(data["nextmove"]),
                data["out_feat"].tolist(),
                norm_probs=True,
                tk_row=_in_pieces(data["nextmove_row"]),
            )


def _in_pieces(values: np.ndarray) -> array:
    """An unsigned NumPy array as the stdlib array py3langid walks, filled a megabyte at a time."""
    out = array({2: "H", 4: "I", 8: "L"}[values.dtype.itemsize])
    data = np.ascontiguousarray(values).data.cast("B")
    for start in range(0, len(data), 1 << 20):
        out.frombytes(data[start : start + (1 << 20)])
    return out


@lru_cache(maxsize=8)
def _identifier(candidates: tuple[str, ...]) -> Any:
    model = _model()
    known = [c for c in candidates if c in model.nb_classes]
    if not known:
        return model
    identifier = copy.copy(model)  # set_languages replaces arrays; the shared model stays whole
    identifier.set_languages(known)
    return identifier
