"""What a chat model can write: its languages, its context, whether it keeps to a format.

A model writes an answer only in a language it writes; for any other, Quire composes the answer
from the evidence in the notes' own words (`answer_line`). The profile comes from the GGUF's
family (its `general.architecture`, name and chat template), and the user may correct the
languages in Settings → Models (`languages` given here wins).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from desktop_app.core.answer.gguf import GgufInfo


@dataclass(frozen=True)
class Family:
    """Defaults for models whose architecture or name matches `pattern`."""

    name: str
    pattern: re.Pattern[str]
    languages: frozenset[str] | None  # None: it writes any language well enough
    follows_format: bool


def _family(name: str, pattern: str, languages: str | None, follows_format: bool) -> Family:
    codes = None if languages is None else frozenset(languages.split())
    return Family(name, re.compile(pattern, re.IGNORECASE), codes, follows_format)


# The languages each family's model cards name; the first family that matches wins (the name is
# read before the architecture: SmolLM2 is a `llama` architecture).
FAMILIES = (
    _family("SmolLM", r"smol", "en", False),
    _family("Qwen", r"qwen", "en de fr es pt it ru ja ko vi th ar zh", True),
    _family("Gemma", r"gemma", None, True),
    _family("Mistral", r"mistral|mixtral|ministral", "en fr de es it", True),
    _family("Phi", r"\bphi", "en", True),
    _family("Aya", r"aya|command-r", None, True),
    _family("EuroLLM", r"eurollm|salamandra|teuken", None, True),
    _family("Llama", r"llama", "en de fr it pt hi es th", True),
)
UNKNOWN = Family("unknown", re.compile("$^"), frozenset({"en"}), False)
# llama.cpp's chat-template names that tell the family when the name does not.
_TEMPLATE_HINTS = (("<|im_start|>", "Qwen"), ("<start_of_turn>", "Gemma"), ("[INST]", "Mistral"))


@dataclass(frozen=True)
class ModelProfile:
    family: str
    languages: frozenset[str] | None  # None: any language
    context: int
    follows_format: bool
    corrected: bool = False  # the languages are the user's, not the family's

    def writes(self, language: str) -> bool:
        return self.languages is None or language in self.languages

    def languages_label(self) -> str:
        return "any language" if self.languages is None else ", ".join(sorted(self.languages))


def family_of(info: GgufInfo) -> Family:
    """The family a GGUF belongs to, by its name, then its architecture, then its template."""
    for text in (info.name, info.path.name, info.architecture):
        for family in FAMILIES:
            if text and family.pattern.search(text):
                return family
    for marker, name in _TEMPLATE_HINTS:
        if marker in (info.chat_template or ""):
            return next(f for f in FAMILIES if f.name == name)
    return UNKNOWN


def profile_of(
    info: GgufInfo, context: int, languages: Iterable[str] | None = None
) -> ModelProfile:
    """The profile of a model file; `languages`: the user's correction ("*" means any)."""
    family = family_of(info)
    codes = family.languages
    if languages is not None:
        given = [code.strip().lower() for code in languages if code.strip()]
        codes = None if "*" in given else frozenset(given)
    return ModelProfile(
        family.name, codes, context, family.follows_format, corrected=languages is not None
    )


def parse_languages(text: str) -> list[str] | None:
    """A languages field as typed in Settings ("en, de", "*", "" for the family's default)."""
    codes = [c.strip().lower() for c in re.split(r"[\s,;]+", text) if c.strip()]
    if not codes:
        return None
    bad = [c for c in codes if c != "*" and not re.fullmatch(r"[a-z]{2,3}", c)]
    if bad:
        raise ValueError(f"not a language code: {', '.join(bad)} (write codes like en, de, cs)")
    return codes
