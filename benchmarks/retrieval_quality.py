"""Retrieval quality on every public set at once, and whether the default beats BM25.

For each set of ``benchmarks/corpora`` (LHCb LaTeX, LHCb as Markdown with maths,
QASPER plain text, Rivet routing) it builds a knowledge base through the real
indexing path (``index_records``: format detection, chunking, coverage check,
Chroma + BM25; for ``mixed``, papers as HTML, Word, PowerPoint, Markdown, PDF
slides and text files through the file readers, scored per type too), asks the
set's questions in the locked tier with every system, and routes its routing questions with BM25 alone, dense alone and the default fusion.

Prints JSON on stdout: per set and system P@1, MRR@10, NDCG@5 and hit@5 with the
macro-average over sets, the default-minus-BM25 MRR@10 difference with a 95 %
bootstrap interval (per set, and for the macro-average), routing top-1/top-3, and
the intake coverage. The Markdown tables go to stderr (and ``--markdown FILE``).

``--grid`` chooses query-time settings the way defaults are chosen here: every
variant is scored on every set (locked MRR@10 and routing top-1, each relative to
BM25 on that set), the variant with the best mean over all sets is the choice, and a
leave-one-set-out row per set re-chooses without that set and scores the choice on it:
a default must still beat BM25 on a set it was not chosen on. ``--self-tune N`` tries
the alternative: each knowledge base choosing from N pseudo-questions of its own text.

    python benchmarks/retrieval_quality.py [--sets lhcb,lhcb-md,lhcb-conv,qasper,rivet,route-ft,mixed,long]
        [--systems bm25,dense,hybrid,rerank,adapted] [--work-dir DIR] [--reuse]
        [--adapt-minutes N] [--grid default|FILE.json [--self-tune N]] [--signals [NAMES]]
        [--out report.json] [--markdown table.md]

``adapted`` needs a model trained by ``mitra adapt``: ``--adapt-minutes N`` trains
one per set first (with that budget); without it the system is scored only where
the work dir already holds one.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import random
import shutil
import sys
import time
from pathlib import Path
from statistics import mean

import numpy as np

from benchmarks.corpora import FILE_SET_NAMES, SET_NAMES, BenchmarkSet, load_set, shared_dir
from benchmarks.signals import VARIANTS, signals, signals_markdown
from mitra.adapt.pseudo_queries import sentence_queries
from mitra.evaluation.retrieval import GoldQuery, locked_metrics, routing_hits
from ingest.pipeline import ingest_files
from ingest.sources.jsonl import index_records
from mitra.models.llm import demo_gguf_path
from mitra.evaluation.metrics import bootstrap_interval, evidence_matches
from mitra.retrieval.pipeline import Pipeline, build_pipeline
from mitra.core.settings import SYSTEMS, Settings
from mitra.core.types import Analysis

METRICS = ("P@1", "MRR@10", "NDCG@5", "hit@5")
ROUTING_SYSTEMS = ("bm25", "dense", "hybrid")
# The query-time settings ``--grid default`` chooses among (nothing is re-indexed).
# Tier 2 (fusion depth, feedback) and routing (its own depth and weights) are chosen
# together; a locked run is shared by the variants that differ only in routing settings.
DEFAULT_GRID = {"fusion_depth": [10, 20, 50], "weight_prf": [0.0, 1.0],
                "route_fusion_depth": [10, 20, 50], "route_weight_dense": [0.5, 1.0],
                "route_weight_evidence": [0.0, 1.0, 2.0, 3.0]}
ROUTING_ONLY = ("route_",)
BOTH_TIERS = ("fusion", "rrf_k")  # settings the router reads beside its own route_* ones


def build(bench: BenchmarkSet, data_dir: Path, reuse: bool, overrides: dict) -> tuple[Pipeline, float | None, list]:
    """The set's knowledge base, the seconds indexing took (None: reused) and the files
    that failed to index ((file, reason): a reader's loss, reported, never hidden)."""
    if not reuse:
        shutil.rmtree(data_dir, ignore_errors=True)
    pipeline = build_pipeline(Settings(_env_file=None, data_dir=data_dir, **overrides))
    if pipeline.kb.stats()["analyses"] == len(bench.records):
        return pipeline, None, []
    start = time.perf_counter()
    failed: list[tuple[str, str]] = []
    as_files = {file.analysis.analysis_id for file in bench.files}
    texts = [r for r in bench.records if r.analysis_id not in as_files]
    if texts:
        index_records(pipeline.kb, texts)
    for file in bench.files:
        record = file.analysis
        analysis = Analysis(id=record.analysis_id, title=record.title, abstract=record.abstract,
                            experiment=record.experiment)
        failed += ingest_files(pipeline.kb, pipeline.settings, [file.path], analysis).failed
    return pipeline, round(time.perf_counter() - start, 1), failed


def adapt(pipeline: Pipeline, minutes: float) -> dict:
    from mitra.adapt.train import AdaptOptions, run_adaptation

    manifest = run_adaptation(pipeline, AdaptOptions(minutes=minutes))
    return manifest.model_dump()


def evaluate_set(bench: BenchmarkSet, pipeline: Pipeline, systems: list[str]) -> dict:
    out: dict = {"queries": len(bench.locked), "routing_queries": len(bench.routing)}
    if bench.locked:
        per_query = {system: locked_metrics(pipeline, bench.locked, system) for system in systems}
        out["per_query_mrr"] = {system: [round(r["MRR@10"], 4) for r in rows] for system, rows in per_query.items()}
        out["qids"] = [g.qid for g in bench.locked if g.has_gold]
        out["systems"] = {
            system: {m: round(mean(r[m] for r in rows), 4) for m in METRICS} for system, rows in per_query.items()
        }
    if bench.routing:
        out["routing"] = {}
        for system in ROUTING_SYSTEMS:
            hits = routing_hits(pipeline, bench.routing, system)
            out["routing"][system] = {"top1": round(mean(h[0] for h in hits), 4), "top3": round(mean(h[1] for h in hits), 4)}
        out["routing"]["confidence"] = confidence_accuracy(pipeline, bench)
    if bench.locked:
        out["gold_found"] = round(mean(gold_found(pipeline, g) for g in bench.locked), 4)
    documents = [d for a in pipeline.kb.analyses() for d in pipeline.kb.documents(a.id)]
    coverages = [d.document.coverage for d in documents if d.document.coverage is not None]
    out["intake"] = {
        "documents": len(documents),
        "chunks": sum(d.n_chunks for d in documents),
        "formats": sorted({d.document.format for d in documents}),
        "coverage_min": round(min(coverages), 4) if coverages else None,
    }
    return out


def gold_found(pipeline: Pipeline, gold: GoldQuery) -> bool:
    """Some chunk of the question's analysis holds one of its evidence passages (the
    evidence rule): a passage the intake lost is found by no system."""
    return any(evidence_matches(e, c.text) for c in pipeline.kb.chunks(gold.analysis_id) for e in gold.evidence)


def per_format(bench: BenchmarkSet, pipeline: Pipeline, results: dict) -> dict:
    """A file set's MRR@10 and gold found by the type each question's paper was rendered
    as, beside the same questions' MRR@10 on the papers as text (``as text``), where a
    text set of this run asked them (``mixed``: lhcb-md and qasper): what each reader loses."""
    rendered = {f.analysis.analysis_id: f.format for f in bench.files}
    rendered.update({r.analysis_id: "jsonl" for r in bench.records if r.documents})
    gold = [g for g in bench.locked if g.has_gold]  # in the order of per_query_mrr
    as_text = {qid: {system: values[i] for system, values in r["per_query_mrr"].items()}
               for name, r in results.items() if name != bench.name
               for i, qid in enumerate(r.get("qids", []))}
    rows: dict[str, list[int]] = {}
    for i, g in enumerate(gold):
        rows.setdefault(rendered[g.analysis_id], []).append(i)
    out = {}
    for fmt, indices in sorted(rows.items()):
        row = {"queries": len(indices), "gold_found": round(mean(gold_found(pipeline, gold[i]) for i in indices), 4)}
        for system, values in results[bench.name]["per_query_mrr"].items():
            row[system] = round(mean(values[i] for i in indices), 4)
            text = [as_text[gold[i].qid][system] for i in indices if system in as_text.get(gold[i].qid, {})]
            if len(text) == len(indices):
                row[f"{system} as text"] = round(mean(text), 4)
        out[fmt] = row
    return out


def confidence_accuracy(pipeline: Pipeline, bench: BenchmarkSet) -> dict:
    """How often the first candidate is right when routing calls it a strong match, and
    when it calls it weak, per query group: the labels must mean what they say."""
    out: dict = {}
    for g in bench.routing:
        result = pipeline.router.route(g.route_query or g.query, top_n=1)
        group = out.setdefault(g.set, {"strong": [], "weak": []})
        group[result.top.confidence if result.top else "weak"].append(result.top is not None
                                                                     and result.top.analysis.id == g.analysis_id)
    return {name: {label: {"n": len(v), "top1": round(mean(v), 4) if v else None} for label, v in groups.items()}
            for name, groups in out.items()}


def compare(results: dict, resamples: int) -> dict:
    """Each set's default system minus BM25 on MRR@10, per set and for the
    macro-average, with 95 % bootstrap intervals (queries resampled within each set);
    and the ceiling of choosing among the systems run: each question's best MRR@10 among
    them, relative to BM25 (what no fusion or guard that picks one of their orders per
    question can pass)."""
    per_set, macro_draws = {}, []
    rng = np.random.default_rng(0)
    for name, result in results.items():
        default = result.get("default")
        if "per_query_mrr" not in result or default not in result["per_query_mrr"]:
            continue
        diffs = np.array(result["per_query_mrr"][default]) - np.array(result["per_query_mrr"]["bm25"])
        low, high = bootstrap_interval(list(diffs), resamples)
        base = result["systems"]["bm25"]["MRR@10"]
        best = np.max([np.array(scores) for scores in result["per_query_mrr"].values()], axis=0).mean()
        per_set[name] = {"system": default, "diff": round(float(diffs.mean()), 4), "ci95": [round(low, 4), round(high, 4)],
                         "relative": round(float(diffs.mean()) / base, 4) if base else None,
                         "best_per_question": round(float(best), 4),
                         "best_relative": round(float(best) / base - 1, 4) if base else None}
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


def grid_variants(spec: str) -> list[dict]:
    """``default``, or a JSON file holding a list of setting dicts or a dict of value lists."""
    grid = DEFAULT_GRID if spec == "default" else json.loads(Path(spec).read_text())
    if isinstance(grid, list):
        return grid
    return [dict(zip(grid, values)) for values in itertools.product(*grid.values())]


def partly_full_text(bench: BenchmarkSet) -> bool:
    """Only some analyses have full text (lhcb: the 5 the questions are about): full-text
    evidence would favour exactly those, so such a set does not choose routing settings."""
    with_text = sum(bool(r.documents) for r in bench.records)
    return 0 < with_text < len(bench.records)


def grid_scores(built: dict[str, tuple[BenchmarkSet, Pipeline]], variants: list[dict]) -> dict:
    """Each variant's score on each (set, tier) cell relative to BM25 there: locked MRR@10
    of the hybrid system, routing top-1. Locked runs are shared by variants that differ
    only in routing settings, routing runs by variants that differ only in the others."""
    cells: dict[str, list[float]] = {}
    raw: dict[str, list[float]] = {}
    for name, (bench, pipeline) in built.items():
        if bench.locked:
            base = mean(r["MRR@10"] for r in locked_metrics(pipeline, bench.locked, "bm25"))
            seen: dict[str, float] = {}
            for variant in variants:
                key = json.dumps({k: v for k, v in variant.items() if not k.startswith(ROUTING_ONLY)}, sort_keys=True)
                if key not in seen:
                    rows = locked_metrics(pipeline.with_settings(**variant), bench.locked, "hybrid")
                    seen[key] = mean(r["MRR@10"] for r in rows)
                raw.setdefault(f"{name}:locked", []).append(round(seen[key], 4))
                cells.setdefault(f"{name}:locked", []).append(seen[key] / base if base else 0.0)
            raw[f"{name}:locked:bm25"] = [round(base, 4)]
        if bench.routing and not partly_full_text(bench):
            base = mean(h[0] for h in routing_hits(pipeline, bench.routing, "bm25"))
            routed: dict[str, float] = {}
            for variant in variants:
                key = json.dumps({k: v for k, v in variant.items() if k.startswith(ROUTING_ONLY) or k in BOTH_TIERS},
                                 sort_keys=True)
                if key not in routed:
                    routed[key] = mean(h[0] for h in routing_hits(pipeline.with_settings(**variant), bench.routing,
                                                                  "hybrid"))
                top1 = routed[key]
                raw.setdefault(f"{name}:routing", []).append(round(top1, 4))
                cells.setdefault(f"{name}:routing", []).append(top1 / base if base else 0.0)
            raw[f"{name}:routing:bm25"] = [round(base, 4)]
        print(f"grid: {name} done", file=sys.stderr)
    return {"cells": cells, "raw": raw}


def choose(cells: dict[str, list[float]], exclude: str | None = None) -> int:
    """The variant with the best mean relative score over the cells of every set but ``exclude``
    (ties: the earlier variant)."""
    kept = [v for k, v in cells.items() if k.split(":")[0] != exclude]
    means = np.mean(np.array(kept), axis=0)
    return int(np.argmax(means))


def leave_one_set_out(variants: list[dict], scores: dict) -> dict:
    cells, raw = scores["cells"], scores["raw"]
    chosen = choose(cells)
    out = {"variants": variants, "chosen": variants[chosen], "raw": raw, "loso": {}}
    for name in sorted({k.split(":")[0] for k in cells}):
        pick = choose(cells, exclude=name)
        out["loso"][name] = {
            "chosen_without": variants[pick],
            **{tier: {"score": raw[f"{name}:{tier}"][pick], "bm25": raw[f"{name}:{tier}:bm25"][0],
                      "all_sets_choice": raw[f"{name}:{tier}"][chosen]}
               for tier in ("locked", "routing") if f"{name}:{tier}" in raw},
        }
    return out


def self_tuned(built: dict[str, tuple[BenchmarkSet, Pipeline]], variants: list[dict], grid: dict, per_set: int) -> dict:
    """Each knowledge base picks its own settings from pseudo-questions made of its own
    text (``mitra adapt``'s caption and statement questions, which need no headings: a
    sentence's rarest terms; gold = its passage, and its analysis for routing). Every
    variant is scored on them as ``grid_scores`` scores real questions, the set chooses
    alone, and the choice is scored on the set's real questions beside the all-sets default."""
    pseudo_built = {}
    for name, (bench, pipeline) in built.items():
        chunks = [c for a in pipeline.kb.analyses() for c in pipeline.kb.chunks(a.id)]
        gold = [GoldQuery(qid=f"pseudo-{i}", query=q.query, analysis_id=q.analysis_id, relevant_chunk_ids=[q.chunk_id])
                for i, q in enumerate(sentence_queries(chunks, per_set, random.Random(0)))]
        pseudo_built[name] = (dataclasses.replace(bench, locked=gold if bench.locked else [],
                                                  routing=gold if bench.routing else []), pipeline)
    pseudo = grid_scores(pseudo_built, variants)["cells"]
    raw, default = grid["raw"], variants.index(grid["chosen"])
    out = {}
    for name in built:
        own = {k: v for k, v in pseudo.items() if k.split(":")[0] == name}
        if not own:
            continue
        pick = choose(own)
        out[name] = {"chosen": variants[pick], **{
            tier: {"self_tuned": raw[f"{name}:{tier}"][pick], "default": raw[f"{name}:{tier}"][default],
                   "bm25": raw[f"{name}:{tier}:bm25"][0]}
            for tier in ("locked", "routing") if f"{name}:{tier}" in raw}}
    return out


def choice_table(rows: dict, header: str, chosen: str, scores: tuple[str, str, str]) -> list[str]:
    """One Markdown row per (set, tier): the settings ``chosen`` there and three ``scores``."""
    lines = [header, "|---|---|---|---|---|---|"]
    for name, row in rows.items():
        for tier in ("locked", "routing"):
            if tier in row:
                cells = " | ".join(f"{row[tier][k]:.3f}" for k in scores)
                lines.append(f"| {name} | {json.dumps(row[chosen])} | {tier} | {cells} |")
    return lines


def self_tuned_markdown(rows: dict) -> str:
    return "\n".join(["", *choice_table(rows, "| set | chosen on its own pseudo-questions | tier | self-tuned | default | BM25 |",
                                        "chosen", ("self_tuned", "default", "bm25"))])


def grid_markdown(grid: dict) -> str:
    return "\n".join(["", f"Chosen on all sets: {json.dumps(grid['chosen'])}", "",
                      *choice_table(grid["loso"], "| left out | chosen without it | tier | its score there | all-sets choice | BM25 |",
                                    "chosen_without", ("score", "all_sets_choice", "bm25"))])


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
        lines += ["| Set | default | difference | interval | relative | best system per question, relative |",
                  "|---|---|---|---|---|---|"]
        for name, c in {**comparison["per_set"], "macro": comparison["macro"]}.items():
            best = f"{c['best_relative']:+.1%}" if c.get("best_relative") is not None else ""
            lines.append(f"| {name} | {c.get('system', '')} | {c['diff']:+.3f} | [{c['ci95'][0]:+.3f}, "
                         f"{c['ci95'][1]:+.3f}] | {c['relative']:+.1%} | {best} |")
    for name, result in report["sets"].items():
        if "per_format" in result:
            default = result["default"]
            lines += ["", f"{name}, by the type each paper was rendered as (MRR@10; gold found: questions whose "
                      "evidence some chunk still holds; as text: the same questions on the papers as text):", "",
                      "| Type | questions | gold found | BM25 | BM25 as text | default | default as text |",
                      "|---|---|---|---|---|---|---|"]
            lines += [f"| {fmt} | {row['queries']} | {row['gold_found']:.3f} | "
                      + " | ".join(f"{row[key]:.3f}" if key in row else "–"
                                   for key in ("bm25", "bm25 as text", default, f"{default} as text")) + " |"
                      for fmt, row in result["per_format"].items()]
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
    parser.add_argument("--sets", default=",".join(SET_NAMES + FILE_SET_NAMES))
    parser.add_argument("--systems", default="bm25,dense,hybrid,rerank,adapted")
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/mitra-retrieval-quality"))
    parser.add_argument("--reuse", action="store_true", help="keep knowledge bases (and adapted models) already built")
    parser.add_argument("--adapt-minutes", type=float, default=0.0, help="train an adapted reranker per set first")
    parser.add_argument("--gguf", type=Path, help="the LLM that writes adaptation questions (default: the demo "
                        "model if `mitra assemble-demo-model` put it in ./.mitra/models, else the configured one)")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting for this run (e.g. weight_prf=0), to measure one choice against another")
    parser.add_argument("--grid", help="choose query-time settings over all sets, with leave-one-set-out rows: "
                        "'default' or a JSON file (a list of setting dicts, or a dict of value lists)")
    parser.add_argument("--signals", nargs="?", const="all", metavar="NAMES",
                        help="each fusion signal and setting on every locked set, by document length: all variants "
                        f"of benchmarks/signals.py, or some of them, comma-separated ({', '.join(VARIANTS)})")
    parser.add_argument("--self-tune", type=int, default=0, metavar="N",
                        help="with --grid: each set also chooses from N pseudo-questions made of its own text")
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
    built: dict[str, tuple[BenchmarkSet, Pipeline]] = {}
    for name in args.sets.split(","):
        bench = load_set(name, root, args.work_dir / "files")
        pipeline, seconds, failed = build(bench, args.work_dir / name, args.reuse, overrides)
        report["index_seconds"][name] = seconds
        if args.adapt_minutes > 0 and bench.locked and "adapted" in systems:
            report["adaptation"][name] = adapt(pipeline, args.adapt_minutes)
            pipeline = build_pipeline(pipeline.settings)  # reload: the adapted model is switched in
        report["sets"][name] = evaluate_set(bench, pipeline, systems)
        report["sets"][name]["default"] = pipeline.retriever.default_system
        if failed:
            report["sets"][name]["failed"] = [{"file": f, "reason": r} for f, r in failed]
        report["reranker"] = pipeline.reranker_note
        built[name] = (bench, pipeline)
        print(f"{name}: done", file=sys.stderr)
    for name, (bench, pipeline) in built.items():
        if bench.files and bench.locked:
            report["sets"][name]["per_format"] = per_format(bench, pipeline, report["sets"])
    report["macro"] = macro_average(report["sets"], systems)
    report["default_vs_bm25"] = compare(report["sets"], args.resamples)
    table = markdown(report)
    if args.signals:
        names = list(VARIANTS) if args.signals == "all" else ["bm25", *(n for n in args.signals.split(",") if n != "bm25")]
        report["signals"] = signals(built, {n: VARIANTS[n] for n in names}, args.resamples)
        table += signals_markdown(report["signals"])
    if args.grid:
        variants = grid_variants(args.grid)
        report["grid"] = leave_one_set_out(variants, grid_scores(built, variants))
        table += grid_markdown(report["grid"])
        if args.self_tune:
            report["self_tuned"] = self_tuned(built, variants, report["grid"], args.self_tune)
            table += self_tuned_markdown(report["self_tuned"])
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    if args.markdown:
        args.markdown.write_text(table + "\n")
    print(json.dumps({k: v for k, v in report.items()}, indent=2))
    print(table, file=sys.stderr)


if __name__ == "__main__":
    main()
