"""Scores read from the chunk index's term counts: coverage of a question, and section
scores with some chunks left out (equal to a section index built without them)."""

import pytest

from mitra.core.text import tokenize
from mitra.core.types import Chunk
from mitra.store.filters import SearchFilter
from mitra.store.index_cache import chunk_index
from mitra.store.term_scores import coverage, section_scores_without

PARAGRAPHS = [
    ("Selection", "Muon candidates need a transverse momentum above 20 GeV."),
    ("Selection", "Jets are clustered with the anti-kt algorithm."),
    ("Systematic uncertainties", "The jet energy scale dominates the systematic uncertainty."),
    ("Systematic uncertainties", "Figure 4: the jet energy scale uncertainty in bins of jet pT."),
    ("Results", "The measured cross-section agrees with the Standard Model."),
    ("Results", "Luminosity is 138 fb-1 with a 1.6 percent uncertainty."),
]


def chunks(skip: set[int] = frozenset()) -> list[Chunk]:
    return [Chunk(id=f"c{i}", analysis_id="a", doc_id="paper", version="v1", position=i, section=[section],
                  text=text) for i, (section, text) in enumerate(PARAGRAPHS) if i not in skip]


def test_coverage_is_the_share_of_the_question_idf_a_passage_holds():
    index = chunk_index(chunks())
    asked = tokenize("jet energy scale uncertainty")
    scores = dict(coverage(index, asked, ["c0", "c2", "c3", "c5"]))
    assert scores["c2"] == pytest.approx(1.0) and scores["c3"] == pytest.approx(1.0)
    assert scores["c0"] == 0.0
    weight = {t: index.idf(t) for t in set(asked)}
    assert scores["c5"] == pytest.approx(weight["uncertainti"] / sum(weight.values()))
    assert coverage(index, ["unknownword"], ["c0"]) == []
    assert [i for i, _ in coverage(index, asked, ["c5", "c3", "c2", "missing"])] == ["c2", "c3", "c5"]


@pytest.mark.parametrize("question", ["jet energy scale uncertainty", "figure jet pT", "muon luminosity standard model"])
def test_section_scores_without_nothing_left_out_are_the_section_index_scores(question):
    index = chunk_index(chunks())
    tokens = tokenize(question)
    expected = dict(index.sections.search_tokens(tokens, len(index.sections)))
    got = section_scores_without(index, tokens, set())
    assert got.keys() == expected.keys()
    for name, score in expected.items():
        assert got[name] == pytest.approx(score, rel=1e-4)


def test_a_left_out_chunk_counts_as_if_it_had_never_been_indexed():
    tokens = tokenize("figure jet pT")
    without = chunk_index(chunks(skip={3}))
    expected = dict(without.sections.search_tokens(tokens, len(without.sections)))
    got = section_scores_without(chunk_index(chunks()), tokens, {"c3"})
    assert got.keys() == expected.keys()
    for name, score in expected.items():
        assert got[name] == pytest.approx(score, rel=1e-4)


def test_a_filter_leaving_chunks_out_masks_them_for_bm25_and_admits():
    index = chunk_index(chunks())
    kept = SearchFilter(left_out=frozenset({"c2", "c3"}))
    hits = index.search_tokens(tokenize("jet energy scale uncertainty"), 6, kept.bm25_mask(index))
    assert {i for i, _ in hits} == {"c1", "c5"}
    assert not kept.admits(chunks()[2]) and kept.admits(chunks()[0])
    assert SearchFilter().bm25_mask(index) is None  # the memoised mask is not changed by leaving out
