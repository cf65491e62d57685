"""Exact dense search over paragraph and sentence-window vectors."""

import numpy as np
import pytest

from mitra.store.dense import DenseIndex


def unit(*values: float) -> np.ndarray:
    v = np.array(values, np.float32)
    return v / np.linalg.norm(v)


def index() -> DenseIndex:
    no_windows = np.zeros((0, 3), np.float32)
    return DenseIndex.build(
        ["b", "a", "c", "d"],
        np.array([unit(1, 0, 0), unit(1, 0, 0), unit(0, 1, 0), unit(1, 1, 0)]),
        [no_windows, no_windows, np.array([unit(1, 0, 0), unit(0, 0, 1)]), no_windows],
        dim=3,
    )


def test_a_paragraph_scores_the_mean_of_its_own_and_its_best_windows_similarity():
    hits = dict(index().search(unit(1, 0, 0), 4))
    assert hits["c"] == pytest.approx((0.0 + 1.0) / 2)  # its own vector misses; its first window hits
    assert hits["a"] == hits["b"] == pytest.approx(1.0)  # no windows: its own similarity
    assert hits["d"] == pytest.approx(np.sqrt(0.5))


def test_ranking_is_exact_best_first_with_ties_by_id():
    assert [i for i, _ in index().search(unit(1, 0, 0), 4)] == ["a", "b", "d", "c"]
    assert [i for i, _ in index().search(unit(1, 0, 0), 2)] == ["a", "b"]


def test_windows_off_scores_paragraphs_alone():
    assert dict(index().search(unit(1, 0, 0), 4, windows=False))["c"] == pytest.approx(0.0)


def test_the_mask_admits_rows():
    mask = np.array([0, 0, 1, 1], np.float32)
    assert [i for i, _ in index().search(unit(1, 0, 0), 4, mask)] == ["d", "c"]
    assert index().search(unit(1, 0, 0), 4, np.zeros(4, np.float32)) == []


def test_save_and_load_give_the_same_search(tmp_path):
    index().save(tmp_path / "g1")
    loaded = DenseIndex.load(tmp_path / "g1")
    query = unit(0.3, 0.9, 0.1)
    assert loaded.search(query, 4) == index().search(query, 4)
    assert loaded.parts().keys() == index().parts().keys()
    assert DenseIndex.load(tmp_path / "missing") is None


def test_an_empty_index_finds_nothing():
    assert DenseIndex.build([], np.zeros((0, 3)), [], dim=3).search(unit(1, 0, 0), 5) == []


def test_each_paragraph_takes_its_own_best_window_whatever_its_neighbours_hold():
    rng = np.random.default_rng(0)
    counts = [0, 3, 0, 0, 1, 2, 0, 4]
    vectors = [unit(*rng.standard_normal(3)) for _ in counts]
    windows = [np.array([unit(*rng.standard_normal(3)) for _ in range(n)], np.float32).reshape(n, 3) for n in counts]
    built = DenseIndex.build([f"p{i}" for i in range(len(counts))], np.array(vectors), windows, dim=3)
    query = unit(0.2, -0.5, 0.8)
    for paragraph, score in built.search(query, len(counts)):
        i = int(paragraph[1:])
        own = float(vectors[i] @ query)
        want = (own + max(float(w @ query) for w in windows[i])) / 2 if counts[i] else own
        assert score == pytest.approx(want)
