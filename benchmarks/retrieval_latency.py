"""Per-stage retrieval latency (p50/p95, ms) at 10k and 100k chunks in one analysis.

Passages are real LHCb paragraphs (cycled to reach the size); their vectors are
random unit vectors, because embedding 100k passages on 2 cores takes ~20 min
and vector-search cost does not depend on what the vectors mean. Queries are
embedded by the real packaged MiniLM. The reranker is a randomly initialised
cross-encoder with exactly the architecture of cross-encoder/ms-marco-MiniLM-L-6-v2
(6 layers, 384 hidden, 12 heads): same runtime, no weights needed. The adapted
reranker (``mitra adapt``) is timed with and without its stored passage vectors.

``stages_ms`` are the default without rerank (``hybrid``), each stage and their total;
``rerank`` and ``adapted_*`` are the rerank stages alone. Beside it, in the same process,
the stock LangChain hybrid over the same passages and vectors (``peer``):
RecursiveCharacterTextSplitter 1000/200, BM25Retriever (rank_bm25) + Chroma
(langchain-chroma) with the same MiniLM query embedding, EnsembleRetriever, k = 20 a leg;
its build and its query time.

``--variant NAME:KEY=VALUE,...`` times other query-time settings beside the default,
question by question in turn over the same index (``variants``), so that on shared cores
both meet the same load.

    python benchmarks/retrieval_latency.py [--sizes 10000,100000] [--queries 30] [--skip-rerank] [--skip-peer]
        [--variant before:fusion_guard=0 ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from itertools import cycle, islice
from pathlib import Path
from statistics import quantiles

import numpy as np

from ingest.chunk.from_text import chunk_text
from mitra.models.embedders import SentenceTransformerEmbedder, resolve_model_path
from benchmarks.corpora import shared_dir
from benchmarks.corpora.lhcb import expert_questions, iter_papers
from mitra.models.rerank import CrossEncoderReranker
from mitra.retrieval.retriever import Retriever
from mitra.core.settings import Settings
from mitra.store.knowledge_base import KnowledgeBase
from mitra.core.types import Analysis, Document


class RandomPassageEmbedder:
    """Real query embeddings, random passage vectors (see module docstring)."""

    def __init__(self, real: SentenceTransformerEmbedder):
        self.real, self.name, self.dim = real, real.name, real.dim
        self.rng = np.random.default_rng(0)

    def embed_queries(self, texts):
        # Every question embedded afresh, for MITRA and its peer alike: in the app the
        # router has embedded it already (``QueryCache``), which ``after_routing`` shows.
        return self.real._vectors(texts, False)

    def lengths(self, texts):
        return [len(t) for t in texts]

    def embed_passages(self, texts, show_progress=False):
        v = self.rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def minilm_cross_encoder(directory: Path) -> CrossEncoderReranker:
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    config = BertConfig(hidden_size=384, num_hidden_layers=6, num_attention_heads=12, intermediate_size=1536, num_labels=1)
    BertForSequenceClassification(config).save_pretrained(directory)
    AutoTokenizer.from_pretrained(resolve_model_path("all-MiniLM-L6-v2")).save_pretrained(directory)
    return CrossEncoderReranker(str(directory))


def adapted_latency(kb, embedder, settings, analysis_id: str, queries: list[str]) -> dict[str, list[float]]:
    """The adapted reranker's stage over the fused top 20: an encoder of the packaged
    MiniLM's size (its weights do not change the runtime), with the passages' vectors
    stored (the corpus it was adapted on) or not (passages indexed since)."""
    from mitra.models.adapted import AdaptedReranker, base_encoder

    adapted = AdaptedReranker(base_encoder(settings), {}, weight=0.5, name="adapted (latency)")
    retriever = Retriever(kb, embedder, None, settings, adapted=adapted)
    out: dict[str, list[float]] = {"adapted_uncached": [], "adapted_cached": []}
    for query in queries:
        adapted.vectors.clear()
        for case in ("adapted_uncached", "adapted_cached"):  # the second call finds the vectors stored
            out[case].append(retriever.search(analysis_id, query, system="adapted").timings_ms["rerank"])
    return out


def langchain_peer(texts: list[str], embedder: RandomPassageEmbedder, queries: list[str], directory: Path) -> dict:
    """The stock LangChain hybrid the issue compares with, built and asked here."""
    from langchain_chroma import Chroma
    from langchain_classic.retrievers import EnsembleRetriever
    from langchain_community.retrievers import BM25Retriever
    from langchain_core.embeddings import Embeddings
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    class SameVectors(Embeddings):
        def embed_documents(self, documents):
            return embedder.embed_passages(documents).tolist()

        def embed_query(self, text):
            return embedder.embed_queries([text])[0].tolist()

    start = time.perf_counter()
    documents = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200).create_documents(texts)
    bm25 = BM25Retriever.from_documents(documents, k=20)
    chroma = Chroma.from_documents(documents, SameVectors(), persist_directory=str(directory))
    build_s = time.perf_counter() - start
    ensemble = EnsembleRetriever(retrievers=[bm25, chroma.as_retriever(search_kwargs={"k": 20})], weights=[0.5, 0.5])
    ensemble.invoke(queries[0])  # warm, as MITRA is
    times = []
    for query in queries:
        start = time.perf_counter()
        ensemble.invoke(query)
        times.append((time.perf_counter() - start) * 1000)
    return {"chunks": len(documents), "index_seconds": round(build_s, 1), "total_ms": percentiles(times)}


def percentiles(values: list[float]) -> dict[str, float]:
    cuts = quantiles(values, n=20)
    return {"p50": round(cuts[9], 2), "p95": round(cuts[18], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--skip-rerank", action="store_true", help="time no rerank stage (they take minutes)")
    parser.add_argument("--skip-peer", action="store_true", help="time no LangChain peer (its 100k build takes minutes)")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME:KEY=VALUE,...",
                        help="other query-time settings timed beside the default, in turn on each question")
    args = parser.parse_args()
    root = shared_dir()
    if root is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR): this benchmark needs the LHCb corpus")

    sizes = [int(s) for s in args.sizes.split(",")]
    variants = {name: dict(pair.split("=", 1) for pair in changes.split(","))
                for name, _, changes in (v.partition(":") for v in args.variant)}
    paragraphs: list[str] = []
    for paper in iter_papers(root):
        paragraphs += [c.text for c in chunk_text(Document(analysis_id="x", doc_id=paper.arxiv_id), paper.text, 200, 1200).chunks]
        if len(paragraphs) >= max(sizes):
            break
    questions = [q.question for q in expert_questions(root)]
    queries = list(islice(cycle(questions), args.queries))
    work = Path(tempfile.mkdtemp(prefix="mitra-latency-"))
    base = Settings()  # the question's encoder runs as configured (MITRA_EMBED_RUNTIME=torch to compare)
    embedder = RandomPassageEmbedder(SentenceTransformerEmbedder(
        "all-MiniLM-L6-v2", onnx_dir=base.encoder_cache_dir if base.embed_runtime == "onnx" else None))
    reranker = minilm_cross_encoder(work / "cross-encoder")

    results = {}
    for size in sizes:
        settings = Settings(data_dir=work / f"kb-{size}", reranker="none")
        kb = KnowledgeBase(settings, embedder)
        analysis = Analysis(id=f"BENCH-{size}", title="latency benchmark")
        document = Document(analysis_id=analysis.id, doc_id="corpus")
        texts = list(islice(cycle(paragraphs), size))
        chunks = [
            c.model_copy(update={"position": i, "id": f"c{i}"})
            for i, c in enumerate(chunk_text(document, "\n\n".join(texts), 1, 10**9).chunks)
        ]
        start = time.perf_counter()
        kb.replace_analysis(analysis, [document], chunks)
        index_s = time.perf_counter() - start
        retrievers = {"default": Retriever(kb, embedder, reranker, settings)}
        retrievers.update({name: Retriever(kb, embedder, reranker, Settings(**{**settings.model_dump(), **changes}))
                           for name, changes in variants.items()})
        retrievers["default"].search(analysis.id, queries[0])  # warm caches (BM25 load, model)
        timed: dict[str, dict[str, list[float]]] = {name: {} for name in retrievers}
        for query in queries:
            for name, retriever in retrievers.items():
                result = retriever.search(analysis.id, query, system="hybrid")
                stages = timed[name]
                for stage, ms in result.timings_ms.items():
                    stages.setdefault(stage, []).append(ms)
                stages.setdefault("total", []).append(sum(result.timings_ms.values()))
                stages.setdefault("after_routing", []).append(stages["total"][-1] - result.timings_ms["embed_query"])
        stages = timed["default"]
        retriever = retrievers["default"]
        rerank = {}
        if not args.skip_rerank:
            rerank["rerank"] = [retriever.search(analysis.id, q, system="rerank").timings_ms["rerank"] for q in queries]
            rerank.update(adapted_latency(kb, embedder, settings, analysis.id, queries))
        results[str(size)] = {
            "chunks": len(chunks),
            "index_seconds": round(index_s, 1),
            "stages_ms": {stage: percentiles(v) for stage, v in stages.items()},
            "variants": {name: {"settings": variants[name], "stages_ms": {k: percentiles(v) for k, v in timed[name].items()}}
                         for name in variants},
            "rerank_ms": {stage: percentiles(v) for stage, v in rerank.items()},
            "peer": None if args.skip_peer else langchain_peer(texts, embedder, queries, work / f"peer-{size}"),
        }
        print(json.dumps({size: results[str(size)]}), file=sys.stderr)
    print(
        json.dumps(
            {
                "benchmark": "retrieval_latency",
                "embed_runtime": "onnx" if embedder.real._onnx is not None else "torch",
                "queries": len(queries),
                "dense_k": settings.dense_k,
                "bm25_k": settings.bm25_k,
                "rerank_top_n": settings.rerank_top_n,
                "results": results,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
