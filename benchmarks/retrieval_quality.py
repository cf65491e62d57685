"""Retrieval quality on every public set at once, and whether the default beats BM25.

For each set of ``benchmarks/corpora`` (LHCb LaTeX, LHCb as Markdown with maths,
QASPER plain text, Rivet routing) it builds a knowledge base through the real
indexing path (``index_records``: format detection, chunking, coverage check,
Chroma + BM25), asks the set's questions in the locked tier with every system, and
routes its routing questions with BM25 alone, dense alone and the default fusion.

Prints JSON on stdout: per set and system P@1, MRR@10, NDCG@5 and hit@5 with the
macro-average over sets, the default-minus-BM25 MRR@10 difference with a 95 %
bootstrap interval (per set, and for the macro-average), routing top-1/top-3, and
the intake coverage. The Markdown tables go to stderr (and ``--markdown FILE``).

    python benchmarks/retrieval_quality.py [--sets lhcb,lhcb-md,qasper,rivet]
        [--systems bm25,dense,hybrid,rerank,adapted] [--work-dir DIR] [--reuse]
        [--adapt-minutes N] [--out report.json] [--markdown table.md]

``adapted`` needs a model trained by ``mitra adapt``: ``--adapt-minutes N`` trains
one per set first (with that budget); without it the system is scored only where
the work dir already holds one.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path
from statistics import mean

import numpy as np

from benchmarks.corpora import SET_NAMES, BenchmarkSet, load_set, shared_dir
from mitra.evaluation.retrieval import locked_metrics, routing_hits
from ingest.sources.jsonl import index_records
from mitra.models.llm import demo_gguf_path
from mitra.evaluation.metrics import bootstrap_interval
from mitra.retrieval.pipeline import Pipeline, build_pipeline
from mitra.core.settings import SYSTEMS, Settings

METRICS = ("P@1", "MRR@10", "NDCG@5", "hit@5")
ROUTING_SYSTEMS = ("bm25", "dense", "hybrid")


def build(bench: BenchmarkSet, data_dir: Path, reuse: bool, overrides: dict) -> tuple[Pipeline, float | None]:
    if not reuse:
        shutil.rmtree(data_dir, ignore_errors=True)
    pipeline = build_pipeline(Settings(_env_file=None, data_dir=data_dir, **overrides))
    if pipeline.kb.stats()["analyses"] == len(bench.records):
        return pipeline, None
    start = time.perf_counter()
    index_records(pipeline.kb, bench.records)
    return pipeline, round(time.perf_counter() - start, 1)


def adapt(pipeline: Pipeline, minutes: float) -> dict:
    from mitra.adapt.train import AdaptOptions, run_adaptation

    manifest = run_adaptation(pipeline, AdaptOptions(minutes=minutes))
    return manifest.model_dump()


def evaluate_set(bench: BenchmarkSet, pipeline: Pipeline, systems: list[str]) -> dict:
    out: dict = {"queries": len(bench.locked), "routing_queries": len(bench.routing)}
    if bench.locked:
        per_query = {system: locked_metrics(pipeline, bench.locked, system) for system in systems}
        out["per_query_mrr"] = {system: [round(r["MRR@10"], 4) for r in rows] for system, rows in per_query.items()}
        out["systems"] = {
            system: {m: round(mean(r[m] for r in rows), 4) for m in METRICS} for system, rows in per_query.items()
        }
    if bench.routing:
        out["routing"] = {}
        for system in ROUTING_SYSTEMS:
            hits = routing_hits(pipeline, bench.routing, system)
            out["routing"][system] = {"top1": round(mean(h[0] for h in hits), 4), "top3": round(mean(h[1] for h in hits), 4)}
    documents = [d for a in pipeline.kb.analyses() for d in pipeline.kb.documents(a.id)]
    coverages = [d.document.coverage for d in documents if d.document.coverage is not None]
    out["intake"] = {
        "documents": len(documents),
        "chunks": sum(d.n_chunks for d in documents),
        "formats": sorted({d.document.format for d in documents}),
        "coverage_min": round(min(coverages), 4) if coverages else None,
    }
    return out


def compare(results: dict, resamples: int) -> dict:
    """Each set's default system minus BM25 on MRR@10, per set and for the
    macro-average, with 95 % bootstrap intervals (queries resampled within each set)."""
    per_set, macro_draws = {}, []
    rng = np.random.default_rng(0)
    for name, result in results.items():
        default = result.get("default")
        if "per_query_mrr" not in result or default not in result["per_query_mrr"]:
            continue
        diffs = np.array(result["per_query_mrr"][default]) - np.array(result["per_query_mrr"]["bm25"])
        low, high = bootstrap_interval(list(diffs), resamples)
        base = result["systems"]["bm25"]["MRR@10"]
        per_set[name] = {"system": default, "diff": round(float(diffs.mean()), 4), "ci95": [round(low, 4), round(high, 4)],
                         "relative": round(float(diffs.mean()) / base, 4) if base else None}
        macro_draws.append(diffs[rng.integers(0, diffs.size, size=(resamples, diffs.size))].mean(axis=1))
    if not per_set:
        return {}
    macro = np.mean(macro_draws, axis=0)
    bm25_macro = mean(results[n]["systems"]["bm25"]["MRR@10"] for n in per_set)
    diff = mean(v["diff"] for v in per_set.values())
    return {
        "per_set": per_set,
        "macro": {"diff": round(diff, 4), "ci95": [round(float(np.percentile(macro, 2.5)), 4),
                                                   round(float(np.percentile(macro, 97.5)), 4)],
                  "relative": round(diff / bm25_macro, 4)},
    }


def macro_average(results: dict, systems: list[str]) -> dict:
    locked = [r for r in results.values() if "systems" in r]
    return {
        system: {m: round(mean(r["systems"][system][m] for r in locked), 4) for m in METRICS}
        for system in systems
        if locked and all(system in r["systems"] for r in locked)
    }


def markdown(report: dict) -> str:
    sets = [n for n, r in report["sets"].items() if "systems" in r]
    lines = ["| System | " + " | ".join(f"{n} MRR@10" for n in sets) + " | macro P@1 | macro MRR@10 | macro NDCG@5 | macro hit@5 |",
             "|---|" + "---|" * (len(sets) + 4)]
    for system, macro in report["macro"].items():
        cells = [f"{report['sets'][n]['systems'][system]['MRR@10']:.3f}" for n in sets]
        cells += [f"{macro[m]:.3f}" for m in METRICS]
        lines.append(f"| {system} | " + " | ".join(cells) + " |")
    comparison = report.get("default_vs_bm25", {})
    if comparison:
        lines += ["", "The default system minus BM25, MRR@10, with its 95 % bootstrap interval:", ""]
        lines += ["| Set | default | difference | interval | relative |", "|---|---|---|---|---|"]
        for name, c in {**comparison["per_set"], "macro": comparison["macro"]}.items():
            lines.append(f"| {name} | {c.get('system', '')} | {c['diff']:+.3f} | [{c['ci95'][0]:+.3f}, "
                         f"{c['ci95'][1]:+.3f}] | {c['relative']:+.1%} |")
    routed = {n: r["routing"] for n, r in report["sets"].items() if "routing" in r}
    if routed:
        lines += ["", "| Routing set | " + " | ".join(f"{s} top-1" for s in ROUTING_SYSTEMS) + " | default top-3 |",
                  "|---|" + "---|" * (len(ROUTING_SYSTEMS) + 1)]
        for name, r in routed.items():
            lines.append(f"| {name} | " + " | ".join(f"{r[s]['top1']:.3f}" for s in ROUTING_SYSTEMS)
                         + f" | {r['hybrid']['top3']:.3f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default=",".join(SET_NAMES))
    parser.add_argument("--systems", default="bm25,dense,hybrid,rerank,adapted")
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/mitra-retrieval-quality"))
    parser.add_argument("--reuse", action="store_true", help="keep knowledge bases (and adapted models) already built")
    parser.add_argument("--adapt-minutes", type=float, default=0.0, help="train an adapted reranker per set first")
    parser.add_argument("--gguf", type=Path, help="the LLM that writes adaptation questions (default: the demo "
                        "model if `mitra assemble-demo-model` put it in ./.mitra/models, else the configured one)")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting for this run (e.g. weight_prf=0), to measure one choice against another")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    overrides = dict(item.split("=", 1) for item in args.set)
    demo_model = demo_gguf_path(Settings(_env_file=None))
    if args.gguf or demo_model.is_file():
        overrides["gguf_path"] = str(args.gguf or demo_model.resolve())
    root = shared_dir()
    if root is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR): this benchmark needs the public sets")
    systems = [s for s in args.systems.split(",") if s]
    unknown = sorted(set(systems) - set(SYSTEMS))
    if unknown or "bm25" not in systems:
        sys.exit(f"--systems must include bm25 and name only {', '.join(SYSTEMS)} (unknown: {unknown})")

    report: dict = {"benchmark": "retrieval_quality", "settings": overrides, "sets": {}, "index_seconds": {},
                    "adaptation": {}}
    for name in args.sets.split(","):
        bench = load_set(name, root)
        pipeline, seconds = build(bench, args.work_dir / name, args.reuse, overrides)
        report["index_seconds"][name] = seconds
        if args.adapt_minutes > 0 and bench.locked and "adapted" in systems:
            report["adaptation"][name] = adapt(pipeline, args.adapt_minutes)
            pipeline = build_pipeline(pipeline.settings)  # reload: the adapted model is switched in
        report["sets"][name] = evaluate_set(bench, pipeline, systems)
        report["sets"][name]["default"] = pipeline.retriever.default_system
        report["reranker"] = pipeline.reranker_note
        print(f"{name}: done", file=sys.stderr)
    report["macro"] = macro_average(report["sets"], systems)
    report["default_vs_bm25"] = compare(report["sets"], args.resamples)
    table = markdown(report)
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    if args.markdown:
        args.markdown.write_text(table + "\n")
    print(json.dumps({k: v for k, v in report.items()}, indent=2))
    print(table, file=sys.stderr)


if __name__ == "__main__":
    main()
