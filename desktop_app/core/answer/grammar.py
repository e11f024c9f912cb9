"""The shape a generated answer may take, as a llama.cpp grammar (GBNF), and the loop stop.

A small model left free rambles, imitates labels ("The answer is:", "In German:"), starts lists
of alternatives and cites sources that do not exist. Decoding under this grammar it can only
write one or two plain sentences on one line, each ending in citations of the sources it was
given (`[1]`…`[k]`: a number past `k` cannot be sampled; at most two; before or after its full
stop), with no label (a colon stands only inside a number, as in 10:30, or in inline code), no
heading, list or table markup, no quotation mark left open, and no sentence that does not end in
a citation.
"""

from __future__ import annotations

from collections.abc import Iterable

from desktop_app.core.retrieval.languages import REGISTERED

MAX_SENTENCES = 2
SENTENCE_CHARS = 140  # at most this many characters (or numbers, or code spans) before its `[n]`
LONGEST_SENTENCE = 2 * SENTENCE_CHARS  # the most `sentence_bound` allows
LOOP_WORDS = 4  # a run of this many words written twice is a loop: generation stops

# Any character but line breaks, brackets, markup, colons, sentence ends and quotation marks;
# those stand only inside a number (2.5, 10:30), inline code or a closed quotation: a sentence
# ends only with its citations.
_CHAR = r'[^\n\r\[\]:#*|<>.!?`0-9"“”„]'
_ABBREVIATIONS = " | ".join(sorted({f'"{a}."' for lang in REGISTERED for a in lang.abbreviations}))
_QUOTE_OPEN, _QUOTE_CLOSE = r'["“„]', r'["“”]'
QUOTED_CHARS = 60  # a quotation inside an answer: a name or a short phrase


def sentence_bound(evidence: Iterable[str], follows_format: bool) -> int:
    """How long a sentence may run before its `[n]`: `SENTENCE_CHARS`; for a model that keeps to
    a format, as long as the longest evidence sentence it is given (restating one needs its
    length; cut short, its `[n]` is forced on it mid-word), at most `LONGEST_SENTENCE`."""
    if not follows_format:
        return SENTENCE_CHARS
    longest = max((len(text) for text in evidence), default=0)
    return min(LONGEST_SENTENCE, max(SENTENCE_CHARS, longest))


def answer_grammar(
    sources: int, sentences: int = MAX_SENTENCES, sentence_chars: int = SENTENCE_CHARS
) -> str:
    """GBNF for one to `sentences` sentences citing sources 1..`sources`, each at most
    `sentence_chars` long before its citations."""
    if sources < 1:
        raise ValueError("an answer grammar needs at least one source to cite")
    numbers = " | ".join(f'"{n}"' for n in range(1, sources + 1))
    more = ' (" " sentence)?' * (sentences - 1)
    return "\n".join(
        [
            f"root ::= sentence{more}",
            # its citations before its full stop, or after it ("… in 1943. [1]": a full stop
            # after a figure would otherwise have to go on as a decimal, "1943.1")
            'sentence ::= first body (" " cites "." | ". " cites)',
            'cites ::= cite (", " cite)?',
            # a sentence starts with a letter, a digit or a quotation: never with a label
            r'first ::= [^\n\r\[\]:#*|<> \t.,;!?`0-9"“”„-] | number | quoted',
            f"body ::= piece{{1,{sentence_chars}}}",
            f"piece ::= {_CHAR} | number | code | quoted | ordinal | abbreviation",
            "number ::= [0-9]+ ([.,:] [0-9]+)?",
            # a point inside a sentence: a day or an ordinal ("am 7. Januar", "15. 5.", "do 7.
            # května") or an abbreviation of the language files ("ca. 8 kg", "z. B.")
            'ordinal ::= [0-9] [0-9]? ". "',
            f"abbreviation ::= {_ABBREVIATIONS}",
            'code ::= "`" [^`\\n]+ "`"',
            f"quoted ::= {_QUOTE_OPEN} ({_CHAR} | number){{1,{QUOTED_CHARS}}} {_QUOTE_CLOSE}",
            f'cite ::= "[" ({numbers}) "]"',
        ]
    )


def repeats(words: Iterable[str], size: int = LOOP_WORDS) -> bool:
    """A run of `size` words stands twice in `words` (case-folded, punctuation kept)."""
    seen: set[tuple[str, ...]] = set()
    window: list[str] = []
    for word in words:
        window = [*window, word.casefold()][-size:]
        if len(window) == size:
            key = tuple(window)
            if key in seen:
                return True
            seen.add(key)
    return False
