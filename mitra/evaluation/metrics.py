"""Retrieval metrics (the paper's Tables 1 and 2) and the gold-evidence matching rule.

Relevance is binary. A query's gold is a set of *evidence units*: chunk ids, or
evidence passages matched to chunks by ``evidence_matches``.

* P@k   = relevant chunks in the top k / k
* R@k   = evidence units covered by the top k / all evidence units
* MRR@k = 1 / rank of the first relevant chunk (0 if none in the top k)
* NDCG@k = DCG@k / IDCG@k with gain 1 for a relevant chunk, discount log2(rank + 1);
  IDCG puts min(k, number of relevant chunks in the analysis) relevant chunks first.
"""

from __future__ import annotations

import math
from functools import lru_cache

from mitra.core.text import clean_latex, tokenize

# Evidence-to-chunk matching: token-set containment after the same LaTeX cleaning
# and stemming BM25 uses. A chunk matches an evidence passage when it contains
# >= 70% of the passage's distinct tokens (the passage sits inside the chunk), or
# when >= 70% of the chunk's distinct tokens come from the passage (a passage longer
# than one chunk, e.g. a table split over several chunks) and the chunk has at least
# MIN_TOKENS of them. Set containment tolerates the cleaning differences between
# gold LaTeX and indexed text that exact substring matching would not.
MATCH_THRESHOLD = 0.7
MIN_TOKENS = 8


@lru_cache(maxsize=65536)  # a benchmark matches every chunk of an analysis against each question's evidence
def _token_set(text: str) -> frozenset[str]:
    return frozenset(tokenize(clean_latex(text)))


def evidence_matches(evidence: str, chunk_text: str) -> bool:
    ev, ch = _token_set(evidence), _token_set(chunk_text)
    if not ev or not ch:
        return False
    shared = len(ev & ch)
    if shared / len(ev) >= MATCH_THRESHOLD:
        return True
    return len(ch) >= MIN_TOKENS and shared / len(ch) >= MATCH_THRESHOLD


def precision_at_k(relevant: list[bool], k: int) -> float:
    return sum(relevant[:k]) / k


def recall_at_k(covered_units: list[set[int]], n_units: int, k: int) -> float:
    """``covered_units[i]`` = evidence units the chunk at rank i+1 covers."""
    if n_units == 0:
        return 0.0
    covered = set().union(*covered_units[:k]) if covered_units[:k] else set()
    return len(covered) / n_units


def mrr_at_k(relevant: list[bool], k: int = 10) -> float:
    for rank, is_relevant in enumerate(relevant[:k], start=1):
        if is_relevant:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(relevant: list[bool], n_relevant_total: int, k: int) -> float:
    dcg = sum(1.0 / math.log2(rank + 1) for rank, rel in enumerate(relevant[:k], start=1) if rel)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(k, n_relevant_total) + 1))
    return dcg / ideal if ideal else 0.0


def bootstrap_interval(
    differences: list[float], resamples: int = 10_000, level: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of paired per-query differences
    (system minus baseline on the same queries)."""
    import numpy as np

    values = np.asarray(differences, dtype=float)
    if values.size == 0:
        return (0.0, 0.0)
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, values.size, size=(resamples, values.size))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    return float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))
