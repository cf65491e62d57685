"""Exact dense search over one analysis generation: its paragraph vectors and their
sentence windows' vectors, as arrays beside the BM25 index.

Why not Chroma's HNSW: embedded Chroma rebuilds the graph from its log with threads
when a collection is opened, so the same query vector got a different top 50 in each
new process; and scoring windows took a second search plus reads of stored vectors. A
matrix-vector product over every paragraph is exact, so a ranking is the same in every
process; from 30k paragraphs an 8-bit first pass that keeps it exact cuts its cost
(``mitra.store.dense_prefilter``). Chroma keeps the texts,
metadata and paragraph vectors; this index is rebuilt from it where missing.

Saved as ``<dir>/`` (``ids.json``, ``vectors.npy``, ``windows.npy``, ``starts.npy``) and
replaced by rename, like the BM25 index, so a reader never sees half an index.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from mitra.store.blas import one_blas_thread
from mitra.store.dense_prefilter import Int8Prefilter
from mitra.store.files import swap_in

# Paragraphs whose windows are scored: the nearest this many by their own vector. A
# paragraph further down would need a window far closer than its own vector to reach
# the top ``dense_k``; reading ~3 windows each costs ~1 ms at this depth.
WINDOW_DEPTH = 1000

# Paragraphs from which a reader searches through the 8-bit first pass
# (``mitra.store.dense_prefilter``). Whole searches, float32 against 8-bit: 3.8 / 4.0 ms
# at 10k paragraphs, 5.1 / 4.6 at 20k, 6.5 / 5.3 at 30k, 9.2 / 6.4 at 50k; below 30k the
# saving is under a millisecond and not worth ~0.9 KB of memory a paragraph.
PREFILTER_ROWS = 30_000


class DenseIndex:
    """Paragraph vectors (row ``i`` is ``ids[i]``) and, where a paragraph has sentence
    windows, their vectors: rows ``starts[i]:starts[i + 1]`` of ``windows``."""

    def __init__(self, ids: list[str], vectors: np.ndarray, windows: np.ndarray, starts: np.ndarray):
        self.ids = ids
        self.vectors = vectors
        self.windows = windows
        self.starts = starts
        self.prefilter: Int8Prefilter | None = None
        # Ties are broken by chunk id, as everywhere in ranking: each row's place in id order.
        self._id_rank = np.argsort(np.argsort(np.array(ids, dtype=str), kind="stable"), kind="stable")

    @classmethod
    def build(cls, ids: list[str], vectors: np.ndarray, windows: list[np.ndarray], dim: int) -> "DenseIndex":
        """``windows[i]``: the window vectors of paragraph ``ids[i]`` (zero rows where it has none)."""
        starts = np.zeros(len(ids) + 1, np.int64)
        starts[1:] = np.cumsum([len(w) for w in windows])
        stacked = np.concatenate(windows).astype(np.float32) if starts[-1] else np.zeros((0, dim), np.float32)
        return cls(list(ids), np.asarray(vectors, np.float32).reshape(len(ids), dim), stacked, starts)

    def prefiltered(self, min_rows: int | None = None) -> "DenseIndex":
        """This index, searched through an exact 8-bit first pass where it holds at least
        ``min_rows`` (``PREFILTER_ROWS``) paragraphs (readers ask for it; writers only
        merge and save)."""
        if self.prefilter is None and len(self.ids) >= (PREFILTER_ROWS if min_rows is None else min_rows):
            self.prefilter = Int8Prefilter(np.asarray(self.vectors, np.float32))
        return self

    def __len__(self) -> int:
        return len(self.ids)

    def parts(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Each paragraph's vector and window vectors, by id (to merge a write into)."""
        return {i: (self.vectors[r], self.windows[self.starts[r] : self.starts[r + 1]]) for r, i in enumerate(self.ids)}

    def search(
        self, query: np.ndarray, k: int, mask: np.ndarray | None = None, windows: bool = True
    ) -> list[tuple[str, float]]:
        """The ``k`` paragraphs most similar to the unit ``query``, among rows where ``mask``
        is non-zero: by their own cosine similarity, or, where they have windows (and
        ``windows`` is on), by the mean of that and their best window's (a paragraph's vector
        blurs the one sentence a question is about). Best first; ties by id."""
        if not self.ids or k < 1:
            return []
        admitted = np.flatnonzero(mask) if mask is not None else np.arange(len(self.ids))
        windows = windows and len(self.windows) > 0
        depth = min(len(admitted), max(k, WINDOW_DEPTH) if windows else k)
        if depth < 1:
            return []
        with one_blas_thread():
            if self.prefilter is not None and depth < len(admitted):
                rows, similarity = self.prefilter.shortlist(self.vectors, query, depth, None if mask is None else admitted)
            else:
                rows, similarity = admitted, (self.vectors @ query)[admitted]
        chosen = np.argpartition(-similarity, depth - 1)[:depth] if depth < len(rows) else np.arange(len(rows))
        top, scores = rows[chosen], similarity[chosen].astype(np.float64)
        counts = self.starts[top + 1] - self.starts[top] if windows else np.zeros(len(top), np.int64)
        if counts.any():
            first = np.cumsum(counts) - counts  # where each paragraph's windows start among the rows read
            window_rows = np.arange(counts.sum()) - np.repeat(first, counts) + np.repeat(self.starts[top], counts)
            with one_blas_thread():
                window_similarity = self.windows[window_rows] @ query
            best = np.full(len(top), -np.inf)
            held = counts > 0  # each paragraph's best window over its run (np.maximum.at took 6x as long)
            best[held] = np.maximum.reduceat(window_similarity, first[held])
            scores = np.where(held, (scores + best) / 2, scores)
        order = np.lexsort((self._id_rank[top], -scores))[:k]
        return [(self.ids[top[j]], float(scores[j])) for j in order]

    def save(self, directory: Path) -> None:
        swap_in(directory, self.write)

    def write(self, directory: Path) -> None:
        """The index into the new directory ``directory`` (``save`` swaps it in)."""
        directory.mkdir(parents=True)
        np.save(directory / "vectors.npy", self.vectors)
        np.save(directory / "windows.npy", self.windows)
        np.save(directory / "starts.npy", self.starts)
        (directory / "ids.json").write_text(json.dumps(self.ids))  # last: its presence marks a whole index

    @classmethod
    def load(cls, directory: Path) -> "DenseIndex | None":
        if not (directory / "ids.json").exists():
            return None
        # Memory-mapped: pages are read on first use and shared by the processes serving one data dir.
        # Plain arrays over the maps: numpy.memmap's own indexing cost ~1 ms a search.
        arrays = {n: np.asarray(np.load(directory / f"{n}.npy", mmap_mode="r")) for n in ("vectors", "windows", "starts")}
        return cls(json.loads((directory / "ids.json").read_text()), arrays["vectors"], arrays["windows"], arrays["starts"])
