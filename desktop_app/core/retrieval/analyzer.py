"""Language-aware terms for lexical search.

Each note (and each query) gets a language; words are case-folded, stemmed with that
language's Snowball stemmer where PyStemmer has one, cut to a five-letter prefix otherwise,
and folded to ASCII-like letters so that diacritics never decide a match.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

_WORD = re.compile(r"[^\W_]+")
PREFIX_LEN = 5
FALLBACK_LANGUAGE = "und"

# ISO 639-1 codes (as py3langid reports them) → PyStemmer algorithm names.
SNOWBALL = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech",
    "da": "danish", "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian",
    "fi": "finnish", "fr": "french", "de": "german", "el": "greek", "hi": "hindi",
    "hu": "hungarian", "id": "indonesian", "ga": "irish", "it": "italian", "lt": "lithuanian",
    "ne": "nepali", "no": "norwegian", "nb": "norwegian", "fa": "persian", "pl": "polish",
    "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian", "st": "sesotho",
    "es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}  # fmt: skip


def words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


@lru_cache(maxsize=65536)
def fold(word: str) -> str:
    """Strip diacritics: 'příliš' → 'prilis', 'Straße' (case-folded 'strasse') stays."""
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=64)
def _stemmer(language: str) -> Any:
    import Stemmer

    algorithm = SNOWBALL.get(language)
    if algorithm is None or algorithm not in Stemmer.algorithms():
        return None
    return Stemmer.Stemmer(algorithm, 50000)


def has_stemmer(language: str) -> bool:
    return _stemmer(language) is not None


def stems(tokens: Sequence[str], language: str) -> list[str]:
    """Stemmed, folded terms; languages without a stemmer get five-letter prefixes."""
    stemmer = _stemmer(language)
    if stemmer is None:
        return prefixes(tokens)
    return [fold(s) for s in stemmer.stemWords(tokens)]


def prefixes(tokens: Sequence[str]) -> list[str]:
    return [fold(t)[:PREFIX_LEN] for t in tokens]


def detect_language(text: str, candidates: Sequence[str] | None = None) -> str:
    """Best-guess ISO 639-1 code, among `candidates` when given (e.g. the index's languages)."""
    sample = text[:1500]
    if not _WORD.search(sample):
        return FALLBACK_LANGUAGE
    identifier = _identifier(tuple(sorted(candidates)) if candidates else ())
    code, _ = identifier.classify(sample)
    return str(code)


@lru_cache(maxsize=8)
def _identifier(candidates: tuple[str, ...]) -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    if candidates:
        known = [c for c in candidates if c in identifier.nb_classes]
        if known:
            identifier.set_languages(known)
    return identifier
