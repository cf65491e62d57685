"""Tier 1's indexes: exact abstract search and per-analysis evidence (no models needed)."""

import numpy as np
import pytest

from mitra.store.routing import AbstractVectors, EvidenceSearch, build_evidence


def test_abstract_search_is_exact_and_breaks_ties_by_id():
    rng = np.random.default_rng(0)
    matrix = rng.standard_normal((500, 16)).astype(np.float32)
    ids = [f"A-{i:03d}" for i in range(500)]
    vectors = AbstractVectors(ids, matrix * rng.uniform(0.5, 3, (500, 1)))  # norms do not matter
    query = rng.standard_normal(16)
    cosine = matrix @ query / np.linalg.norm(matrix, axis=1) / np.linalg.norm(query)
    expected = [ids[i] for i in np.argsort(-cosine)[:10]]
    assert [i for i, _ in vectors.search(query, 10)] == expected
    assert vectors.search(query, 10)[0][1] == pytest.approx(cosine.max(), abs=1e-5)
    twins = AbstractVectors(["B", "A", "C"], np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    assert [i for i, _ in twins.search(np.array([1.0, 0.0]), 3)] == ["A", "B", "C"]
    assert AbstractVectors([], np.zeros((0, 2))).search(np.array([1.0, 0.0]), 3) == []


def _evidence(unit="section"):
    generations = {
        "X-1": ("ft-x-g1", [("d@1#Intro", ["higgs", "muon"]), ("d@1#Filters", ["dscr", "filter", "screen"]),
                            ("d@1#Filters", ["filter", "set"])]),
        "X-2": ("ft-y-g3", [("d@1#Intro", ["filter", "muon"]), ("d@1#Results", ["higgs", "mass"])]),
        "X-3": ("ft-z-g1", [("d@1#Intro", ["dscr", "screen", "filter", "set"])]),
    }
    return EvidenceSearch(build_evidence(generations, unit, "7"))


def test_evidence_scores_each_analysis_by_its_best_unit():
    search = _evidence()
    current = {"X-1": "ft-x-g1", "X-2": "ft-y-g3", "X-3": "ft-z-g1"}
    ranked = search.search(["dscr", "filter", "set"], 10, 100, current)
    assert [a for a, _ in ranked][:2] in (["X-3", "X-1"], ["X-1", "X-3"])
    assert [a for a, _ in ranked][-1] == "X-2"  # one shared word, its best unit scores lowest
    assert len({a for a, _ in ranked}) == len(ranked)  # one entry per analysis
    passages = _evidence("passage")
    assert len(passages.index) == 6 and len(search.index) == 5  # passages apart, sections joined


def test_evidence_never_counts_a_hidden_or_replaced_analysis():
    search = _evidence()
    # X-3 is hidden from this reader; X-1 was re-indexed since the build (another generation)
    ranked = search.search(["dscr", "filter", "set"], 10, 100, {"X-1": "ft-x-g2", "X-2": "ft-y-g3"})
    assert [a for a, _ in ranked] == ["X-2"]
