"""How a replica that shares no disk gets one analysis generation's indexes: fetched as blobs
from PostgreSQL, or rebuilt from the passages the Chroma server stores.

Starts a throwaway PostgreSQL (Debian's binaries, as the tests do) and a ``chroma run``
server on 127.0.0.1, writes one generation of ``--chunks`` synthetic passages (Zipf-
distributed words, random unit vectors, ``--windows`` sentence-window vectors each) both
ways, then times, ``--repeats`` times each, from a cold replica cache:

* blob: ``BlobIndexFiles`` fetch + unpack + ``BM25Index.load`` + ``DenseIndex.load``
  (arrays read through);
* rebuild: Chroma ``get`` of texts, metadata and vectors + ``chunk_index`` (tokenizing and
  indexing every passage) + ``DenseIndex.build``. This still lacks the sentence windows'
  vectors, which Chroma does not hold: a real rebuild would also re-embed every window.

Prints JSON: median and each run's seconds for both ways, and the blobs' sizes.

    python benchmarks/index_load.py [--chunks 10000] [--windows 3] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

import numpy as np
from sqlalchemy import text

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mitra.core.settings import Settings  # noqa: E402
from mitra.core.types import Chunk  # noqa: E402
from mitra.store.bm25 import BM25Index  # noqa: E402
from mitra.store.dense import DenseIndex  # noqa: E402
from mitra.store.index_files import BlobIndexFiles  # noqa: E402
from mitra.store.chroma import chunk_metadata, connect_chroma  # noqa: E402
from mitra.store.index_cache import chunk_index  # noqa: E402
from mitra.store.knowledge_base import KnowledgeBase  # noqa: E402
from tests.fixtures.servers import PostgresServer, running_chroma  # noqa: E402

DIM = 384
NAME = "ft-bench-00000000-g1"


def _chunks(n: int, rng: np.random.Generator) -> list[Chunk]:
    words = [f"w{i}" for i in range(20000)]
    draws = np.minimum(rng.zipf(1.3, size=(n, 90)), len(words)) - 1
    return [Chunk(id=f"D@1#{i:05d}", analysis_id="BENCH", doc_id=f"D{i // 500}", version="1", position=i,
                  section=[f"s{i // 50}"], text=" ".join(words[j] for j in row)) for i, row in enumerate(draws)]


def _unit(rows: int, rng: np.random.Generator) -> np.ndarray:
    v = rng.standard_normal((rows, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10000)
    parser.add_argument("--windows", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="mitra-index-load-"))
    pg = PostgresServer()  # the tests' throwaway server: this repo's only way to start one
    pg.start()
    try:
        with running_chroma(tmp / "chroma") as chroma:
            settings = Settings(_env_file=None, data_dir=tmp / "writer", database_url=pg.url(),
                                chroma_host="127.0.0.1", chroma_port=chroma.port)
            print(json.dumps(measure(settings, tmp, args), indent=2))
    finally:
        pg.stop()
        pg.remove()
        shutil.rmtree(tmp, ignore_errors=True)


def measure(settings: Settings, tmp: Path, args: argparse.Namespace) -> dict:
    rng = np.random.default_rng(0)
    client = connect_chroma(settings)
    chunks = _chunks(args.chunks, rng)
    vectors = _unit(len(chunks), rng)
    collection = client.get_or_create_collection(NAME, configuration={"hnsw": {"space": "cosine"}},
                                                 embedding_function=None)
    for start in range(0, len(chunks), 1000):
        batch = chunks[start : start + 1000]
        collection.upsert(ids=[c.id for c in batch], embeddings=vectors[start : start + 1000],
                          documents=[c.text for c in batch], metadatas=[chunk_metadata(c) for c in batch])
    writer = BlobIndexFiles(settings)
    writer.save("bm25", NAME, chunk_index(chunks).write)
    windows = [_unit(args.windows, rng) for _ in chunks]
    writer.save("dense", NAME, DenseIndex.build([c.id for c in chunks], vectors, windows, DIM).write)

    def blob(run: int) -> None:
        files = BlobIndexFiles(settings.model_copy(update={"data_dir": tmp / f"replica-{run}"}))
        bm25 = BM25Index.load(files.directory("bm25", NAME))
        dense = DenseIndex.load(files.directory("dense", NAME))
        assert len(bm25) == len(dense) == len(chunks) and float(dense.windows.sum()) != 0.0

    def rebuild(run: int) -> None:
        got = connect_chroma(settings).get_collection(NAME, embedding_function=None)
        again = KnowledgeBase._all_chunks(got)
        bm25 = chunk_index(again)
        stored = got.get(include=["embeddings"])
        dense = DenseIndex.build(stored["ids"], np.asarray(stored["embeddings"], np.float32),
                                 [np.zeros((0, DIM), np.float32)] * len(stored["ids"]), DIM)
        assert len(bm25) == len(dense) == len(chunks)

    timings = {}
    for way, load in (("blob", blob), ("rebuild_from_chroma", rebuild)):
        runs = []
        for run in range(args.repeats):
            started = time.perf_counter()
            load(run)
            runs.append(round(time.perf_counter() - started, 3))
        timings[way] = {"median_s": median(runs), "runs_s": runs}
    with writer.engine.connect() as db:
        sizes = dict(db.execute(text("SELECT kind, length(data) FROM index_blobs")).all())
    return {"chunks": len(chunks), "window_vectors": len(chunks) * args.windows, "dim": DIM, **timings,
            "blob_bytes": sizes, "rebuild_lacks": "sentence-window vectors (Chroma does not store them)"}


if __name__ == "__main__":
    main()
