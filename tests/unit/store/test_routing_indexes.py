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


def test_the_abstract_product_runs_on_one_blas_thread():
    """OpenBLAS's threads spin after a product: over 5,000 analyses they doubled the next
    question's embedding on 2 cores (``mitra.store.blas``)."""
    from threadpoolctl import threadpool_info

    threads = []

    class Probe:
        def __init__(self, matrix):
            self.matrix = matrix

        def __matmul__(self, query):
            # numpy's own BLAS: the suite loads others (scipy's) that its products never call
            threads.extend(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas" and "numpy" in i["filepath"])
            return self.matrix @ query

    vectors = AbstractVectors(["a", "b"], np.eye(2, dtype=np.float32))
    vectors.matrix = Probe(vectors.matrix)
    vectors.search(np.array([1.0, 0.0], np.float32), 1)
    assert threads and set(threads) == {1}
