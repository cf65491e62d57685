"""Tier 1's indexes beside the abstracts collection: exact abstract vectors, and the
full-text evidence of every analysis.

* ``AbstractVectors``: every analysis's routing vector in one matrix of unit vectors,
  searched exactly. Chroma's HNSW returned a different top 50 for the same query vector
  in each new process at 800 analyses (its index is rebuilt from the write-ahead log on
  load), and z-score fusion took its spread from that list, so routing changed from one
  process to the next. A few thousand rows make exact search cheap: 5,000 x 384 float32
  is 7.7 MB and one matrix-vector product.
* ``EvidenceIndex``: one BM25 index over the current text of every analysis (its
  top-level sections, or its passages), so a question about a detail ("What filter
  settings were used for the DSCR screens?") finds its analysis although no abstract
  says it. An analysis scores its best unit. Writers rebuild it at the end of a run
  (``KnowledgeBase.sync_abstracts``) from the term counts each generation's own BM25
  index keeps (no text is read or tokenized again); a reader ignores units of a
  generation the catalog no longer names, so a re-indexed analysis never routes on text
  it no longer holds.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Literal

import numpy as np

from mitra.store.bm25 import BM25Index

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
        scores = self.matrix @ (query / (np.linalg.norm(query) or 1.0))
        top = np.argpartition(-scores, min(k, len(self.ids)) - 1)[:k] if k < len(self.ids) else np.arange(len(self.ids))
        return sorted(((self.ids[i], float(scores[i])) for i in top), key=lambda pair: (-pair[1], pair[0]))


def current_rows(index: BM25Index) -> list[tuple[str, list[str]]]:
    """(section, tokens) of each current chunk of a generation's BM25 index."""
    return [(tags.get("section", ""), index.entry_tokens(row)) for row, tags in enumerate(index.tags)
            if tags.get("superseded") != "1"]


def build_evidence(generations: dict[str, tuple[str, list[tuple[str, list[str]]]]], unit: EvidenceUnit,
                   stamp: str) -> BM25Index:
    """One BM25 index over ``generations`` (analysis id -> (collection, [(section, tokens)])):
    an entry per top-level section or per passage, tagged with its analysis and generation;
    ``stamp`` says what it was built from (the writer compares it before rebuilding)."""
    ids, tokens, tags = [], [], []
    for analysis_id in sorted(generations):
        collection, rows = generations[analysis_id]
        units: dict[str, list[str]] = {}
        for position, (section, words) in enumerate(rows):
            units.setdefault(section if unit == "section" else f"{section}#{position}", []).extend(words)
        for key, words in units.items():
            ids.append(f"{analysis_id}\x1f{key}")
            tokens.append(words)
            tags.append({"analysis": analysis_id, "collection": collection})
    index = BM25Index.from_tokens(ids, tokens, tags)
    index.stamp = stamp
    return index


class EvidenceSearch:
    """Per-analysis evidence scores from an ``EvidenceIndex`` (a ``BM25Index`` of units)."""

    def __init__(self, index: BM25Index):
        self.index = index
        self._analysis = np.array([t["analysis"] for t in index.tags], dtype=object)
        self._masks: dict[tuple, np.ndarray | None] = {}

    def _mask(self, current: dict[str, str]) -> np.ndarray | None:
        """Units of the analyses in ``current`` at the generation it names: a unit of an
        analysis re-indexed since the build (or hidden from the reader) never counts."""
        key = tuple(sorted(current.items()))
        if key not in self._masks:
            mask = np.array([current.get(t["analysis"]) == t["collection"] for t in self.index.tags], np.float32)
            self._masks = {key: None if mask.all() else mask}  # one reader's view at a time is enough
        return self._masks[key]

    def search(self, tokens: list[str], k: int, depth: int, current: dict[str, str]) -> list[tuple[str, float]]:
        """The ``k`` analyses whose best unit among the ``depth`` best scores highest."""
        best: dict[str, float] = defaultdict(float)
        for unit, score in self.index.search_tokens(tokens, depth, self._mask(current)):
            analysis_id = unit.split("\x1f", 1)[0]
            best[analysis_id] = max(best[analysis_id], score)
        return sorted(best.items(), key=lambda pair: (-pair[1], pair[0]))[:k]
