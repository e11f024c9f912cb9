from __future__ import annotations

from desktop_app.core.retrieval import analyzer


def terms(text: str, language: str) -> list[str]:
    return analyzer.stems(analyzer.words(text), language)


def test_czech_declensions_share_a_stem() -> None:
    assert terms("vítěz", "cs") == terms("vítězů", "cs") == terms("vítězi", "cs")
    assert terms("kolo", "cs")[0] == terms("kole", "cs")[0]


def test_german_inflections_share_a_stem() -> None:
    assert terms("Häuser", "de") == terms("Häusern", "de")
    assert terms("Verteidigung", "de") == terms("Verteidigungen", "de")


def test_matching_ignores_diacritics_and_case() -> None:
    assert analyzer.fold("příliš") == "prilis"
    assert terms("ŘETĚZ", "cs") == terms("řetěz", "cs")
    assert analyzer.prefixes(analyzer.words("Řetězy")) == analyzer.prefixes(
        analyzer.words("retezy")
    )


def test_languages_without_a_stemmer_fall_back_to_prefixes() -> None:
    assert not analyzer.has_stemmer("ja")
    assert terms("Krankenversicherung", "xx") == ["krank"]


def test_language_detection_for_notes_and_queries() -> None:
    assert analyzer.detect_language("Na jaře jsem vyměnil řetěz na horském kole.") == "cs"
    assert analyzer.detect_language("Im Garten wachsen Tomaten und Gurken.") == "de"
    assert analyzer.detect_language("How do I make main the default branch?") == "en"
    # short queries are only classified among the index's languages
    assert analyzer.detect_language("Tomaten Wasser", ["de", "cs"]) == "de"
    assert analyzer.detect_language("...", None) == analyzer.FALLBACK_LANGUAGE
