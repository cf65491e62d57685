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
SLACK = 1 + 1e-6  # bounds widened by float32 rounding: a unit at a bound is never pruned
SHORTLIST = 1000  # units scored exactly to set the pruning floor (EvidenceView._floor)


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
        self._df: dict[int, int] = {}  # each term's live units, as queries meet it
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

    def _frequency(self, term: int, found: list[tuple[np.ndarray, np.ndarray]]) -> int:
        """Live units holding ``term``, counted once per view (dead units make it a gather)."""
        if term not in self._df:
            self._df[term] = sum(len(units) if all_live else int(np.count_nonzero(slots.take(units) >= 0))
                                 for (units, _), slots, all_live in zip(found, self._slots, self._all_live))
        return self._df[term]

    def _add(self, totals: list[np.ndarray], postings: list[tuple[np.ndarray, np.ndarray]], weight: np.float32) -> None:
        """Every posting's BM25 share of one term into the segments' score arrays."""
        for total, norm, (units, tf) in zip(totals, self._norms, postings):
            if len(units):
                # Postings hold int32 unit numbers; numpy indexes by them 4x slower than by
                # its own integer type, so they are converted first; np.add.at then takes
                # 0.6 of the time of ``total[units] +=`` (a term's units are distinct).
                units = units.astype(np.intp)
                np.add.at(total, units, _share(tf.astype(np.float32), norm.take(units), weight))

    def scores(self, tokens: list[str], depth: int, allowed: np.ndarray | None) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """Per segment with matches, its index, its units (those of analyses ``allowed``
        marks) and their exact BM25 scores, at least for every unit scoring as high as
        the ``depth``-th best (each query token counted as often as it occurs, as bm25s).

        Exact pruning (MaxScore): a term adds less than its weight (IDF times times asked)
        to any unit, so terms are read whole rarest first, and once the weights still
        unread sum below the ``depth``-th best partial score no unit they alone match can
        reach the top; the common terms' long postings are then only looked up for the
        units already found."""
        asked = Counter(self.index.term_ids[t] for t in tokens if t in self.index.term_ids)
        by_segment = [segment.postings_of(list(asked)) for segment in self.index.segments]
        found = {term: [postings[i] for postings in by_segment] for i, term in enumerate(asked)}
        weight = {}
        for term, times in asked.items():
            frequency = self._frequency(term, found[term])
            if frequency:
                weight[term] = np.float32(math.log(1 + (self.units - frequency + 0.5) / (frequency + 0.5))) * times
        order = sorted(weight, key=lambda t: (-weight[t], t))
        totals = [np.zeros(len(norm), np.float32) for norm in self._norms]
        shown = None if allowed is None else [allowed[slots] for slots in self._slots]
        unread, read = float(sum(weight.values())), 0
        while read < len(order):
            # enough units already above what the unread terms can add: stop reading whole
            if read and unread < float(sum(weight[t] for t in order[:read])) \
                    and _above(totals, unread * SLACK, shown) >= depth:
                break
            self._add(totals, found[order[read]], weight[order[read]])
            unread -= float(weight[order[read]])
            read += 1
        margin = unread * SLACK
        # the units above the margin: few, and the best partial scores among them
        above = [np.flatnonzero(total > margin) for total in totals]
        if shown is not None:
            above = [hits[mask[hits]] for hits, mask in zip(above, shown)]
        floor = self._floor(totals, above, [(found[t], weight[t]) for t in order[read:]], depth) \
            if read < len(order) else 0.0
        found_units = [np.flatnonzero((total > 0) & (total + margin >= floor)) for total in totals]
        if shown is not None:
            found_units = [hits[mask[hits]] for hits, mask in zip(found_units, shown)]
        scores = [total[hits] for total, hits in zip(totals, found_units)]
        for term in order[read:]:  # the common terms: looked up for the units found only
            # scores only grow: the depth-th best is among the units at the floor already
            floor = max(floor, _best([score[score >= floor] for score in scores], depth))
            for s, norm in enumerate(self._norms):
                if not len(found_units[s]):
                    continue
                keep = scores[s] + unread * SLACK >= floor  # else it cannot reach the floor
                found_units[s], scores[s] = found_units[s][keep], scores[s][keep]
                scores[s] += _shares(found[term][s], found_units[s], norm, weight[term])
            unread -= float(weight[term])
        return [(s, hits, score) for s, (hits, score) in enumerate(zip(found_units, scores)) if len(hits)]

    def _floor(self, totals: list[np.ndarray], above: list[np.ndarray],
               common: list[tuple[list[tuple[np.ndarray, np.ndarray]], np.float32]], depth: int) -> float:
        """A score the ``depth``-th best unit reaches: the ``depth``-th best exact score of
        the ``SHORTLIST`` units of ``above`` with the best partial scores, each looked up
        in the ``common`` terms' postings (0 where fewer than ``depth`` are above).

        The partial scores alone give a floor too low to prune by: at 5,000 analyses it
        kept a third of all units as candidates, and the exact scores of the best 1,000
        cut that eightfold."""
        partial = [total[hits] for total, hits in zip(totals, above)]
        cut = _best(partial, max(SHORTLIST, depth))
        exact = []
        for hits, score, norm, s in zip(above, partial, self._norms, range(len(above))):
            hits, score = hits[score >= cut], score[score >= cut]
            for postings, term_weight in common:
                score += _shares(postings[s], hits, norm, term_weight)
            exact.append(score)
        return _best(exact, depth)

    def search(self, tokens: list[str], k: int, depth: int, only: set[str] | None = None) -> list[tuple[str, float]]:
        """The ``k`` analyses (of ``only``, where given) whose best unit among the ``depth``
        best scores highest; units tied with the ``depth``-th all count, so the answer
        does not hang on the order of equal scores."""
        allowed = None if only is None else np.array([a in only for a in self.ids] + [False])
        slots, scores = [], []
        for segment, hits, summed in self.scores(tokens, depth, allowed):
            slots.append(self._slots[segment][hits])
            scores.append(summed)
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


