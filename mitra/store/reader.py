"""What online retrieval reads from the stores: the boundary ``mitra.retrieval`` depends on.

``KnowledgeBase`` is the implementation; a test double or another store (a Chroma
server, a different vector database) needs only these methods.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol

import numpy as np

from mitra.core.types import Analysis, Chunk

if TYPE_CHECKING:
    from mitra.store.bm25 import BM25Index
    from mitra.store.filters import SearchFilter


class KnowledgeReader(Protocol):
    # tier 1: the abstracts
    def route_dense(self, query_vector: np.ndarray, k: int) -> list[tuple[str, float]]: ...

    def route_bm25(self, query: str, k: int) -> list[tuple[str, float]]: ...

    def route_evidence(self, tokens: list[str], k: int, only: set[str] | None = None) -> list[tuple[str, float]]: ...

    @contextmanager
    def routing(self) -> Iterator[None]:
        """Every tier-1 read inside the block sees one catalog version."""
        ...

    def get_analysis(self, analysis_id: str) -> Analysis | None: ...

    def analyses(self) -> list[Analysis]: ...

    # tier 2: one analysis's full text
    @contextmanager
    def reading(self, analysis_id: str) -> Iterator[None]:
        """Every read of ``analysis_id`` inside the block sees one generation."""
        ...

    def dense_search(
        self, analysis_id: str, query_vector: np.ndarray, k: int, search_filter: SearchFilter
    ) -> list[tuple[str, float]]: ...

    def bm25_search(
        self, analysis_id: str, tokens: list[str], k: int, search_filter: SearchFilter
    ) -> list[tuple[str, float]]: ...

    def bm25_index(self, analysis_id: str) -> BM25Index: ...

    def section_scores(
        self, analysis_id: str, tokens: list[str], chunk_ids: list[str], search_filter: SearchFilter
    ) -> list[tuple[str, float]]: ...

    def get_chunks(self, analysis_id: str, ids: list[str]) -> dict[str, Chunk]: ...
