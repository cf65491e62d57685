"""The code's ranking of candidate values alone, before any model (issue 46): where the asked
value of each frozen value question ranks among ``candidates`` (the fused top
``value_passages``), per set, on the questions where a passage shown to the model states it.

Per set: how many questions a shown passage answers, and of those the asked value first, in
the top three and top six, with Wilson intervals; and over every question whose value is not
among the ``value_candidates`` offered, the first stage without it (``lost``): no passage of the
fused top ``value_passages`` states it, one does but is not shown, or a shown one does.
``--fit`` also fits linear weights over the candidates' signals (a listwise softmax on the
development sets, cross-validated by paper halves) and reports the value first with them on
each set, beside the hand weights'.

Every set but ``HELD_OUT`` is development (the 201 questions ``pdfs`` and ``lhcb``, ``fresh``,
``fresh2``, ``fresh3``, ``fresh8``); ``fresh4`` to ``fresh7`` are held out and read only as
totals. The knowledge bases are those ``answer_values.py --work-dir DIR`` builds (``--reuse``
keeps them).

    python benchmarks/value_ranking.py [--sets pdfs,lhcb,fresh,fresh2,fresh3] [--work-dir DIR] [--reuse] [--fit]
        [--set KEY=VALUE] [--out r.json]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from benchmarks.answer_quality import with_settings
from benchmarks.answer_values import analysis_id, bench_of, parse_overrides, questions_of
from benchmarks.corpora import shared_dir
from benchmarks.corpora.value_questions import HELD_OUT, states, value_of
from benchmarks.intervals import wilson
from benchmarks.retrieval_quality import build
from mitra.answer.answerer import Answerer
from mitra.answer.candidates import candidates
from mitra.answer.record import Timings



def holds(candidate, value) -> bool:
    """Is ``value`` (a magnitude) the candidate's, or that of a statement it stands for?"""
    return candidate.mention.value.copy_abs() == value or any(a.mention.value.copy_abs() == value
                                                              for a in candidate.also)


def ranked(sets: list[str], work_dir: Path, reuse: bool, overrides: dict) -> list[dict]:
    """Per question: its set, paper, whether a shown passage states the value, the asked
    value's rank (None: no candidate), and each candidate's signals with whether it is the value."""
    root = shared_dir()
    questions = questions_of(sets, root, None)
    rows = []
    for name in sets:
        asked_qs = [q for q in questions if q.set == name]
        bench = bench_of(name, root, asked_qs)
        pipeline, _, _ = build(bench, work_dir / f"{name}-{len(bench.records)}", reuse, {"reranker": "none"})
        pipeline = with_settings(pipeline, {"switch_margin": None, "final_k": 5, **overrides})
        answerer = Answerer(pipeline.retriever, None, None, pipeline.settings)
        for q in asked_qs:
            analysis = pipeline.kb.get_analysis(analysis_id(q))
            asked, result, shown, _ = answerer.retrieve(analysis, q.question, Timings())
            trusted = [h for h in result.hits if answerer.trusted(h)]
            found = candidates(asked, trusted[:pipeline.settings.value_passages])
            value = value_of(q.value).copy_abs()
            right = [holds(c, value) for c in found]
            rows.append({"id": q.id, "set": name, "paper": q.source, "form": q.form,
                         "shown": any(states(h.chunk.text, q.value, q.unit) for h in shown),
                         "retrieved": any(states(h.chunk.text, q.value, q.unit)
                                          for h in trusted[:pipeline.settings.value_passages]),
                         "offered": pipeline.settings.value_candidates,
                         "rank": right.index(True) if True in right else None,
                         "candidates": [{"signals": dict(c.signals), "right": r} for c, r in zip(found, right)]})
    return rows