def _above(totals: list[np.ndarray], threshold: float, shown: list[np.ndarray] | None) -> int:
    """Units (shown ones, where given) whose partial score exceeds ``threshold``."""
    if shown is None:
        return sum(int(np.count_nonzero(total > threshold)) for total in totals)
    return sum(int(np.count_nonzero((total > threshold) & mask)) for total, mask in zip(totals, shown))


def _best(values: list[np.ndarray], depth: int) -> float:
    """The ``depth``-th largest of ``values`` together (0 where there are fewer)."""
    joined = np.concatenate(values)
    return float(np.partition(joined, len(joined) - depth)[len(joined) - depth]) if len(joined) >= depth else 0.0


def _shares(postings: tuple[np.ndarray, np.ndarray], units: np.ndarray, norm: np.ndarray, weight: np.float32) -> np.ndarray:
    """One term's BM25 share in each of ``units`` (ascending): each unit looked up in the
    postings where the units are few against them, else the postings read whole."""
    held, tf = postings
    if not len(held) or not len(units):
        return np.zeros(len(units), np.float32)
    if len(units) * 16 < len(held):
        at = np.minimum(np.searchsorted(held, units.astype(held.dtype)), len(held) - 1)  # else held is widened
        hit = held[at] == units
        frequency = np.where(hit, tf[at], 0).astype(np.float32)
    else:
        # spread over the segment's units and read back: ~4x faster than np.bincount,
        # which widens to float64 and counts into a fresh array of every unit
        spread = np.zeros(len(norm), np.float32)
        spread[held.astype(np.intp)] = tf
        frequency = spread.take(units)
    return _share(frequency, norm[units], weight)


def _share(frequency: np.ndarray, norm: np.ndarray, weight: np.float32) -> np.ndarray:
    """A term's BM25 share, ``weight * frequency / (frequency + norm)``, computed in the
    two fresh arrays its callers pass."""
    norm += frequency
    frequency /= norm
    frequency *= weight
    return frequency
