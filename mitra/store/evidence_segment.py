"""One segment of the evidence index (``mitra.store.evidence``): the units (top-level
sections or passages) of the analyses one writer run (re)indexed, as postings by term.

A segment never changes once written (like a Lucene segment): a newer generation of one
of its analyses makes that analysis's units dead, which readers tell from the catalog,
and merging segments drops them. Postings hold raw term frequencies and units their
lengths, not BM25 scores, so document frequencies and the average length can be taken
over the live units at read time: scores equal those of an index rebuilt from them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mitra.store.bm25 import TermCounts


@dataclass
class Segment:
    """``analyses`` (id, collection) own units ``starts[i]:starts[i + 1]``; term
    ``terms[j]`` (a global term id) occurs in units ``units[ptr[j]:ptr[j + 1]]`` (ascending),
    ``tf`` times each."""

    analyses: list[tuple[str, str]]
    starts: np.ndarray
    lengths: np.ndarray
    terms: np.ndarray
    ptr: np.ndarray
    units: np.ndarray
    tf: np.ndarray

    @property
    def postings(self) -> int:
        return len(self.units)

    @classmethod
    def build(cls, parts: list[tuple[str, str, TermCounts]]) -> "Segment":
        """A segment of ``parts`` (analysis id, collection, its units' global term counts,
        each term once per unit)."""
        sizes = np.array([len(counts.indptr) - 1 for _, _, counts in parts], np.int64)
        starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        per_unit = np.concatenate([np.diff(c.indptr) for _, _, c in parts]) if parts else np.zeros(0, np.int64)
        terms = np.concatenate([c.tokens for _, _, c in parts]) if parts else np.zeros(0, np.int32)
        counts = np.concatenate([c.counts for _, _, c in parts]) if parts else np.zeros(0, np.int32)
        units = np.repeat(np.arange(int(starts[-1]), dtype=np.int32), per_unit)
        lengths = np.bincount(units, weights=counts, minlength=int(starts[-1])).astype(np.int64)
        return cls._from_postings([(a, c) for a, c, _ in parts], starts, lengths, terms, units, counts)

    @classmethod
    def merge(cls, segments: list["Segment"], keep: list[np.ndarray]) -> "Segment":
        """One segment of ``segments``' analyses where ``keep`` (a flag per analysis of each)
        says so, the others' units dropped."""
        analyses, sizes, lengths, terms, units, tf = [], [], [], [], [], []
        offset = 0
        for segment, kept in zip(segments, keep):
            live = np.repeat(kept, np.diff(segment.starts))
            renumber = np.cumsum(live, dtype=np.int64) - 1 + offset
            posting_live = live[segment.units]
            analyses += [pair for pair, k in zip(segment.analyses, kept) if k]
            sizes.append(np.diff(segment.starts)[kept])
            lengths.append(np.asarray(segment.lengths)[live])
            terms.append(np.repeat(np.asarray(segment.terms), np.diff(segment.ptr))[posting_live])
            units.append(renumber[segment.units[posting_live]].astype(np.int32))
            tf.append(np.asarray(segment.tf)[posting_live].astype(np.int32))
            offset += int(live.sum())
        starts = np.concatenate([[0], np.cumsum(np.concatenate(sizes))]).astype(np.int64)
        return cls._from_postings(analyses, starts, np.concatenate(lengths), np.concatenate(terms),
                                  np.concatenate(units), np.concatenate(tf))

    @classmethod
    def _from_postings(cls, analyses: list[tuple[str, str]], starts: np.ndarray, lengths: np.ndarray,
                       terms: np.ndarray, units: np.ndarray, tf: np.ndarray) -> "Segment":
        """Postings (in ascending unit order) grouped by term; a stable sort keeps each
        term's units ascending."""
        order = np.argsort(terms, kind="stable")
        terms = terms[order]
        distinct, first = np.unique(terms, return_index=True)
        top = int(tf.max(initial=0))
        return cls(analyses, starts, lengths.astype(np.int32), distinct.astype(np.int32),
                   np.concatenate([first, [len(terms)]]).astype(np.int64), units[order].astype(np.int32),
                   tf[order].astype(np.uint16 if top < 2**16 else np.int32))  # 2 bytes a posting, nearly always

    def postings_of(self, terms: list[int]) -> list[tuple[np.ndarray, np.ndarray]]:
        """For each global term id of ``terms``, the units holding it and its frequency in each."""
        # One search for all, keys in the array's own type: a Python int key widens the
        # whole array (80 µs), and a search per term cost ~20 µs of call overhead each
        if not len(self.terms):
            return [(self.units[:0], self.tf[:0]) for _ in terms]
        keys = np.asarray(terms, self.terms.dtype)
        at = np.minimum(np.searchsorted(self.terms, keys), len(self.terms) - 1)
        first, last = self.ptr[at].tolist(), self.ptr[at + 1].tolist()
        return [(self.units[i:j], self.tf[i:j]) if held else (self.units[:0], self.tf[:0])
                for i, j, held in zip(first, last, (self.terms[at] == keys).tolist())]

    def write(self, directory: Path) -> None:
        directory.mkdir(parents=True)
        for name in ("starts", "lengths", "terms", "ptr", "units", "tf"):
            np.save(directory / f"{name}.npy", np.asarray(getattr(self, name)))
        (directory / "manifest.json").write_text(json.dumps(self.analyses))  # last: it marks a whole segment

    @classmethod
    def load(cls, directory: Path) -> "Segment | None":
        """The saved segment, its postings memory-mapped (replicas on one host share the
        pages; a query touches only its terms'); None where it is gone."""
        if not (directory / "manifest.json").exists():
            return None
        arrays = {name: np.asarray(np.load(directory / f"{name}.npy", mmap_mode="r" if name in ("units", "tf") else None))
                  for name in ("starts", "lengths", "terms", "ptr", "units", "tf")}  # plain arrays: memmap's slicing costs
        analyses = [(a, c) for a, c in json.loads((directory / "manifest.json").read_text())]
        return cls(analyses, **arrays)
