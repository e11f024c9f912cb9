"""Which words of a passage to highlight for the query words it matched."""

from __future__ import annotations

from desktop_app.core.retrieval import analyzer, languages

_SAME_PREFIX = 5  # "temperature" ~ "temperatures", "Brot" ~ "Brote", "chleba" ~ "chleb"


def _related(word: str, query_word: str) -> bool:
    short, long = sorted((word, query_word), key=len)
    if len(short) < 4:
        return word == query_word
    if long.startswith(short):
        return True
    return len(short) >= _SAME_PREFIX - 1 and word[:_SAME_PREFIX] == query_word[:_SAME_PREFIX]


def matching_spans(text: str, query_words: list[str]) -> list[tuple[int, int]]:
    """[start, end) of every word in `text` related to one of `query_words` (folded compare)."""
    # Function words ("from", "with", "nach") and words under four letters are not marked.
    wanted = [analyzer.fold(w.casefold()) for w in languages.content_words(query_words, 4)]
    if not wanted:
        return []
    spans = []
    for start, end in analyzer.word_spans(text):
        folded = analyzer.fold(text[start:end].casefold())
        if any(_related(folded, q) for q in wanted):
            spans.append((start, end))
    return spans