def summary(rows: list[dict], rank_of=lambda row: row["rank"]) -> dict:
    shown = [r for r in rows if r["shown"]]
    out = {"questions": len(rows), "shown_passage_states_value": len(shown)}
    for name, depth in (("first", 1), ("top_three", 3), ("top_six", 6)):
        hits = sum(rank_of(r) is not None and rank_of(r) < depth for r in shown)
        out[name] = wilson(hits, len(shown)) | {"n_right": hits}
    # over every question: a candidate from a passage outside the shown ones joins them when it is offered
    out["every_question"] = {name: sum(rank_of(r) is not None and rank_of(r) < depth for r in rows)
                             for name, depth in (("first", 1), ("top_six", 6))}
    out["lost"] = lost(rows, rank_of)
    return out


def lost(rows: list[dict], rank_of=lambda row: row["rank"]) -> dict:
    """Of the questions whose value is not among the candidates offered, the first stage
    without it: no passage of the fused top ``value_passages`` states the number, one does
    but is not shown, or a shown passage does (and the value ranks below the offered ones)."""
    missed = [r for r in rows if rank_of(r) is None or rank_of(r) >= r["offered"]]
    return {"not_offered": len(missed),
            "not_retrieved": sum(not r["retrieved"] for r in missed),
            "retrieved_not_shown": sum(r["retrieved"] and not r["shown"] for r in missed),
            "shown": sum(r["shown"] for r in missed)}


def _matrix(row: dict, keys: list[str]) -> np.ndarray:
    return np.array([[float(c["signals"].get(k, 0.0)) for k in keys] for c in row["candidates"]])


def fit(rows: list[dict], keys: list[str], l2: float = 0.1, steps: int = 2000, rate: float = 0.05) -> np.ndarray:
    """Weights maximising the right candidate's softmax probability (L2-regularised)."""
    data = [(_matrix(r, keys), np.array([c["right"] for c in r["candidates"]], float)) for r in rows
            if any(c["right"] for c in r["candidates"])]
    weights = np.zeros(len(keys))
    for _ in range(steps):
        gradient = l2 * weights
        for x, y in data:
            scores = x @ weights
            p = np.exp(scores - scores.max())
            gradient -= x.T @ (y / y.sum() - p / p.sum())
        weights -= rate * gradient / max(len(data), 1)
    return weights


def first_with(weights: np.ndarray, keys: list[str]):
    def rank_of(row: dict) -> int | None:
        if not row["candidates"]:
            return None
        order = np.argsort(-(_matrix(row, keys) @ weights), kind="stable")
        return next((i for i, j in enumerate(order) if row["candidates"][j]["right"]), None)
    return rank_of


def fitted(rows: list[dict]) -> dict:
    """Learned weights: fit on one half of the development papers, scored on the other (and
    back), and fit on all of them, scored on every set."""
    keys = sorted({k for r in rows for c in r["candidates"] for k in c["signals"]})
    development = [r for r in rows if r["set"] not in HELD_OUT]
    papers = sorted({r["paper"] for r in development})
    halves = [[r for r in development if papers.index(r["paper"]) % 2 == h] for h in (0, 1)]
    cross = [summary(halves[1 - h], first_with(fit(halves[h], keys), keys))["first"]["n_right"] for h in (0, 1)]
    weights = fit(development, keys)
    by_set = defaultdict(list)
    for r in rows:
        by_set[r["set"]].append(r)
    return {"weights": {k: round(float(w), 3) for k, w in zip(keys, weights)},
            "development_cross_validated_first": sum(cross),
            "by_set": {name: summary(part, first_with(weights, keys)) for name, part in by_set.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="pdfs,lhcb,fresh,fresh2,fresh3")
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/mitra-answer-values"))
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--fit", action="store_true", help="also fit linear weights over the signals")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a setting to override")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rows = ranked(args.sets.split(","), args.work_dir, args.reuse, parse_overrides(args.set))
    by_set = defaultdict(list)
    for r in rows:
        by_set[r["set"]].append(r)
    report = {"benchmark": "value_ranking", "by_set": {name: summary(part) for name, part in by_set.items()},
              "development": summary([r for r in rows if r["set"] not in HELD_OUT])}
    if args.fit:
        report["fitted"] = fitted(rows)
    report["per_question"] = [{k: r[k] for k in ("id", "set", "form", "shown", "rank")} for r in rows]
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
