"""Retrieval quality on the real LHCb corpus and its 33 expert questions.

Indexes all 780 abstracts (tier 1) and the full text of the papers the questions
need (plus ``--extra-fulltext`` more, as distractor collections), then prints the
eval report for bm25 / dense / hybrid / rerank as JSON, and the Markdown tables
on stderr. Routing is asked "<paper title> <question>".

    python benchmarks/lhcb_quality.py [--data-dir DIR] [--reuse] [--out report.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from mitra.evaluation import evaluate, to_markdown
from mitra.indexing import index_records
from mitra.lhcb import expert_questions, gold_queries, iter_papers, shared_dir
from mitra.retrieval import SYSTEMS, build_pipeline
from mitra.settings import Settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, help="where to build the knowledge base (default: a temp dir)")
    parser.add_argument("--reuse", action="store_true", help="skip indexing if --data-dir already holds it")
    parser.add_argument("--extra-fulltext", type=int, default=0, help="index the full text of N more papers")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--out", type=Path, help="also write the JSON report here")
    args = parser.parse_args()

    root = shared_dir()
    if root is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR): this benchmark needs the real LHCb data")
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="mitra-lhcb-"))
    settings = Settings(data_dir=data_dir)
    pipeline = build_pipeline(settings)

    questions = expert_questions(root)
    needed = {q.arxiv_id for q in questions}
    papers = list(iter_papers(root))
    titles = {p.arxiv_id: p.title for p in papers}
    index_seconds = None
    if not (args.reuse and pipeline.kb.stats()["analyses"] == len(papers)):
        extra = {p.arxiv_id for p in papers if p.arxiv_id not in needed}
        extra = set(sorted(extra)[: args.extra_fulltext])
        records = [p.record(full_text=p.arxiv_id in needed or p.arxiv_id in extra) for p in papers]
        start = time.perf_counter()
        index_records(pipeline.kb, records)
        index_seconds = round(time.perf_counter() - start, 1)

    systems = [s for s in args.systems.split(",") if s]
    report = evaluate(pipeline, gold_queries(questions, titles), systems, gold_name="lhcb_expert_qa.json")
    result = {
        "benchmark": "lhcb_quality",
        "settings": settings.model_dump(
            include={"embedder_model", "reranker", "fusion", "dense_k", "bm25_k", "rrf_k", "weight_dense", "weight_bm25",
                     "chunk_min_chars", "chunk_max_chars"}
        ),
        "knowledge_base": pipeline.kb.stats(),
        "index_seconds": index_seconds,
        "report": report.model_dump(),
    }
    if args.out:
        args.out.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    print(to_markdown(report), file=sys.stderr)


if __name__ == "__main__":
    main()
