import math

import pytest

from mitra.evaluation.retrieval import query_metrics
from mitra.evaluation.metrics import evidence_matches, mrr_at_k, ndcg_at_k, precision_at_k, recall_at_k
from mitra.retrieval.fusion import reciprocal_rank_fusion


def test_precision_recall_mrr_by_hand():
    relevant = [False, True, False, True, False]
    assert precision_at_k(relevant, 1) == 0.0
    assert precision_at_k(relevant, 3) == pytest.approx(1 / 3)
    assert precision_at_k(relevant, 5) == pytest.approx(2 / 5)
    assert mrr_at_k(relevant, 10) == 0.5
    assert mrr_at_k([False] * 10 + [True], 10) == 0.0
    # three evidence units; rank 2 covers unit 0, rank 4 covers units 1 and 2
    covered = [set(), {0}, set(), {1, 2}, set()]
    assert recall_at_k(covered, 3, 1) == 0.0
    assert recall_at_k(covered, 3, 3) == pytest.approx(1 / 3)
    assert recall_at_k(covered, 3, 5) == 1.0


def test_ndcg_by_hand():
    # relevant at ranks 2 and 3; two relevant chunks exist in the analysis
    relevant = [False, True, True]
    dcg = 1 / math.log2(3) + 1 / math.log2(4)
    idcg = 1 / math.log2(2) + 1 / math.log2(3)
    assert ndcg_at_k(relevant, 2, 3) == pytest.approx(dcg / idcg)
    assert ndcg_at_k([True, True, False], 2, 3) == pytest.approx(1.0)
    assert ndcg_at_k([False, False, False], 0, 3) == 0.0


def test_query_metrics_combines_them():
    metrics = query_metrics(["a", "b", "c"], {"b": {0}}, n_units=1)
    assert metrics["P@1"] == 0 and metrics["MRR@10"] == 0.5 and metrics["R@3"] == 1.0


def test_evidence_matching_rule():
    chunk = (
        "Systematic uncertainties. The dominant source of systematic uncertainty is the modelling of "
        "W boson production, followed by the muon momentum scale."
    )
    # gold evidence in LaTeX, as in the LHCb expert set: matched after the same cleaning
    assert evidence_matches(r"the dominant source of systematic uncertainty, which is the modelling of \PW boson production", chunk)
    assert not evidence_matches("The luminosity is determined with a van der Meer scan.", chunk)
    # evidence longer than the chunk (a table split over chunks): the chunk is mostly evidence
    long_evidence = chunk + " " + " ".join(f"Extra sentence {i} about other things." for i in range(30))
    assert evidence_matches(long_evidence, chunk)


def test_reciprocal_rank_fusion_by_hand():
    fused = reciprocal_rank_fusion({"dense": ["a", "b"], "bm25": ["b", "c"]}, {"dense": 1.0, "bm25": 0.5}, k=60)
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["b"] == pytest.approx(1 / 62 + 0.5 / 61)
    assert fused["c"] == pytest.approx(0.5 / 62)
    assert max(fused, key=fused.get) == "b"
