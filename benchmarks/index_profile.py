"""Where `mitra index-jsonl` spends its time, stage by stage, against each stage's floor.

Indexes the full text of the first ``--papers`` LHCb papers in this process, through the
command's own path (``index_records`` on the writer's knowledge base, memory kept flat as
the command does), under cProfile, and attributes the time to stages by the functions
that do them: reading and validating the JSONL, chunking, planning what to embed,
counting tokens, embedding, Chroma writes, BM25 and passages files, dense index files,
routing vectors, the evidence routing index; the rest (the catalog, Python) as other.
Model loading is timed apart.

Beside each heavy stage, the floor of the library doing it on this CPU, measured here:

* encoder: the same texts embedded by the encoder alone, batches of one length (16),
  with torch on 1 and on all cores and with ONNX Runtime on all cores; the best of them;
* Chroma: ``upsert`` of the run's passages (random vectors) into a fresh collection in
  batches of 5,000;
* bm25s: indexing the run's token lists in one call.

Prints JSON. ``--embed-runtime torch --paragraph-vector text`` gives the writer as it was
before each token was embedded once on ONNX Runtime.

    python benchmarks/index_profile.py [--papers 40] [--embed-runtime onnx|torch]
        [--paragraph-vector windows|text] [--no-floors]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.corpora import shared_dir
from benchmarks.corpora.lhcb import iter_papers
from mitra.core.jsonl import write_jsonl
from mitra.core.settings import Settings

# Stage -> (file suffix, function name) whose cumulative time is the stage's. Nested ones
# are taken out of their callers below (embedding runs inside the chunk writes).
STAGES = {
    "read and validate JSONL": [("mitra/core/jsonl.py", "_parse"), ("mitra/core/jsonl.py", "_decode")],
    "chunk": [("ingest/sources/jsonl.py", "prepare")],
    "plan texts (sentence windows)": [("mitra/store/chunk_vectors.py", "of")],
    "count tokens": [("mitra/models/embedders.py", "lengths")],
    "embed": [("mitra/models/embedders.py", "embed_passages")],
    "Chroma writes": [("chromadb/api/models/Collection.py", "upsert")],
    "BM25 and passages files": [("mitra/store/index_cache.py", "_save_text_indexes")],
    "dense index files": [("mitra/store/index_cache.py", "_save_dense")],
    "routing vectors": [("mitra/store/routing_tier.py", "_route")],
    "evidence routing index": [("mitra/store/routing_tier.py", "_sync_evidence")],
}
# Part of "embed" and "Chroma writes" too (one text per analysis): not added to the total.
OVERLAPPING = {"routing vectors"}


def stage_seconds(stats: pstats.Stats) -> dict[str, float]:
    out = dict.fromkeys(STAGES, 0.0)
    for (filename, _, name), (_, _, _, cumulative, _) in stats.stats.items():
        for stage, functions in STAGES.items():
            if any(filename.endswith(suffix) and name == function for suffix, function in functions):
                out[stage] += cumulative
    return {stage: round(seconds, 2) for stage, seconds in out.items()}


def texts_of(jsonl: Path, settings: Settings) -> list[str]:
    from ingest.sources.jsonl import load_analyses, prepare
    from mitra.store.chunk_vectors import EmbeddingPlan

    return [t for record in load_analyses(jsonl) for t in EmbeddingPlan.of(prepare(record, settings).chunks, settings).texts]


def encoder_floor(settings: Settings, texts: list[str], sample: int) -> dict:
    """Texts per second of the encoder alone on a sample of the run's texts."""
    import torch

    from mitra.models.embedders import SentenceTransformerEmbedder
    from mitra.models.threads import BatchThreads

    rng = np.random.default_rng(0)
    chosen = [texts[i] for i in rng.choice(len(texts), min(sample, len(texts)), replace=False)]
    cores = os.cpu_count() or 1
    out = {}
    for name, threads, onnx in (("torch, 1 thread", 1, False), (f"torch, {cores} threads", cores, False),
                                (f"ONNX Runtime, {cores} threads", cores, True)):
        embedder = SentenceTransformerEmbedder(settings.embedder_model, threads=threads,
                                               onnx_dir=settings.encoder_cache_dir if onnx else None)
        embedder.threads = BatchThreads(threads)
        lengths = embedder.lengths(chosen)
        order = sorted(range(len(chosen)), key=lambda i: -lengths[i])
        embedder.embed_passages(chosen[:16])  # warm: the graph loaded, the first allocations made
        start, cpu = time.perf_counter(), time.process_time()
        for i in range(0, len(order), 16):
            embedder.embed_passages([chosen[j] for j in order[i : i + 16]])
        wall = time.perf_counter() - start
        out[name] = {"texts_per_s": round(len(chosen) / wall, 1), "tokens_per_s": round(sum(lengths) / wall),
                     "cpu_per_wall": round((time.process_time() - cpu) / wall, 2)}
        torch.set_num_threads(cores)
    return {"sample_texts": len(chosen), "by_runtime": out,
            "best_texts_per_s": max(v["texts_per_s"] for v in out.values())}


