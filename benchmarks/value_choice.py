"""The model's choice among the code's candidate values, alone (issue 46): for each frozen value
question whose asked value is among the ``value_candidates`` the code ranks from the fused top
``value_passages``, the value the model copies (``mitra.answer.choose``), its probability, the
tokens it read and the seconds it took, beside the code's first.

Per set, with Wilson intervals: the choice right, the model's copy right, the code's first
right, the choice sure (``value_confidence``) and sure and right; and, for each ``value_lead`` threshold, how
often the value a warned answer leads with is right (the model's choice at or above the
threshold, else the code's first). Only the model's call is timed, so prompt variants are
compared on what they change. ``--both-orders`` asks again with the candidates listed last to
first: does the model choose by where a value stands? (``reversed_right``, ``orders_agree``,
and ``more_probable_right``, the more probable of the two choices.)

``HELD_OUT`` (``fresh4`` to ``fresh7``) are held out: run them for totals only (the per-question lines go to stderr).

    python benchmarks/value_choice.py --sets fresh,fresh2 --work-dir DIR --reuse [--model qwen|smollm2]
        [--set value_candidates=8] [--both-orders] [--out r.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from statistics import median

from benchmarks.answer_quality import with_settings
from benchmarks.answer_values import SETS, analysis_id, bench_of, parse_overrides, questions_of
from benchmarks.corpora import shared_dir
from benchmarks.corpora.value_questions import HELD_OUT, value_of
from benchmarks.intervals import wilson
from benchmarks.retrieval_quality import build
from benchmarks.value_ranking import holds
from mitra.answer.choose import choose, code_reads, prior_for, weighed, written
from mitra.answer.record import Timings
from mitra.chat.session import load_answerer
from mitra.core.settings import Settings
from mitra.models.llm import demo_gguf_path

LEADS = (0.25, 0.4, 0.5, 0.6, 0.7, 0.8)
PRIORS = (0.0, 0.25, 0.5, 1.0, 3.0, 10.0)


def reversed_choice(model, asked, ranked: list) -> tuple[int, float | None]:
    """The model's choice among ``ranked`` listed last to first, as an index into ``ranked``."""
    choice = choose(model, asked, ranked[::-1])
    return (0 if choice.none else len(ranked) + 1 - choice.index), choice.confidence


def choices(sets: list[str], work_dir: Path, reuse: bool, gguf: Path | None, overrides: dict,
            both_orders: bool = False) -> list[dict]:
    """Per question whose value the code's candidates hold: which candidates are the value,
    the model's choice (0: none), its probability, tokens read and seconds."""
    root = shared_dir()
    questions = questions_of(sets, root, None)
    rows, answerer = [], None
    for name in sets:
        asked_qs = [q for q in questions if q.set == name]
        bench = bench_of(name, root, asked_qs)
        pipeline, _, _ = build(bench, work_dir / f"{name}-{len(bench.records)}", reuse, {"reranker": "none"})
        pipeline = with_settings(pipeline, {"switch_margin": None, "final_k": 5, "llm_backend": "embedded",
                                            "gguf_path": gguf, **overrides})
        answerer = answerer.for_pipeline(pipeline) if answerer is not None else load_answerer(pipeline)
        if not hasattr(answerer, "chat_model"):
            sys.exit(f"the model did not load: {getattr(answerer, 'error', '')}")
        for q in asked_qs:
            asked, _, _, ranked = answerer.retrieve(pipeline.kb.get_analysis(analysis_id(q)), q.question, Timings())
            value = value_of(q.value).copy_abs()
            right = [holds(c, value) for c in ranked]
            if not any(right):
                continue
            start = time.perf_counter()
            choice = choose(answerer.chat_model, asked, ranked, answerer.value_prior)
            rows.append({"id": q.id, "set": name, "right": right, "chosen": choice.index, "copied": choice.copied,
                         "spread": choice.spread, "scores": [c.score for c in ranked],
                         "code_reads": code_reads(ranked[0]),
                         "confidence": choice.confidence, "seconds": round(time.perf_counter() - start, 2),
                         "tokens": choice.usage.get("input_tokens"), "values": [written(c) for c in ranked]})
            if both_orders:
                again = reversed_choice(answerer.chat_model, asked, ranked)
                rows[-1]["reversed"], rows[-1]["reversed_confidence"] = again
            print(f"  {q.id}: value at {right.index(True) + 1}, chose {choice.index} ({choice.confidence})",
                  file=sys.stderr)
    return rows


