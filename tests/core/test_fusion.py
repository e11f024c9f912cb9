from __future__ import annotations

from desktop_app.core.retrieval import fusion
from desktop_app.core.retrieval.dense import DenseHit
from desktop_app.core.retrieval.lexical import LexicalHit


def lex(*ids: int, coverage: float = 1.0) -> list[LexicalHit]:
    return [LexicalHit(i, 10.0 - n, ("t",), coverage) for n, i in enumerate(ids)]


def dense(*ids: int) -> list[DenseHit]:
    return [DenseHit(i, 0.9 - n / 10) for n, i in enumerate(ids)]


def test_agreement_wins() -> None:
    w = fusion.Weights(1.0, 1.0)
    fused = fusion.fuse(lex(1, 2, 3), dense(3, 4, 1), w)
    assert {fused[0].chunk_id, fused[1].chunk_id} == {1, 3}
    assert fused[0].lexical_rank is not None and fused[0].dense_rank is not None


def test_english_only_embedder_is_trusted_less_for_other_languages() -> None:
    english = fusion.trust_weights(lex(1), dense(2), "en", frozenset({"en"}))
    czech = fusion.trust_weights(lex(1), dense(2), "cs", frozenset({"en"}))
    multilingual = fusion.trust_weights(lex(1), dense(2), "cs", None)
    assert czech.dense < english.dense
    assert multilingual.dense == english.dense
    assert fusion.fuse(lex(1, 5), dense(2, 6), czech)[0].chunk_id == 1


def test_keyword_questions_trust_lexical_more() -> None:
    strong = fusion.trust_weights(lex(1, coverage=1.0), dense(2), "en", None)
    weak = fusion.trust_weights(lex(1, coverage=0.1), dense(2), "en", None)
    assert strong.lexical > weak.lexical
    assert fusion.fuse(lex(1, 5, coverage=0.1), dense(2, 6), weak)[0].chunk_id == 2


def test_missing_retriever_falls_back_to_the_other() -> None:
    assert fusion.trust_weights([], dense(1), "en", None) == fusion.Weights(0.0, 1.0)
    assert fusion.trust_weights(lex(1), [], "en", None) == fusion.Weights(1.0, 0.0)
    assert [f.chunk_id for f in fusion.fuse(lex(4, 2), [], fusion.Weights(1, 0))] == [4, 2]
