"""Routing a question among a collaboration's analyses end to end, and adding one more.

``routing_scale.py`` times the evidence index alone. This times what a member waits for
and what a writer run costs, in a real knowledge base:

* ``--analyses`` analyses written by the real writer (``reader_memory.build``: catalog,
  Chroma, each analysis's BM25 and dense files, the routing tier; random passage and
  abstract vectors, since what is measured is cost), each then given the full-text
  evidence of ``--papers-per-analysis`` LHCb papers (``routing_scale.Corpus``: the units a
  writer takes from each paper's chunk index), so that the evidence index holds a
  collaboration's ~5 M passages at 5,000 analyses of 22 papers;
* in a fresh reader process (the app's ``Pipeline``), the router's ``route`` for the 33
  expert questions and every abstract's first sentence, each asked once: the question
  embedded (MiniLM, real), the abstracts' dense and BM25 lists, the evidence list, fusion
  and the candidates read; p50/p95 ms and the process's memory;
* adding one analysis of ``--papers-per-analysis`` papers in the writer:
  ``replace_analysis`` with their passages (random vectors; the encoder's cost is in
  ``index_profile.py``) and ``sync_abstracts`` (its routing vector, the abstracts' BM25,
  its evidence segment), seconds.

The knowledge base is built once per ``--work-dir`` (5,000 analyses: 957 s in the cluster form here).

``--cluster`` measures the cluster form instead: a throwaway PostgreSQL and a ``chroma
run`` server on 127.0.0.1 (the tests' ``tests/fixtures/servers.py``) hold what the writer
writes (catalog, routing tier, index and evidence blobs, passages), built anew each run;
the reader is a new replica, an empty data dir, so its first question includes fetching
and unpacking the evidence segments and the routing tier from the database.

Prints JSON.

    python benchmarks/routing_end_to_end.py [--analyses 5000] [--papers-per-analysis 22] [--work-dir DIR]
        [--cluster]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from itertools import cycle, islice
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.corpora import shared_dir  # noqa: E402
from benchmarks.corpora.lhcb import iter_papers  # noqa: E402
from benchmarks.reader_memory import build  # noqa: E402
from benchmarks.retrieval_latency import RandomPassageEmbedder  # noqa: E402
from benchmarks.routing_scale import Corpus, chunked_papers, memory_mb, percentile  # noqa: E402
from mitra.core.settings import Settings  # noqa: E402
from mitra.core.types import Analysis, Document  # noqa: E402

EXPERTS = 33  # chunked_papers' questions: the 33 expert ones, then the abstracts' first sentences


def give_evidence(settings: Settings, corpus: Corpus, per: int) -> float:
    """Every analysis's evidence made that of ``per`` papers (the writer's own update)."""
    from mitra.store.evidence_files import STATE, EvidenceFiles, State
    from mitra.store.knowledge_base import KnowledgeBase

    kb = KnowledgeBase(settings)
    # The analyses' own units are held already: the saved index goes first, on either back end.
    saved = State.load(kb.files.directory("evidence", STATE))
    for name in [*(saved.segments if saved else []), STATE]:
        kb.files.delete("evidence", name)
    current = {r.analysis.id: r.collection for r in kb.catalog.analyses()}
    number = {c: i for i, c in enumerate(sorted(current.values()))}
    started = time.perf_counter()
    EvidenceFiles(kb.files).update(current, lambda c: corpus.analysis(number[c], per), settings.route_evidence_unit)
    return time.perf_counter() - started


def add_one(settings: Settings, per: int) -> dict:
    """One more analysis of ``per`` papers through the writer, timed by step."""
    from ingest.chunk.from_text import chunk_text
    from mitra.models.embedders import SentenceTransformerEmbedder
    from mitra.store.knowledge_base import KnowledgeBase

    kb = KnowledgeBase(settings, RandomPassageEmbedder(SentenceTransformerEmbedder("all-MiniLM-L6-v2")))
    papers = list(islice(cycle(iter_papers(shared_dir())), per))
    analysis = Analysis(id=f"NEW-{int(time.time())}", title=papers[0].title or papers[0].arxiv_id,
                        abstract=papers[0].abstract)
    documents = [Document(analysis_id=analysis.id, doc_id=f"{p.arxiv_id}-{j}") for j, p in enumerate(papers)]
    chunks = [c for d, p in zip(documents, papers) for c in chunk_text(d, p.text, 200, 1200).chunks]
    started = time.perf_counter()
    kb.replace_analysis(analysis, documents, chunks)
    written = time.perf_counter()
    kb.sync_abstracts()
    done = time.perf_counter()
    return {"passages": len(chunks), "replace_analysis_s": round(written - started, 2),
            "sync_abstracts_s": round(done - written, 2), "add_one_s": round(done - started, 2)}


def read(settings: Settings, questions: list[str], experts: int) -> None:
    """The reader: a fresh process routes every question once, in turn, its embedding timed
    apart (the router keeps the vector, as it does for the retrieval that follows)."""
    from mitra.core.text import spelled_out
    from mitra.retrieval.pipeline import build_pipeline

    before = memory_mb()
    router = build_pipeline(settings.model_copy(update={"reranker": "none"}), with_reranker=False).router
    started = time.perf_counter()
    router.route("which analysis measured the muon lifetime")  # loads the routing tier, evidence index, encoder
    first_s = time.perf_counter() - started
    timed: dict[str, list[tuple[float, float]]] = {"expert": [], "abstract": []}
    for n, question in enumerate(questions):
        began = time.perf_counter()
        router.embedder.embed_queries([spelled_out(question)])
        embedded = time.perf_counter()
        router.route(question)
        timed["expert" if n < experts else "abstract"].append((embedded - began, time.perf_counter() - embedded))
    report = {"first_route_s": round(first_s, 2), "memory_before_mb": before, "memory_after_mb": memory_mb()}
    for group, pairs in timed.items():
        embed, after = ([x * 1000 for x in column] for column in zip(*pairs))
        whole = [a + b for a, b in zip(embed, after)]
        report[group] = {"questions": len(pairs), "route_p50_ms": percentile(whole, 50), "route_p95_ms": percentile(whole, 95),
                         "embed_p50_ms": percentile(embed, 50),
                         "after_embedding_p50_ms": percentile(after, 50), "after_embedding_p95_ms": percentile(after, 95)}
    print(json.dumps(report))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--analyses", type=int, default=5000)
    parser.add_argument("--papers-per-analysis", type=int, default=22)
    parser.add_argument("--work-dir", type=Path)
    parser.add_argument("--cluster", action="store_true", help="PostgreSQL and a Chroma server, a new replica reads")
    parser.add_argument("--read", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--questions", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--settings", help=argparse.SUPPRESS)  # the reader's services, as JSON
    args = parser.parse_args()
    if args.read:
        services = json.loads(args.settings or "{}")
        return read(Settings(_env_file=None, data_dir=args.read, **services), json.loads(args.questions.read_text()),
                    EXPERTS)
    root = shared_dir()
    if root is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR): this benchmark needs the LHCb corpus")
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="mitra-routing-e2e-"))
    report: dict = {"benchmark": "routing_end_to_end", "form": "cluster" if args.cluster else "one machine",
                    "analyses": args.analyses, "papers_per_analysis": args.papers_per_analysis}
    if not args.cluster:
        return measure(work / f"kb-{args.analyses}", {}, args, report)
    from tests.fixtures.servers import running_chroma, running_postgres

    place = Path(tempfile.mkdtemp(prefix=f"cluster-{args.analyses}-", dir=work))
    try:
        with running_postgres() as pg, running_chroma(place / "chroma") as chroma:
            services = {"database_url": pg.url(), "chroma_host": "127.0.0.1", "chroma_port": chroma.port}
            measure(place / "writer", services, args, report, replica=place / "replica")
    finally:
        shutil.rmtree(place, ignore_errors=True)


def measure(data_dir: Path, services: dict, args: argparse.Namespace, report: dict, replica: Path | None = None) -> None:
    """Build (once per data dir), give evidence, route in a fresh reader (on ``replica``, an
    empty data dir, where given), add one analysis; print the report."""
    settings = Settings(_env_file=None, data_dir=data_dir, **services)
    started = time.perf_counter()
    if not (data_dir / "catalog.sqlite").exists():  # built once per work dir (the cluster's catalog is new each run)
        build(settings, args.analyses, 2)
    report["build_s"] = round(time.perf_counter() - started, 1)
    papers, questions = chunked_papers(shared_dir(), 780)
    report["evidence_build_s"] = round(give_evidence(settings, Corpus(papers, "section"), args.papers_per_analysis), 1)
    with tempfile.NamedTemporaryFile("w", suffix=".json") as handle:
        json.dump(questions, handle)
        handle.flush()
        reader = subprocess.run([sys.executable, __file__, "--read", str(replica or data_dir), "--questions", handle.name,
                                 "--settings", json.dumps(services)], capture_output=True, text=True, check=True)
    report |= json.loads(reader.stdout.splitlines()[-1])
    report["add_one"] = add_one(settings, args.papers_per_analysis)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
