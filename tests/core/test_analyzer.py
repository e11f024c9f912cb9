from __future__ import annotations

import sys
import threading

import pytest

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


def test_a_short_query_goes_to_the_language_most_notes_are_in() -> None:
    """One odd note (made-up words read as Afrikaans) must not make a one-word query Afrikaans;
    a sentence still goes by its words."""
    languages = ["af", "de", "en"]
    prior = {"en": 2000, "af": 1, "de": 5}
    assert analyzer.detect_language("goodword3", languages) == "af"  # what the prior fixes
    assert analyzer.detect_language("goodword3", languages, prior=prior) == "en"
    sentence = "Was hat der Installateur gestern an der Heizung im Keller gemacht?"
    assert analyzer.detect_language(sentence, languages, prior=prior) == "de"


def test_language_detection_for_notes_and_queries() -> None:
    assert analyzer.detect_language("Na jaře jsem vyměnil řetěz na horském kole.") == "cs"
    assert analyzer.detect_language("Im Garten wachsen Tomaten und Gurken.") == "de"
    assert analyzer.detect_language("How do I make main the default branch?") == "en"
    # short queries are only classified among the index's languages
    assert analyzer.detect_language("Tomaten Wasser", ["de", "cs"]) == "de"
    assert analyzer.detect_language("...", None) == analyzer.FALLBACK_LANGUAGE


def test_cached_terms_stay_right_across_threads_and_cache_resets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Stems are cached per language; a full cache is replaced while other threads read it."""
    import Stemmer

    czech = Stemmer.Stemmer("czech")
    texts = [f"vítězové {i} řetězům kolech slovo{i % 50} Straße{i % 7}" for i in range(400)]
    expected = {t: [analyzer.fold(s) for s in czech.stemWords(analyzer.words(t))] for t in texts}
    monkeypatch.setattr(analyzer, "_CACHE_LIMIT", 40)  # forces many resets
    monkeypatch.setattr(analyzer, "_caches", {})
    wrong: list[str] = []

    def work(offset: int) -> None:
        for t in texts[offset:] + texts[:offset]:
            try:
                if terms(t, "cs") != expected[t]:
                    wrong.append(t)
            except Exception as exc:  # e.g. a KeyError: a reset that dropped words in use
                wrong.append(repr(exc))

    threads = [threading.Thread(target=work, args=(k * 97,)) for k in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert wrong == []
    assert len(analyzer._caches["stem:cs"]) <= 40


def test_the_identifier_read_in_pieces_is_py3langid_s_own() -> None:
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

    own = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    ours = analyzer.read_identifier(MODEL_DIR / MODEL_FILE)
    assert ours.tk_nextmove == own.tk_nextmove and ours.tk_row == own.tk_row
    assert ours.tk_nextmove.typecode == own.tk_nextmove.typecode
    assert ours.tk_output == own.tk_output and ours.nb_classes == own.nb_classes
    assert (ours.nb_ptc == own.nb_ptc).all() and (ours.nb_pc == own.nb_pc).all()
    for text in ("Kde hnízdí volavky?", "Wo nisten die Reiher?", "Where do herons nest?"):
        assert ours.rank(text) == own.rank(text)
