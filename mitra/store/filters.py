"""Which chunks a query may see, as a Chroma ``where`` and as a BM25 mask."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mitra.core.types import Chunk
from mitra.store.bm25 import BM25Index


@dataclass
class SearchFilter:
    """Which chunks a query may see: current versions by default, or one version."""

    version: str | None = None
    include_superseded: bool = False

    def chroma_where(self) -> dict | None:
        if self.version is not None:
            return {"version": self.version}
        if not self.include_superseded:
            return {"superseded": False}
        return None

    def admits(self, chunk: Chunk) -> bool:
        if self.version is not None:
            return chunk.version == self.version
        return self.include_superseded or not chunk.superseded

    def bm25_mask(self, index: BM25Index) -> np.ndarray | None:
        if self.version is not None:
            return index.mask(version=self.version)
        if not self.include_superseded:
            return index.mask(superseded="0")
        return None
