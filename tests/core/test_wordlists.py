"""The word lists read a frequency bucket at a time give wordfreq's own Zipf values."""

from __future__ import annotations

import random

import pytest

from desktop_app.core.retrieval.languages import wordlists

ODD = ["Svíčková", "svickova", "Taigh", "e-mail", "don't", "Straße", "STRASSE", "zqxx", "Müller",
       "naïve", "x2", "2024", "co-op", "přílišžluťoučký", "l'amour", "ÄPFEL", ""]  # fmt: skip


@pytest.mark.parametrize("language", ["cs", "de", "en"])
def test_a_word_s_frequency_is_wordfreq_s(language: str) -> None:
    wordfreq = pytest.importorskip("wordfreq")
    lookup = wordlists.frequency(language)
    assert lookup is not None
    common = wordfreq.top_n_list(language, 2000, wordlist="large")
    shuffled = ["".join(random.Random(n).sample(w, len(w))) for n, w in enumerate(common[:300])]
    for word in [*common, *shuffled, *ODD]:
        assert lookup(word) == wordfreq.zipf_frequency(word, language, wordlist="large"), word
    assert lookup("zqxx") == 0 and lookup(common[0]) > 5


def test_no_list_for_a_language_judges_nothing() -> None:
    assert wordlists.frequency("xx") is None
    assert wordlists.foreign_words(["anything"], "xx") == frozenset()
