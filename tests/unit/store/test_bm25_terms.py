"""Pseudo-relevance feedback reads the first-pass passages' terms from the index."""

import math
from collections import Counter

import pytest

from mitra.core.text import tokenize
from mitra.store.bm25 import BM25Index

TEXTS = {
    "a": "The muon trigger efficiency was measured with tag and probe on Z decays.",
    "b": "Muon identification efficiency: tag and probe, Z to mu mu, in bins of pT and eta.",
    "c": "The jet energy scale uncertainty dominates the systematic uncertainty.",
    "d": "Luminosity is 138 fb-1 with a 1.6 percent uncertainty.",
}


def index(**options) -> BM25Index:
    return BM25Index.build(list(TEXTS), list(TEXTS.values()), **options)


def expected(ids: list[str], asked: list[str], n: int) -> list[str]:
    """Term frequency in the passages times log(1 + N / df), as counted from their texts."""
    tokenized = {i: tokenize(t) for i, t in TEXTS.items()}
    counts = Counter(t for i in ids for t in tokenized[i] if t not in asked)
    df = Counter(t for tokens in tokenized.values() for t in set(tokens))
    weight = {t: c * math.log(1 + len(TEXTS) / df[t]) for t, c in counts.items()}
    return sorted(weight, key=lambda t: (-weight[t], t))[:n]


def test_expansion_terms_are_those_counted_from_the_texts():
    built = index(with_terms=True)
    asked = tokenize("muon efficiency")
    assert built.expansion_terms(["a", "b"], asked, 5) == expected(["a", "b"], asked, 5)
    assert built.expansion_terms(["c"], [], 3) == expected(["c"], [], 3)
    assert not set(built.expansion_terms(["a", "b"], asked, 50)) & set(asked)
    assert built.expansion_terms(["unknown"], asked, 5) == []


def test_term_counts_survive_a_save(tmp_path):
    index(with_terms=True).save(tmp_path / "g1")
    loaded = BM25Index.load(tmp_path / "g1")
    assert loaded.expansion_terms(["a", "b"], [], 5) == expected(["a", "b"], [], 5)


def test_an_index_without_term_counts_says_so():
    with pytest.raises(ValueError, match="without term counts"):
        index().expansion_terms(["a"], [], 5)
    assert BM25Index.build([], [], with_terms=True).expansion_terms(["a"], [], 5) == []