def chroma_floor(rows: int, dim: int) -> dict:
    import chromadb

    with tempfile.TemporaryDirectory() as tmp:
        client = chromadb.PersistentClient(path=tmp)
        collection = client.create_collection("floor", embedding_function=None, metadata={"hnsw:space": "cosine"})
        vectors = np.random.default_rng(0).standard_normal((rows, dim)).astype(np.float32)
        text = "x" * 900  # a typical paragraph's length
        start = time.perf_counter()
        for i in range(0, rows, 5000):
            collection.upsert(ids=[str(j) for j in range(i, min(i + 5000, rows))], embeddings=vectors[i : i + 5000],
                              documents=[text] * len(vectors[i : i + 5000]),
                              metadatas=[{"doc_id": "d", "position": j} for j in range(i, min(i + 5000, rows))])
        return {"rows": rows, "rows_per_s": round(rows / (time.perf_counter() - start))}


def bm25_floor(texts: list[str]) -> dict:
    import bm25s

    from mitra.core.text import tokenize_many

    start = time.perf_counter()
    tokens = tokenize_many(texts)
    tokenized = time.perf_counter() - start
    retriever = bm25s.BM25()
    start = time.perf_counter()
    retriever.index(tokens, show_progress=False)
    return {"entries": len(texts), "tokenize_s": round(tokenized, 2), "index_s": round(time.perf_counter() - start, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=40)
    parser.add_argument("--embed-runtime", choices=["onnx", "torch"], default=None)
    parser.add_argument("--paragraph-vector", choices=["windows", "text"], default=None)
    parser.add_argument("--floor-sample", type=int, default=400, help="texts the encoder floor is measured on")
    parser.add_argument("--no-floors", action="store_true")
    args = parser.parse_args()
    root = shared_dir()
    if root is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR): this benchmark needs the LHCb corpus")
    from ingest.sources.jsonl import index_records, load_analyses
    from mitra.core.memory import keep_heap_flat
    from mitra.retrieval.pipeline import build_pipeline

    with tempfile.TemporaryDirectory() as tmp:
        jsonl = Path(tmp) / "papers.jsonl"
        write_jsonl(jsonl, (p.record(full_text=True).model_dump() for p in list(iter_papers(root))[: args.papers]))
        update = {"data_dir": Path(tmp) / "kb", "reranker": "none"}
        if args.embed_runtime:
            update["embed_runtime"] = args.embed_runtime
        if args.paragraph_vector:
            update["dense_paragraph_vector"] = args.paragraph_vector
        settings = Settings(_env_file=None).model_copy(update=update)
        keep_heap_flat()  # as `mitra index-jsonl` does
        start = time.perf_counter()
        kb = build_pipeline(settings, with_reranker=False).kb
        kb.embedder.embed_passages(["warm"])  # the ONNX graph exported or loaded: model loading, not indexing
        load_seconds = time.perf_counter() - start
        profiler = cProfile.Profile()
        start, cpu = time.perf_counter(), time.process_time()
        profiler.enable()
        report = index_records(kb, load_analyses(jsonl))
        profiler.disable()
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        stages = stage_seconds(pstats.Stats(profiler))
        texts = texts_of(jsonl, settings)
        passages = sum(a.chunks for a in report.indexed)
        out = {
            "benchmark": "index_profile", "machine": f"{platform.machine()}, {os.cpu_count()} cores",
            "load_average": [round(x, 2) for x in os.getloadavg()], "papers": args.papers,
            "embed_runtime": settings.embed_runtime, "paragraph_vector": settings.dense_paragraph_vector,
            "passages": passages, "texts_embedded": len(texts), "model_load_s": round(load_seconds, 1),
            "index_wall_s": round(wall, 1), "index_cpu_s": round(cpu, 1),
            "seconds_per_paper": round(wall / max(args.papers, 1), 2),
            "stages_s": stages, "other_s": round(wall - sum(v for k, v in stages.items() if k not in OVERLAPPING), 1),
        }
        if not args.no_floors:
            encoder = encoder_floor(settings, texts, args.floor_sample)
            out["floors"] = {
                "encoder": encoder,
                "embed_at_floor_s": round(len(texts) / encoder["best_texts_per_s"], 1),
                "chroma": chroma_floor(passages, kb.embedder.dim),
                "bm25s": bm25_floor(texts),
            }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
