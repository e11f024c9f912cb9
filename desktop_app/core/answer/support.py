"""How much a source backs a sentence: the one support measure (the share of the sentence's
content words whose stem the source holds), and the one pattern of a citation."""

from __future__ import annotations

import re

from desktop_app.core.retrieval import analyzer, languages

CITATION = re.compile(r"\[(\s*\d+\s*(?:[,;]\s*\d+\s*)*)\]")  # `[n]`, `[1, 3]`, `[1; 2]`
# A sentence's body: a point with no space after it ("1.160.000", "3.5", "`.mise.local.toml`",
# "os.path") ends no sentence, nor one before a figure or a word in lower case (a day, an ordinal
# or an abbreviation: "11. 11. 2024", "30. listopadu", "ca. 8 kg"), so no `[n]` is ever put
# inside a number, a date, a name or code.
_SENTENCE_BODY = r"(?:[^.!?\n]|[.!?](?=[^\s\[.!?])|\.(?=[ \t]+[a-z0-9äöüßáčďéěíňóřšťúůýž]))+"
# A sentence with its citations, written before or after its closing punctuation ("… 20 minutes
# [1]." or "… 20 minutes. [1]").
CITED_SENTENCE = re.compile(_SENTENCE_BODY + r"(?:[.!?]+(?:\s*" + CITATION.pattern + r")*|\n|$)")
STRONG_SUPPORT = 0.6  # a source backing this share of a sentence backs it on its own
WEAK_SUPPORT = 0.35  # a cited source backing less than this does not count as backing
SHORTEST = 4  # letters of a word that can show support ("pan", "use" are in every note)


def _words(text: str) -> list[str]:
    return languages.content_words(analyzer.words(CITATION.sub(" ", text)), SHORTEST)


def support(sentence: str, source_text: str, language: str) -> tuple[float, int]:
    """Share (and count) of the sentence's content words whose stem the source holds (1.0, none
    shared, for a sentence without content words: it claims nothing). Stems only: a shared
    five-letter beginning ("kontrollieren" / "Kontrolle", "General" / "Generalkonferenz") widens
    retrieval's net, but it is no sign that the source says what the sentence says."""
    words = _words(sentence)
    if not words:
        return 1.0, 0
    present = set(analyzer.stems(_words(source_text), language))
    shared = sum(1 for stem in analyzer.stems(words, language) if stem in present)
    return shared / len(words), shared
