"""The retrieval benchmark reports how far choosing among its systems could go: each
question's best system, relative to BM25. Where even that stays under a target, no
fusion or guard over those systems' orders can reach it, and the report must say so."""

from benchmarks.retrieval_quality import compare


def test_the_comparison_reports_the_best_system_per_question():
    result = {"default": "hybrid", "systems": {"bm25": {"MRR@10": 0.5}},
              "per_query_mrr": {"bm25": [1.0, 0.0, 0.5, 0.5], "dense": [0.0, 1.0, 0.0, 0.5],
                                "hybrid": [1.0, 0.0, 0.25, 1.0]}}
    row = compare({"long": result}, resamples=100)["per_set"]["long"]
    assert row["diff"] == 0.0625
    assert row["best_per_question"] == 0.875  # 1, 1, 0.5, 1: each question's best system
    assert row["best_relative"] == 0.75
