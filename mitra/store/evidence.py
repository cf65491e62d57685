"""Searching the evidence index: BM25 over the units of every analysis's current text,
kept in segments (``mitra.store.evidence_segment``) that writers add one run at a time
(``mitra.store.evidence_files``).

A reader's view (``EvidenceView``) takes the live units (those of the generation the
catalog names for each analysis), their number and average length; a query takes each
term's document frequency over the live units from the postings it reads anyway. So a
score is what one BM25 index rebuilt over the live units gives (bm25s as
``BM25Index`` configures it: Lucene's IDF, ``k1`` 1.5, ``b`` 0.75), whatever the
segments and their dead units.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from mitra.store.evidence_segment import Segment

K1, B = 1.5, 0.75  # bm25s's defaults, which BM25Index uses (tests compare the two)


class EvidenceIndex:
    """The segments of one saved state and the vocabulary their term ids index."""

    def __init__(self, vocabulary: list[str], segments: list[Segment]):
        self.term_ids = {term: i for i, term in enumerate(vocabulary)}
        self.segments = segments

    def view(self, current: dict[str, str]) -> "EvidenceView":
        return EvidenceView(self, current)


class EvidenceView:
    """The index as one catalog state sees it: ``current`` maps each analysis to its
    current collection; units of any other generation are dead."""

    def __init__(self, index: EvidenceIndex, current: dict[str, str]):
        self.index = index
        self.ids = sorted(current)
        slot = {a: i for i, a in enumerate(self.ids)}
        self._slots, self._norms, self._all_live = [], [], []
        lengths = live_units = 0
        for segment in index.segments:
            # each unit's analysis slot, -1 where dead
            owner = np.array([slot[a] if current.get(a) == c else -1 for a, c in segment.analyses] + [-1], np.int32)
            units = np.repeat(owner[:-1], np.diff(segment.starts))
            self._slots.append(units)
            self._all_live.append(bool((units >= 0).all()))
            live_units += int((units >= 0).sum())
            lengths += int(np.asarray(segment.lengths, np.int64)[units >= 0].sum())
        self.units = live_units
        average = lengths / live_units if live_units else 1.0
        for segment, units in zip(index.segments, self._slots):
            # BM25's length normalisation per unit; infinite for a dead unit, whose
            # every term frequency then scores 0
            norm = (K1 * ((1 - B) + B * np.asarray(segment.lengths, np.float64) / (average or 1.0))).astype(np.float32)
            self._norms.append(np.where(units >= 0, norm, np.float32(np.inf)).astype(np.float32))

    def scores(self, tokens: list[str]) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """Per segment that matches, its index, its matching units and their BM25 scores
        (each query token counted as often as it occurs, as bm25s does)."""
        asked = Counter(self.index.term_ids[t] for t in tokens if t in self.index.term_ids)
        found = {term: [segment.postings_of(term) for segment in self.index.segments] for term in asked}
        weight = {}
        for term, times in asked.items():
            frequency = sum(len(units) if all_live else int(np.count_nonzero(slots[units] >= 0))
                            for (units, _), slots, all_live in zip(found[term], self._slots, self._all_live))
            if frequency:
                idf = math.log(1 + (self.units - frequency + 0.5) / (frequency + 0.5))
                weight[term] = np.float32(idf) * np.float32(times)
        result = []
        for s, norm in enumerate(self._norms):
            units, contributions = [], []
            for term, w in weight.items():
                held, tf = found[term][s]
                if len(held):
                    tf = tf.astype(np.float32)
                    units.append(held)
                    contributions.append(w * (tf / (tf + norm[held])))
            if units:
                summed = np.bincount(np.concatenate(units), weights=np.concatenate(contributions), minlength=len(norm))
                hits = np.flatnonzero(summed > 0)
                result.append((s, hits, summed[hits]))
        return result

    def search(self, tokens: list[str], k: int, depth: int, only: set[str] | None = None) -> list[tuple[str, float]]:
        """The ``k`` analyses (of ``only``, where given) whose best unit among the ``depth``
        best scores highest; units tied with the ``depth``-th all count, so the answer
        does not hang on the order of equal scores."""
        allowed = None if only is None else np.array([a in only for a in self.ids] + [False])
        slots, scores = [], []
        for segment, hits, summed in self.scores(tokens):
            owners = self._slots[segment][hits]
            keep = slice(None) if allowed is None else allowed[owners]
            slots.append(owners[keep])
            scores.append(summed[keep])
        if not slots:
            return []
        slot, score = np.concatenate(slots), np.concatenate(scores)
        if len(score) > depth:
            floor = np.partition(score, len(score) - depth)[len(score) - depth]
            slot, score = slot[score >= floor], score[score >= floor]
        best: dict[str, float] = {}
        for s, value in zip(slot.tolist(), score.tolist()):
            best[self.ids[s]] = max(best.get(self.ids[s], 0.0), value)
        return sorted(best.items(), key=lambda pair: (-pair[1], pair[0]))[:k]
