"""A long-running reader's memory while it serves many different analyses.

Builds ``--analyses`` analyses of ``--chunks`` LHCb passages each (one writer; random
passage vectors, since what is measured is what a reader keeps, not what it finds), then,
in a fresh process as the app's would be, locks on each analysis in turn and retrieves one
expert question in it (dense + BM25 + section + feedback + neighbours, the texts fetched
from Chroma), ``--rounds`` times over. The resident set size is sampled every
``--every`` analyses. The reader keeps the indexes of its ``reader_cache_analyses`` most
recently used analyses (``MITRA_READER_CACHE_ANALYSES``); ``--cache`` sets it.

Prints JSON: RSS after the models loaded, after the first ``--every`` analyses, at the end,
its maximum, and the samples; the p50 query time over the run.

    python benchmarks/reader_memory.py [--analyses 1000] [--chunks 30] [--cache 64]
        [--rounds 1] [--work-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from itertools import cycle, islice
from pathlib import Path
from statistics import median

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.corpora import shared_dir  # noqa: E402
from benchmarks.corpora.lhcb import expert_questions, iter_papers  # noqa: E402
from benchmarks.retrieval_latency import RandomPassageEmbedder  # noqa: E402
from mitra.core.settings import Settings  # noqa: E402
from mitra.core.types import Analysis, Document  # noqa: E402


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def build(settings: Settings, analyses: int, chunks: int, groups: tuple[str, ...] = ()) -> None:
    """``analyses`` analyses of ``chunks`` passages each, written with ``settings`` (its data
    dir, and its database and Chroma server in the cluster form); with ``groups``, analysis
    ``i`` is restricted to group ``groups[i % len(groups)]``."""
    from ingest.chunk.from_text import chunk_text
    from mitra.access.policy import attach_groups
    from mitra.models.embedders import SentenceTransformerEmbedder
    from mitra.store.knowledge_base import KnowledgeBase

    papers = iter_papers(shared_dir())
    kb = KnowledgeBase(settings, RandomPassageEmbedder(SentenceTransformerEmbedder("all-MiniLM-L6-v2")))
    # Each paper is chunked once: the analyses cycle over the corpus, and chunking whole
    # papers for a few passages each was most of a large build's time.
    chunked: dict[str, list] = {}
    for i, paper in enumerate(islice(cycle(papers), analyses)):
        analysis = Analysis(id=f"MEM-{i:04d}", title=paper.title or paper.arxiv_id, abstract=paper.abstract)
        analysis = attach_groups(analysis, [groups[i % len(groups)]] if groups else None)
        document = Document(analysis_id=analysis.id, doc_id=paper.arxiv_id)
        if paper.arxiv_id not in chunked:
            chunked[paper.arxiv_id] = chunk_text(document, paper.text, 200, 1200).chunks[:chunks]
        passages = [c.model_copy(update={"analysis_id": analysis.id}) for c in chunked[paper.arxiv_id]]
        kb.replace_analysis(analysis, [document], passages)
    kb.sync_abstracts()


def serve(data_dir: Path, cache: int, every: int, rounds: int) -> dict:
    from mitra.retrieval.pipeline import build_pipeline

    questions = [q.question for q in expert_questions(shared_dir())]
    pipeline = build_pipeline(Settings(data_dir=data_dir, reranker="none", reader_cache_analyses=cache),
                              with_reranker=False)
    ids = [a.id for a in pipeline.kb.analyses()]
    samples = {"loaded": rss_mb()}
    times: list[float] = []
    for n, (analysis_id, question) in enumerate(zip(islice(cycle(ids), rounds * len(ids)), cycle(questions)), 1):
        start = time.perf_counter()
        pipeline.retriever.search(analysis_id, question, system="hybrid")
        times.append((time.perf_counter() - start) * 1000)
        if n % every == 0:
            samples[str(n)] = rss_mb()
    values = [v for k, v in samples.items() if k != "loaded"]
    return {"analyses": len(ids), "served": len(times), "reader_cache_analyses": cache,
            "rss_mb": {"loaded": samples["loaded"], "first": values[0], "end": values[-1], "max": max(values)},
            "growth_after_first_mb": round(values[-1] - values[0], 1), "query_ms_p50": round(median(times), 1),
            "samples": samples}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--analyses", type=int, default=1000)
    parser.add_argument("--chunks", type=int, default=30)
    parser.add_argument("--cache", type=int, default=Settings().reader_cache_analyses)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--work-dir", type=Path)
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)  # the fresh reader process
    args = parser.parse_args()
    if args.serve:
        print(json.dumps(serve(args.serve, args.cache, args.every, args.rounds)))
        return
    if shared_dir() is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR): this benchmark needs the LHCb corpus")
    data_dir = (args.work_dir or Path(tempfile.mkdtemp(prefix="mitra-reader-memory-"))) / f"kb-{args.analyses}x{args.chunks}"
    start = time.perf_counter()
    if not (data_dir / "catalog.sqlite").exists():  # built once per work dir
        build(Settings(data_dir=data_dir), args.analyses, args.chunks)
    build_s = time.perf_counter() - start
    served = subprocess.run([sys.executable, __file__, "--serve", str(data_dir), "--cache", str(args.cache),
                             "--every", str(args.every), "--rounds", str(args.rounds)],
                            capture_output=True, text=True, check=True)
    result = json.loads(served.stdout.strip().splitlines()[-1])
    print(json.dumps({"chunks_per_analysis": args.chunks, "build_seconds": round(build_s, 1), **result}, indent=2))


if __name__ == "__main__":
    main()
