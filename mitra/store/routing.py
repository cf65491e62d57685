"""Tier 1's indexes beside the abstracts collection: exact abstract vectors, and the
units of full-text evidence of every analysis.

* ``AbstractVectors``: every analysis's routing vector in one matrix of unit vectors,
  searched exactly. Chroma's HNSW returned a different top 50 for the same query vector
  in each new process at 800 analyses (its index is rebuilt from the write-ahead log on
  load), and z-score fusion took its spread from that list, so routing changed from one
  process to the next. A few thousand rows make exact search cheap: 5,000 x 384 float32
  is 7.7 MB and one matrix-vector product.
* ``generation_units``: what the evidence index (``mitra.store.evidence``) holds of one
  generation: its top-level sections, or its passages, so a question about a detail
  ("What filter settings were used for the DSCR screens?") finds its analysis although
  no abstract says it. An analysis scores its best unit.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from mitra.store.blas import one_blas_thread
from mitra.store.bm25 import BM25Index, TermCounts

EvidenceUnit = Literal["section", "passage"]


class AbstractVectors:
    """Exact cosine search over the routing vectors; ties in id order."""

    def __init__(self, ids: list[str], matrix: np.ndarray):
        self.ids = ids
        norms = np.linalg.norm(matrix, axis=1, keepdims=True) if len(ids) else np.ones((0, 1))
        self.matrix = (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)

    @classmethod
    def from_collection(cls, collection, keep: set[str]) -> "AbstractVectors":
        """The vectors of the analyses in ``keep`` (the catalog's), in id order."""
        got = collection.get(include=["embeddings"])
        rows = sorted((i, v) for i, v in zip(got["ids"], got["embeddings"]) if i in keep)
        dim = len(rows[0][1]) if rows else 1
        return cls([i for i, _ in rows], np.array([v for _, v in rows], np.float32).reshape(len(rows), dim))

    def search(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        if not self.ids or k < 1:
            return []
        query = np.asarray(vector, np.float32)
        with one_blas_thread():
            scores = self.matrix @ (query / (np.linalg.norm(query) or 1.0))
        top = np.argpartition(-scores, min(k, len(self.ids)) - 1)[:k] if k < len(self.ids) else np.arange(len(self.ids))
        return sorted(((self.ids[i], float(scores[i])) for i in top), key=lambda pair: (-pair[1], pair[0]))


def generation_units(index: BM25Index | None, unit: EvidenceUnit) -> tuple[list[str], TermCounts]:
    """The evidence units of a generation's current (not superseded) chunks, one per
    top-level section or per passage in order of first appearance: each one's terms (ids
    in the returned vocabulary, the chunk index's) and counts, summed from the term counts
    the chunk index keeps, so no text is read or tokenized again."""
    if index is None or index.terms is None:
        return [], TermCounts.count([], 1)
    rows = np.array([row for row, tags in enumerate(index.tags) if tags.get("superseded") != "1"], np.int64)
    keys: dict[str, int] = {}
    owner = np.array([keys.setdefault(index.tags[row].get("section", "") if unit == "section" else str(position),
                                      len(keys)) for position, row in enumerate(rows.tolist())], np.int64)
    starts, ends = index.terms.indptr[rows], index.terms.indptr[rows + 1]
    taken = np.concatenate([np.arange(a, b) for a, b in zip(starts, ends)] + [np.zeros(0, np.int64)])
    vocabulary = index.vocabulary()
    return vocabulary, TermCounts.summed(np.repeat(owner, ends - starts), index.terms.tokens[taken],
                                         index.terms.counts[taken], len(keys), len(vocabulary))
