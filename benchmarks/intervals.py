"""Bootstrap intervals for the timing benchmarks (a few runs each, on shared cores)."""

from __future__ import annotations

import numpy as np


def median_ci(values: list[float], draws: int = 2000) -> list[float]:
    """A bootstrap 95 % interval of the median of ``values``."""
    rng = np.random.default_rng(0)
    medians = np.median(rng.choice(values, size=(draws, len(values))), axis=1)
    return [round(float(np.percentile(medians, 2.5)), 1), round(float(np.percentile(medians, 97.5)), 1)]


def wilson(hits: int, total: int) -> dict:
    """A share and its 95 % Wilson score interval (scipy's)."""
    from scipy.stats import binomtest

    if not total:
        return {"share": None, "ci": None, "n": 0}
    ci = binomtest(hits, total).proportion_ci(confidence_level=0.95, method="wilson")
    return {"share": round(hits / total, 3), "ci": [round(float(ci.low), 3), round(float(ci.high), 3)], "n": total}
