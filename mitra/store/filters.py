"""Which chunks a query may see, as a Chroma ``where`` and as a BM25 mask."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mitra.core.types import Chunk
from mitra.store.bm25 import BM25Index


@dataclass
class SearchFilter:
    """Which chunks a query may see: current versions by default, or one version; of one
    document where ``doc_id`` says (the app's view of a cited slide or section); never
    the chunks ``left_out`` (nor do their words count in their section's score: the
    benchmark leaves out the caption a question was made from)."""

    version: str | None = None
    include_superseded: bool = False
    doc_id: str | None = None
    left_out: frozenset[str] = field(default_factory=frozenset)

    def chroma_where(self) -> dict | None:
        where: list[dict] = [{"doc_id": self.doc_id}] if self.doc_id is not None else []
        if self.version is not None:
            where.append({"version": self.version})
        elif not self.include_superseded:
            where.append({"superseded": False})
        return None if not where else where[0] if len(where) == 1 else {"$and": where}

    def admits(self, chunk: Chunk) -> bool:
        if chunk.id in self.left_out:
            return False
        if self.doc_id is not None and chunk.doc_id != self.doc_id:
            return False
        if self.version is not None:
            return chunk.version == self.version
        return self.include_superseded or not chunk.superseded

    def bm25_mask(self, index: BM25Index) -> np.ndarray | None:
        required = {"doc_id": self.doc_id} if self.doc_id is not None else {}
        if self.version is not None:
            required["version"] = self.version
        elif not self.include_superseded:
            required["superseded"] = "0"
        mask = index.mask(**required) if required else None
        rows = [r for r in index.rows(list(self.left_out)) if r is not None]
        if not rows:
            return mask
        mask = np.ones(len(index), np.float32) if mask is None else mask.copy()  # the memoised one stays
        mask[rows] = 0.0
        return mask
