"""What routing by full-text evidence costs as the knowledge base grows.

The evidence index (``mitra.store.routing``) is one BM25 index over every analysis's
current text: its top-level sections (the default) or its passages. This chunks the
780 LHCb papers with the real intake (``ingest.sources.jsonl.prepare``), then builds the
index from the token lists writers cache, with the corpus repeated ``--copies`` times
(as new analyses) to see how build time, memory and query latency grow, and routes
the 33 expert questions and the abstracts' first sentences through it.

Prints JSON: per unit and size the passages, units, tokens, build seconds, the index's
size in memory (its sparse matrix) and on disk, and query p50/p95 in ms; plus a linear
projection to a collaboration's scale (``--project-analyses`` analyses of
``--project-passages`` passages in all).

    python benchmarks/routing_scale.py [--papers 780] [--copies 1,4] [--project-analyses 5000]
        [--project-passages 5000000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from statistics import quantiles

from benchmarks.corpora import shared_dir
from benchmarks.corpora.lhcb import expert_questions, iter_papers
from ingest.sources.jsonl import prepare
from mitra.core.settings import Settings
from mitra.core.text import split_sentences, tokenize
from mitra.store.index_cache import section_key
from mitra.store.routing import EvidenceSearch, build_evidence


def percentile(values: list[float], q: int) -> float:
    return round(quantiles(values, n=100)[q - 1], 2) if len(values) > 1 else round(values[0], 2)


def index_bytes(index) -> int:
    matrix = index._retriever.scores
    return int(sum(matrix[key].nbytes for key in ("data", "indices", "indptr")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=780)
    parser.add_argument("--copies", default="1,4")
    parser.add_argument("--project-analyses", type=int, default=5000)
    parser.add_argument("--project-passages", type=int, default=5_000_000)
    args = parser.parse_args()
    root = shared_dir()
    if root is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR): this benchmark needs the LHCb corpus")
    settings = Settings(_env_file=None)
    start = time.perf_counter()
    generations, questions = {}, [q.question for q in expert_questions(root)]
    for paper in list(iter_papers(root))[: args.papers]:
        prepared = prepare(paper.record(full_text=True), settings)
        generations[prepared.analysis.id] = ("g1", [(section_key(c), tokenize(c.index_text)) for c in prepared.chunks])
        questions += split_sentences(paper.abstract)[:1]
    chunk_seconds = time.perf_counter() - start
    passages = sum(len(rows) for _, rows in generations.values())
    tokens = sum(len(t) for _, rows in generations.values() for _, t in rows)
    report = {"benchmark": "routing_scale", "papers": len(generations), "passages": passages, "tokens": tokens,
              "chunk_and_tokenize_s": round(chunk_seconds, 1), "queries": len(questions), "sizes": []}
    for copies in [int(c) for c in args.copies.split(",")]:
        grown = {f"{a}~{i}": rows for i in range(copies) for a, rows in generations.items()}
        for unit in ("section", "passage"):
            start = time.perf_counter()
            index = build_evidence(grown, unit, "1")
            build_s = time.perf_counter() - start
            with tempfile.TemporaryDirectory() as tmp:
                index.save(Path(tmp) / "evidence")
                disk = sum(f.stat().st_size for f in (Path(tmp) / "evidence").rglob("*") if f.is_file())
            search = EvidenceSearch(index)
            current = {a: "g1" for a in grown}
            timings = []
            for question in questions:
                words = tokenize(question)
                began = time.perf_counter()
                search.search(words, 50, settings.route_evidence_depth, current)
                timings.append((time.perf_counter() - began) * 1000)
            report["sizes"].append({
                "unit": unit, "analyses": len(grown), "passages": passages * copies, "units": len(index),
                "build_s": round(build_s, 1), "memory_mb": round(index_bytes(index) / 2**20, 1),
                "disk_mb": round(disk / 2**20, 1), "query_p50_ms": percentile(timings, 50),
                "query_p95_ms": percentile(timings, 95),
            })
            print(json.dumps(report["sizes"][-1]), file=sys.stderr, flush=True)
    largest = {r["unit"]: r for r in report["sizes"] if r["analyses"] == max(s["analyses"] for s in report["sizes"])}
    scale = args.project_passages / max(r["passages"] for r in largest.values())
    report["projection"] = {
        unit: {"analyses": args.project_analyses, "passages": args.project_passages,
               "build_s": round(r["build_s"] * scale), "memory_mb": round(r["memory_mb"] * scale),
               "disk_mb": round(r["disk_mb"] * scale), "query_p50_ms": round(r["query_p50_ms"] * scale, 1),
               "note": "linear in the passages from the largest measured size; postings grow with the corpus, "
                       "so query time is an upper bound once the vocabulary saturates"}
        for unit, r in largest.items()
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