def _right(row: dict, index: int) -> bool:
    return index > 0 and row["right"][index - 1]


def _weighed_lead(row: dict, prior: float, settings: Settings) -> int:
    """The value a warned answer leads with had the ranking weighed the model's probabilities at
    ``prior`` (``choose.weighed``; ``choose.prior_for`` raises it where the code reads the
    ranking's first better): the choice, or the code's first where it is none (the prose
    path ends listing the ranking's values) or under ``value_lead``."""
    spread = {int(k): v for k, v in row["spread"].items()}  # JSON keys are strings
    index = weighed(row["copied"], spread, row["scores"], prior_for(prior, row.get("code_reads", False)))
    return 1 if index == 0 or spread.get(index, 1.0) < settings.value_lead else index


def summary(rows: list[dict], settings: Settings) -> dict:
    n = len(rows)
    sure = [r for r in rows if (r["confidence"] or 0.0) >= settings.value_confidence]

    def leading(threshold: float) -> int:
        return sum(_right(r, r["chosen"] if r["chosen"] and (r["confidence"] or 0.0) >= threshold else 1) for r in rows)

    return {"questions": n,
            "chosen_right": wilson(sum(_right(r, r["chosen"]) for r in rows), n),
            "copied_right": wilson(sum(_right(r, r["copied"]) for r in rows), n),
            "code_first_right": wilson(sum(r["right"][0] for r in rows), n),
            "none": sum(r["chosen"] == 0 for r in rows),
            "sure": len(sure), "sure_right": wilson(sum(_right(r, r["chosen"]) for r in sure), len(sure)),
            "leads_right": {str(t): leading(t) for t in LEADS},
            "weighed_leads_right": {str(p): sum(_right(r, _weighed_lead(r, p, settings)) for r in rows)
                                    for p in PRIORS},
            "tokens_p50": median(r["tokens"] or 0 for r in rows) if rows else None,
            "seconds_p50": median(r["seconds"] for r in rows) if rows else None} | _orders(rows)


def _orders(rows: list[dict]) -> dict:
    """The choice asked again with the candidates reversed (``--both-orders``), where it was."""
    both = [r for r in rows if "reversed" in r]
    if not both:
        return {}

    def more_probable(r: dict) -> int:
        ahead = (r["reversed_confidence"] or 0.0) > (r["confidence"] or 0.0)
        return r["reversed"] if ahead else r["chosen"]

    return {"reversed_right": wilson(sum(_right(r, r["reversed"]) for r in both), len(both)),
            "orders_agree": sum(r["reversed"] == r["chosen"] for r in both),
            "more_probable_right": wilson(sum(_right(r, more_probable(r)) for r in both), len(both)),
            "chose_first_listed": sum(r["chosen"] == 1 for r in both),
            "reversed_chose_the_ranking_first": sum(r["reversed"] == 1 for r in both)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="fresh,fresh2", help=f"any of {','.join(SETS)}")
    parser.add_argument("--model", default="qwen", choices=("qwen", "smollm2"))
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/mitra-answer-values"))
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--both-orders", action="store_true", help="also choose among the candidates reversed")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    overrides = parse_overrides(args.set)
    gguf = demo_gguf_path(Settings(_env_file=None)).resolve() if args.model == "qwen" else None
    if gguf is not None and not gguf.exists():
        sys.exit(f"the demo GGUF {gguf} is not assembled (mitra assemble-demo-model)")
    sets = args.sets.split(",")
    rows = choices(sets, args.work_dir, args.reuse, gguf, overrides, args.both_orders)
    settings = Settings(_env_file=None, **overrides)
    report = {"benchmark": "value_choice", "model": args.model, "settings": overrides,
              "by_set": {name: summary([r for r in rows if r["set"] == name], settings) for name in sets},
              "all": summary(rows, settings),
              "per_question": [r for r in rows if r["set"] not in HELD_OUT]}
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text)
    print(json.dumps({k: v for k, v in report.items() if k != "per_question"}, indent=2))


if __name__ == "__main__":
    main()
