"""Ingestion on Ray against the single-process path, on real ATLAS/CMS PDFs; prints JSON.

The same PDFs (text layer) are ingested into a fresh data dir each time by
``ingest_files``: in this process, then through a local Ray with 1 and 2 workers
(``ray_workers``). Per run: wall time and pages/s, and the time the writer (this
process) spent writing (``add_document_version`` + ``sync_abstracts``: Chroma upserts,
BM25, dense index, the routing vector), the part that does not scale with workers.
The single-process run also splits its time between extract + chunk and embed + write.
Per worker count, the start-up of a run (the actors started, the encoder loaded in
each) is timed on its own, and the steady rate is the pages over the rest of the wall.

The projection for a cluster: each worker at the steady rate measured with one, times
the workers, capped by the writer's rate.

Usage: nice -n 5 python benchmarks/ray_ingest.py [--pdf-dir DIR] [--files N] [--workers 1,2]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import platform
import tempfile
import time
from pathlib import Path

import ingest.pipeline
from benchmarks.corpora import shared_dir
from ingest.pipeline import ingest_files
from ingest.ray_stages import EmbedStage, StagedVersion
from ingest.stages import VersionJob
from mitra.core.settings import Settings
from mitra.core.types import Analysis, Document
from mitra.models.embedders import load_embedder
from mitra.store.knowledge_base import KnowledgeBase

ANALYSIS = Analysis(id="BENCH-RAY", title="Ray ingestion benchmark")
CLUSTER_WORKERS = (8, 32, 128)
MILLION_PAGES = 1_000_000


class TimedKnowledgeBase(KnowledgeBase):
    """The knowledge base, timing its writer's work."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.write_s = 0.0

    def add_document_version(self, *args, **kwargs):
        start = time.perf_counter()
        super().add_document_version(*args, **kwargs)
        self.write_s += time.perf_counter() - start

    def sync_abstracts(self):
        start = time.perf_counter()
        super().sync_abstracts()
        self.write_s += time.perf_counter() - start


def timed_prepare() -> dict[str, float]:
    """Time spent in ``prepare_version`` (extract + chunk) from now on."""
    spent = {"s": 0.0}
    prepare = ingest.pipeline.prepare_version

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return prepare(*args, **kwargs)
        finally:
            spent["s"] += time.perf_counter() - start

    ingest.pipeline.prepare_version = timed
    return spent


def run(settings: Settings, embedder, files: list[Path]) -> dict:
    kb = TimedKnowledgeBase(settings, embedder)
    start = time.perf_counter()
    summary = ingest_files(kb, settings, files, ANALYSIS)
    wall = time.perf_counter() - start
    if summary.failed:
        raise SystemExit(f"failed: {summary.failed}")
    return {
        "files": summary.versions, "pages": summary.pages, "chunks": summary.chunks, "wall_s": round(wall, 1),
        "pages_per_s": round(summary.pages / wall, 3), "writer_s": round(kb.write_s, 1),
        "writer_pages_per_s": round(summary.pages / kb.write_s, 2),
    }


def start_up_s(settings: Settings, workers: int, file: Path) -> float:
    """The fixed cost of a Ray run with ``workers`` actors: each started, its encoder
    loaded, an empty item through it."""
    import ray

    job = VersionJob(file, ANALYSIS, Document(analysis_id=ANALYSIS.id, doc_id=file.stem))
    items = [{"item": pickle.dumps(StagedVersion(i, job))} for i in range(workers)]
    start = time.perf_counter()
    ray.data.from_items(items, override_num_blocks=workers).map_batches(
        EmbedStage, batch_size=1, compute=ray.data.ActorPoolStrategy(size=workers),
        fn_constructor_kwargs={"settings": settings}).take_all()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdf-dir", type=Path, default=None, help="default: ../shared/data/hep_pdfs")
    parser.add_argument("--files", type=int, default=4, help="the first N PDFs by name")
    parser.add_argument("--workers", default="1,2", help="Ray worker counts to run")
    args = parser.parse_args()
    root = args.pdf_dir or (shared_dir() / "data" / "hep_pdfs" if shared_dir() else None)
    if root is None or not root.is_dir():
        raise SystemExit("no PDF directory: pass --pdf-dir or set MITRA_SHARED_DIR")
    files = sorted(root.glob("*.pdf"))[: args.files]
    load_before = os.getloadavg()
    out = {"machine": f"{platform.machine()}, {os.cpu_count()} cores", "files": [f.name for f in files]}
    with tempfile.TemporaryDirectory() as tmp:
        base = Settings(data_dir=Path(tmp) / "one", reranker="none")
        embedder = load_embedder(base)
        prepare = timed_prepare()
        out["single_process"] = run(base, embedder, files)
        out["single_process"]["extract_chunk_s"] = round(prepare["s"], 1)
        out["single_process"]["embed_write_s"] = round(out["single_process"]["wall_s"] - prepare["s"], 1)

        import ray

        started = time.perf_counter()
        ray.init(num_cpus=os.cpu_count(), include_dashboard=False)
        out["ray_start_s"] = round(time.perf_counter() - started, 1)
        for workers in map(int, args.workers.split(",")):
            settings = base.model_copy(update={"data_dir": Path(tmp) / f"ray{workers}", "ray_address": "local",
                                               "ray_workers": workers})
            result = run(settings, embedder, files)
            result["start_up_s"] = round(start_up_s(settings, workers, files[0]), 1)
            result["steady_pages_per_s"] = round(result["pages"] / (result["wall_s"] - result["start_up_s"]), 3)
            out[f"ray_{workers}_workers"] = result
    out["load_average"] = {"before": [round(x, 2) for x in load_before],
                           "after": [round(x, 2) for x in os.getloadavg()]}
    per_worker = out["ray_1_workers"]["steady_pages_per_s"]
    # The writer's rate where it shared the cores least with the workers.
    writer = max(r["writer_pages_per_s"] for k, r in out.items() if k.startswith("ray_") and isinstance(r, dict))
    out["projection"] = {
        "per_worker_pages_per_s": per_worker, "writer_pages_per_s": writer,
        **{f"{w}_workers": {"pages_per_s": round(min(w * per_worker, writer), 1),
                            "hours_per_million_pages": round(MILLION_PAGES / min(w * per_worker, writer) / 3600, 1)}
           for w in CLUSTER_WORKERS},
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
