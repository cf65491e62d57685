"""Tier 1's abstract vectors: exact search (the evidence index: test_evidence_index.py)."""

import numpy as np
import pytest

from mitra.store.routing import AbstractVectors


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
