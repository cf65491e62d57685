"""What each fusion signal and setting is worth, on every set, by document length.

For every locked set of a ``retrieval_quality.py`` run, each variant (a system and the
query-time settings it changes) asks the set's questions; per variant the MRR@10, its
difference from BM25 on the same questions with a 95 % bootstrap interval, and the same
for questions on short and on long documents (``LONG_PASSAGES``: the shortest paper of
the unseen set of long papers) and for each question group of the set (``GoldQuery.set``).

``dense_window_words`` is read by the store, not the retriever: a variant that changes it
is run with the store's settings changed for its questions.
"""

from __future__ import annotations

from contextlib import contextmanager
from statistics import mean
from typing import Iterator

import numpy as np

from mitra.evaluation.metrics import bootstrap_interval
from mitra.evaluation.retrieval import locked_metrics

LONG_PASSAGES = 123
# name -> (system, settings changed from the default): one signal or setting changed at a
# time, then the alternatives issue 34 asked for (the previous default, RRF, the guard)
VARIANTS: dict[str, tuple[str, dict]] = {
    "bm25": ("bm25", {}),
    "dense": ("dense", {}),
    "default": ("hybrid", {}),
    "previous default": ("hybrid", {"fusion_depth": 10, "weight_prf": 1.0}),
    "feedback": ("hybrid", {"weight_prf": 1.0}),
    "depth 10": ("hybrid", {"fusion_depth": 10}),
    "depth 50": ("hybrid", {"fusion_depth": 50}),
    "depth 50 BM25 x2": ("hybrid", {"fusion_depth": 50, "weight_bm25": 2.0}),
    "no section score": ("hybrid", {"weight_section": 0}),
    "no coverage": ("hybrid", {"weight_coverage": 0}),
    "no neighbours": ("hybrid", {"weight_context": 0}),
    "no sentence windows": ("hybrid", {"dense_window_words": 0}),
    "dense + BM25 only": ("hybrid", {"weight_section": 0, "weight_context": 0, "weight_coverage": 0}),
    "min-max": ("hybrid", {"fusion": "convex"}),
    "RRF": ("hybrid", {"fusion": "rrf"}),
    "RRF with feedback": ("hybrid", {"fusion": "rrf", "weight_prf": 1.0}),
    "guard 5": ("hybrid", {"fusion_guard": 5}),
    "guard 5 depth 50": ("hybrid", {"fusion_guard": 5, "fusion_depth": 50}),
    "previous default guard 5": ("hybrid", {"fusion_depth": 10, "weight_prf": 1.0, "fusion_guard": 5}),
}
_STORE_SETTINGS = ("dense_window_words",)


@contextmanager
def store_settings(pipeline, overrides: dict) -> Iterator[None]:
    """The store reads these settings with the variant's values while the block runs."""
    changed = {k: v for k, v in overrides.items() if k in _STORE_SETTINGS}
    if not changed:
        yield
        return
    kept = pipeline.kb.settings
    pipeline.kb.settings = kept.model_copy(update=changed)
    try:
        yield
    finally:
        pipeline.kb.settings = kept


def variant_mrr(pipeline, gold: list, system: str, overrides: dict) -> list[float]:
    variant = pipeline.with_settings(**overrides) if overrides else pipeline
    with store_settings(pipeline, overrides):
        return [row["MRR@10"] for row in locked_metrics(variant, gold, system)]


def _stat(values: np.ndarray, base: np.ndarray, resamples: int) -> dict:
    diffs = values - base
    low, high = bootstrap_interval(list(diffs), resamples)
    return {"n": int(values.size), "mrr": round(float(values.mean()), 4), "diff": round(float(diffs.mean()), 4),
            "ci95": [round(low, 4), round(high, 4)]}


def signals(built: dict, variants: dict[str, tuple[str, dict]], resamples: int) -> dict:
    """Per locked set and variant: all questions, short and long documents, each group."""
    out: dict = {}
    for name, (bench, pipeline) in built.items():
        gold = [g for g in bench.locked if g.has_gold]
        if not gold:
            continue
        passages = {a: len(pipeline.kb.chunks(a)) for a in {g.analysis_id for g in gold}}
        slices = {"all": np.ones(len(gold), bool),
                  "short": np.array([passages[g.analysis_id] < LONG_PASSAGES for g in gold]),
                  "long": np.array([passages[g.analysis_id] >= LONG_PASSAGES for g in gold])}
        groups = sorted({g.set for g in gold})
        if len(groups) > 1:
            slices.update({group: np.array([g.set == group for g in gold]) for group in groups})
        per_query = {v: np.array(variant_mrr(pipeline, gold, system, overrides))
                     for v, (system, overrides) in variants.items()}
        base = per_query["bm25"]
        out[name] = {"questions": {s: int(mask.sum()) for s, mask in slices.items()},
                     "passages": {"mean": round(mean(passages.values()), 1), "max": max(passages.values())},
                     "variants": {v: {s: _stat(values[mask], base[mask], resamples)
                                      for s, mask in slices.items() if mask.any()}
                                  for v, values in per_query.items()}}
    return out


def signals_markdown(report: dict) -> str:
    """One table per set: each variant's MRR@10 and its difference from BM25 [interval], by slice."""
    lines = []
    for name, result in report.items():
        slices = [s for s, n in result["questions"].items() if n]
        counts = ", ".join(f"{s} {result['questions'][s]}" for s in slices)
        lines += ["", f"{name} ({counts} questions; {result['passages']['mean']} passages a document on average, "
                  f"{result['passages']['max']} at most):",
                  "", "| variant | " + " | ".join(slices) + " |", "|---|" + "---|" * len(slices)]
        for variant, row in result["variants"].items():
            cells = [f"{row[s]['mrr']:.3f} ({row[s]['diff']:+.3f} [{row[s]['ci95'][0]:+.3f}, {row[s]['ci95'][1]:+.3f}])"
                     if variant != "bm25" else f"{row[s]['mrr']:.3f}" for s in slices]
            lines.append(f"| {variant} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
