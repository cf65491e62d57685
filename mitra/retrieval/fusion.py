"""Score fusion: several scored lists -> one score per item, and a stable order.

``zscore``: a weighted sum of scores measured in standard deviations above each list's
lowest (Montague & Aslam 2001); ``convex``: a weighted mean of min-max normalised
scores (Bruch et al. 2023); ``rrf``: reciprocal-rank fusion. ``mix`` puts a reranker's
scores against the fused ones.
"""

from __future__ import annotations

import math

def reciprocal_rank_fusion(
    rankings: dict[str, list[str]], weights: dict[str, float], k: int
) -> dict[str, float]:
    """score(d) = sum_r w_r / (k + rank_r(d)); ranks start at 1 (Cormack et al. 2009)."""
    fused: dict[str, float] = {}
    for name, ids in rankings.items():
        for rank, item in enumerate(ids, start=1):
            fused[item] = fused.get(item, 0.0) + weights[name] / (k + rank)
    return fused


def _spread(values: list[float]) -> float:
    """The population standard deviation, in floats: ``statistics.pstdev`` sums exact
    fractions, 1.9 ms of a search's fusion for a handful of 20-score lists."""
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def _head(pairs: list[tuple[str, float]], depth: int | None) -> list[float]:
    """The scores a list's statistics come from: its best ``depth`` (all when None). A
    list's tail is where approximate search differs from run to run, and how deep a
    retriever was asked to go is not a property of the question."""
    values = sorted((score for _, score in pairs), reverse=True)
    return values[:depth] if depth else values


def convex_fusion(scored: dict[str, list[tuple[str, float]]], weights: dict[str, float],
                  depth: int | None = None) -> dict[str, float]:
    """score(d) = sum_r w_r * norm_r(d) / sum_r w_r, where norm_r min-max scales retriever
    r's scores over its top ``depth`` (floored at 0 below them) and is 0 for a candidate r
    did not return (Bruch et al. 2023). Unlike RRF it keeps how far apart scores are."""
    total = sum(weights[name] for name in scored)
    fused: dict[str, float] = {}
    for name, pairs in scored.items():
        if not pairs:
            continue
        values = _head(pairs, depth)
        low, span = min(values), max(values) - min(values)
        for item, score in pairs:
            norm = max(0.0, (score - low) / span) if span > 0 else float(score >= low)
            fused[item] = fused.get(item, 0.0) + weights[name] * norm / total
    return fused


def zscore_fusion(scored: dict[str, list[tuple[str, float]]], weights: dict[str, float],
                  depth: int | None = None) -> dict[str, float]:
    """score(d) = sum_r w_r * (s_r(d) - min_r) / sd_r, divided by the same sum for an item
    first in every list, so 1.0 means "best in every list"; min_r and sd_r are taken over
    r's top ``depth`` scores (all when None), and a candidate below them or not returned
    counts as that minimum. Min-max scaling measures a list in units of its range, which
    one outlying top score sets; the standard deviation is a property of the whole head,
    so a retriever whose best candidate barely stands out weighs less."""
    fused: dict[str, float] = {}
    best = 0.0
    for name, pairs in scored.items():
        if not pairs:
            continue
        values = _head(pairs, depth)
        low, spread = min(values), _spread(values)
        for item, score in pairs:
            norm = max(0.0, (score - low) / spread) if spread > 0 else float(score >= low)
            fused[item] = fused.get(item, 0.0) + weights[name] * norm
        best += weights[name] * ((max(values) - low) / spread if spread > 0 else 1.0)
    return {item: score / best for item, score in fused.items()} if best > 0 else fused


def guarded_order(order: list[str], scored: dict[str, list[tuple[str, float]]], depth: int) -> list[str]:
    """``order`` (the fused ranking), unless dense's and BM25's best ``depth`` share no
    passage: then one of them is wrong, fusing averages a right list with a wrong one, and
    BM25's order comes first (the fused order after it). ``depth`` 0 keeps ``order``."""
    if not depth:
        return order
    heads = [{item for item, _ in scored.get(name, [])[:depth]} for name in ("dense", "bm25")]
    if not heads[0] or not heads[1] or heads[0] & heads[1]:
        return order
    first = [item for item, _ in scored["bm25"]]
    seen = set(first)
    return first + [item for item in order if item not in seen]


def ranked_ids(scores: dict[str, float]) -> list[str]:
    """Best first; equal scores in id order, so a ranking never depends on the order
    the candidates arrived in (hash seeds, set iteration)."""
    return sorted(scores, key=lambda item: (-scores[item], item))


def mix(fused: dict[str, float], reranked: dict[str, float], weight: float | None) -> dict[str, float]:
    """A reranker's scores combined with the fused ones over the reranked passages: the
    min-max scaled fused score plus ``weight`` times the min-max scaled reranker score;
    ``weight`` None ranks by the reranker alone."""
    if weight is None:
        return dict(reranked)
    f, r = _scaled(fused), _scaled(reranked)
    return {i: f.get(i, 0.0) + weight * r[i] for i in reranked}


def _scaled(scores: dict[str, float]) -> dict[str, float]:
    low, high = min(scores.values(), default=0.0), max(scores.values(), default=0.0)
    return {i: (s - low) / (high - low) if high > low else 1.0 for i, s in scores.items()}


def fuse(scored: dict[str, list[tuple[str, float]]], weights: dict[str, float], method: str, rrf_k: int,
         depth: int | None = None) -> dict[str, float]:
    """Both tiers fuse with the configured method; either way 1.0 means "best in every list"."""
    if method == "zscore":
        return zscore_fusion(scored, weights, depth)
    if method == "convex":
        return convex_fusion(scored, weights, depth)
    rankings = {name: [item for item, _ in pairs] for name, pairs in scored.items()}
    best_possible = sum(weights[name] for name in scored) / (rrf_k + 1)
    return {item: score / best_possible for item, score in reciprocal_rank_fusion(rankings, weights, rrf_k).items()}
