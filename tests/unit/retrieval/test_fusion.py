import pytest

from mitra.core.types import chunk_id
from mitra.retrieval.retriever import neighbour_scores
from mitra.retrieval.fusion import convex_fusion, fuse, ranked_ids, zscore_fusion
from mitra.core.settings import Settings


def test_convex_fusion_by_hand():
    scored = {"dense": [("a", 0.9), ("b", 0.5), ("c", 0.4)], "bm25": [("b", 12.0), ("d", 4.0)]}
    fused = convex_fusion(scored, {"dense": 1.0, "bm25": 1.0})
    # min-max per list: dense a=1, b=0.2, c=0; bm25 b=1, d=0; absent counts 0
    assert fused["a"] == pytest.approx(0.5)
    assert fused["b"] == pytest.approx(0.6)
    assert fused["c"] == pytest.approx(0.0)
    assert fused["d"] == pytest.approx(0.0)
    assert max(fused, key=fused.get) == "b"


def test_convex_fusion_weights_and_degenerate_lists():
    scored = {"dense": [("a", 0.9), ("b", 0.1)], "bm25": [("b", 3.0), ("a", 1.0)]}
    dense_heavy = convex_fusion(scored, {"dense": 3.0, "bm25": 1.0})
    bm25_heavy = convex_fusion(scored, {"dense": 1.0, "bm25": 3.0})
    assert dense_heavy == {"a": pytest.approx(0.75), "b": pytest.approx(0.25)}
    assert bm25_heavy == {"a": pytest.approx(0.25), "b": pytest.approx(0.75)}
    # one candidate (or all tied) normalises to 1; an empty list contributes nothing
    fused = convex_fusion({"dense": [("a", 0.3)], "bm25": []}, {"dense": 1.0, "bm25": 1.0})
    assert fused == {"a": pytest.approx(0.5)}


def test_zscore_fusion_by_hand():
    # dense: low 0.1, sd 0.2 -> a=2, c=0; bm25: low 2, sd 4 -> b=2, d=0; absent counts 0.
    # Weighted 1:3, an item first in both lists would score 2 + 3 * 2 = 8.
    scored = {"dense": [("a", 0.5), ("c", 0.1)], "bm25": [("b", 10.0), ("d", 2.0)]}
    weights = {"dense": 1.0, "bm25": 3.0}
    fused = zscore_fusion(scored, weights)
    assert fused == {"a": pytest.approx(0.25), "b": pytest.approx(0.75), "c": pytest.approx(0.0), "d": pytest.approx(0.0)}
    assert fuse(scored, weights, "zscore", 60) == fused


def test_zscore_fusion_scales_by_spread_not_range_and_handles_degenerate_lists():
    # The same top-to-bottom range, but BM25's candidates are spread evenly while the
    # dense list is one winner above a tied field: in standard deviations the dense
    # winner stands less far above its list's lowest, so the BM25 winner comes first
    # where min-max would tie them.
    scored = {"dense": [("a", 0.9), ("x", 0.1), ("y", 0.1), ("z", 0.1), ("w", 0.1)],
              "bm25": [("b", 9.0), ("x", 7.0), ("y", 5.0), ("z", 3.0), ("w", 1.0)]}
    weights = {"dense": 1.0, "bm25": 1.0}
    assert convex_fusion(scored, weights)["a"] == pytest.approx(convex_fusion(scored, weights)["b"])
    assert ranked_ids(zscore_fusion(scored, weights))[0] == "b"
    # one candidate (or all tied) counts as 1; an empty list contributes nothing
    assert zscore_fusion({"dense": [("a", 0.3)], "bm25": []}, weights) == {"a": pytest.approx(1.0)}


def test_tier2_fusion_defaults_to_zscore():
    assert Settings(_env_file=None).fusion == "zscore"
    with pytest.raises(ValueError):
        Settings(_env_file=None, fusion="max")


def test_a_candidate_scores_its_best_neighbour_in_the_same_document_version():
    ids = [chunk_id("note", "v2", position, f"paragraph {position}") for position in range(4)]
    other = chunk_id("note", "v1", 1, "paragraph 1 of the older version")
    fused = {ids[0]: 0.2, ids[1]: 0.9, ids[3]: 0.5, other: 1.0, "hand-made-id": 0.7}
    assert neighbour_scores(fused) == {ids[0]: 0.9, ids[1]: 0.2}


def test_fusion_statistics_come_from_a_fixed_depth_only():
    # The same head, different tails (an approximate search's deep ranks, or a retriever
    # asked to go deeper): at depth 2 the head's fused scores do not move, and a tail
    # candidate below the head counts as the head's lowest (0), never below it.
    head = [("a", 0.9), ("b", 0.7)]
    short = {"dense": head, "bm25": [("a", 3.0), ("b", 1.0)]}
    long = {"dense": head + [("t1", 0.2), ("t2", 0.1), ("t3", 0.05)], "bm25": short["bm25"]}
    weights = {"dense": 1.0, "bm25": 1.0}
    for method in ("zscore", "convex"):
        with_tail = fuse(long, weights, method, 60, depth=2)
        assert {i: with_tail[i] for i in ("a", "b")} == pytest.approx(fuse(short, weights, method, 60, depth=2))
        assert with_tail["t1"] == with_tail["t3"] == 0.0
        # without a depth the tail moves every score
        assert fuse(long, weights, method, 60)["b"] != pytest.approx(fuse(short, weights, method, 60)["b"])


def test_the_guard_keeps_bm25s_order_where_dense_and_bm25_share_nothing_in_their_heads():
    from mitra.retrieval.fusion import guarded_order

    fused = ["d1", "b1", "d2", "b2"]
    disagree = {"dense": [("d1", 0.9), ("d2", 0.8), ("b2", 0.1)], "bm25": [("b1", 9.0), ("b2", 5.0), ("d1", 1.0)]}
    assert guarded_order(fused, disagree, 2) == ["b1", "b2", "d1", "d2"]
    assert guarded_order(fused, disagree, 3) == fused  # b2 and d1 are in both heads of 3
    assert guarded_order(fused, disagree, 0) == fused  # 0: always fuse
    assert guarded_order(fused, {"dense": [], "bm25": disagree["bm25"]}, 2) == fused  # nothing to disagree with
