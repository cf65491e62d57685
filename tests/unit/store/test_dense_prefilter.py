"""The 8-bit first pass over a large analysis's vectors never changes what dense search finds."""

import numpy as np
import pytest

from mitra.store.dense import DenseIndex
from mitra.store.dense_prefilter import Int8Prefilter


def clustered(n: int, seed: int, dim: int = 384) -> np.ndarray:
    """Unit rows in 20 tight clusters: near-duplicates whose order 8-bit rounding upsets."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((20, dim))
    rows = centres[rng.integers(20, size=n)] + 0.005 * rng.standard_normal((n, dim))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def questions(vectors: np.ndarray, seed: int, n: int = 8) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    picked = vectors[rng.integers(len(vectors), size=n)] + 0.05 * rng.standard_normal((n, vectors.shape[1]))
    return [(q / np.linalg.norm(q)).astype(np.float32) for q in picked]


@pytest.mark.parametrize("depth", [1, 50, 1000])
def test_the_shortlist_holds_the_exact_top_rows_with_their_exact_scores(depth):
    vectors = clustered(4000, seed=1)
    prefilter = Int8Prefilter(vectors)
    admitted = np.flatnonzero(np.arange(len(vectors)) % 3)
    for query in questions(vectors, seed=2):
        exact = vectors @ query
        for among in (None, admitted):
            rows, scores = prefilter.shortlist(vectors, query, depth, among)
            pool = np.arange(len(vectors)) if among is None else among
            best = pool[np.argsort(-exact[pool], kind="stable")[:depth]]
            assert set(best) <= set(rows) <= set(pool)
            np.testing.assert_allclose(scores, exact[rows], atol=1e-6)
        if depth == 50:
            assert len(rows) < len(admitted)  # it does leave rows unscored


def test_a_prefiltered_index_ranks_exactly_like_the_full_product():
    vectors = clustered(3000, seed=3)
    rng = np.random.default_rng(4)
    windows = [clustered(int(rng.integers(0, 4)), seed=10 + i) for i in range(len(vectors))]
    ids = [f"p{i:05d}" for i in range(len(vectors))]
    exact = DenseIndex.build(ids, vectors, windows, dim=384)
    fast = DenseIndex.build(ids, vectors, windows, dim=384).prefiltered(min_rows=1000)
    assert fast.prefilter is not None and exact.prefilter is None
    mask = (rng.random(len(vectors)) < 0.7).astype(np.float32)
    for query in questions(vectors, seed=5):
        for k, among, with_windows in ((10, None, False), (50, None, True), (50, mask, False), (20, mask, True)):
            want = exact.search(query, k, among, with_windows)
            got = fast.search(query, k, among, with_windows)
            assert [i for i, _ in got] == [i for i, _ in want]
            np.testing.assert_allclose([s for _, s in got], [s for _, s in want], atol=1e-6)


def test_small_indexes_keep_the_plain_product():
    assert DenseIndex.build(["a"], np.ones((1, 384), np.float32), [np.zeros((0, 384))], dim=384).prefiltered().prefilter is None


def test_the_bound_holds_where_the_question_points_along_a_rows_own_rounding_error():
    """The worst case for the bound: the question is the row's rounding error itself."""
    vectors = clustered(500, seed=6)
    prefilter = Int8Prefilter(vectors)
    for row in range(0, 500, 50):
        error = vectors[row] - np.rint(vectors[row] / prefilter.scale[row]) * prefilter.scale[row]
        query = (error / np.linalg.norm(error)).astype(np.float32)
        approx, bound = prefilter.scores(query, None)
        missed = abs(float(vectors[row] @ query) - float(approx[row]))
        assert 0.5 * bound[row] < missed <= bound[row]


def test_quantizing_a_block_at_a_time_gives_the_same_copies(monkeypatch):
    vectors = clustered(2500, seed=7)
    whole = Int8Prefilter(vectors)
    monkeypatch.setattr("mitra.store.dense_prefilter._BLOCK", 700)
    blocks = Int8Prefilter(vectors)
    for name in ("scale", "error", "norm"):
        np.testing.assert_array_equal(getattr(blocks, name), getattr(whole, name))
    query = questions(vectors, seed=8, n=1)[0]
    np.testing.assert_array_equal(blocks.scores(query, None)[0], whole.scores(query, None)[0])
