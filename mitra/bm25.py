"""A persisted BM25 index over one collection's entries (bm25s + our tokenizer).

Saved beside Chroma as ``<dir>/`` with the bm25s arrays and the entry ids, and
replaced by rename so a reader never sees half an index.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import bm25s
import numpy as np

from mitra.text import tokenize, tokenize_many


class BM25Index:
    def __init__(self, ids: list[str], tags: list[dict[str, str]], retriever: bm25s.BM25 | None):
        self.ids = ids
        # Per entry filter fields (version, superseded), so filters are masks, not re-indexing.
        self.tags = tags
        self._retriever = retriever
        self._masks: dict[tuple, np.ndarray | None] = {}

    @classmethod
    def build(cls, ids: list[str], texts: list[str], tags: list[dict[str, str]] | None = None) -> "BM25Index":
        tags = tags if tags is not None else [{} for _ in ids]
        if not ids:
            return cls([], [], None)
        retriever = bm25s.BM25()
        retriever.index(tokenize_many(texts), show_progress=False)
        return cls(list(ids), tags, retriever)

    def __len__(self) -> int:
        return len(self.ids)

    def mask(self, **required: str) -> np.ndarray | None:
        """1.0 for entries whose tags match every ``required`` value; None when all do
        (no mask to apply). Memoised: building one costs ~50 ms at 100k entries."""
        key = tuple(sorted(required.items()))
        if key not in self._masks:
            mask = np.array([all(t.get(k) == v for k, v in key) for t in self.tags], dtype=np.float32)
            self._masks[key] = None if mask.all() else mask
        return self._masks[key]

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> list[tuple[str, float]]:
        tokens = tokenize(query)
        if self._retriever is None or not tokens:
            return []
        k = min(k, len(self.ids))
        docs, scores = self._retriever.retrieve(
            [tokens], k=k, show_progress=False, weight_mask=mask, n_threads=0
        )
        return [(self.ids[d], float(s)) for d, s in zip(docs[0], scores[0]) if s > 0]

    def save(self, directory: Path) -> None:
        tmp = directory.with_name(directory.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        (tmp / "entries.json").write_text(json.dumps({"ids": self.ids, "tags": self.tags}))
        if self._retriever is not None:
            self._retriever.save(tmp / "bm25s", show_progress=False)
        old = directory.with_name(directory.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if directory.exists():
            directory.rename(old)
        tmp.rename(directory)
        shutil.rmtree(old, ignore_errors=True)

    @classmethod
    def load(cls, directory: Path) -> "BM25Index | None":
        entries = directory / "entries.json"
        if not entries.exists():
            return None
        data = json.loads(entries.read_text())
        retriever = None
        if (directory / "bm25s").exists():
            retriever = bm25s.BM25.load(directory / "bm25s", show_progress=False, verbosity=0)
        return cls(data["ids"], data["tags"], retriever)
