"""A large talk through `mitra ingest files`: where its time goes, per slide and per passage.

Builds a talk of ``--slides`` slides (each a title, two sentences, a 4x3 table and speaker
notes, as ``ingest_types.py``; kept in ``--work-dir`` for the next run, since python-pptx
takes minutes to write 3,000 slides) and measures, in this process:

* reading it (python-pptx, ``read_pptx``) and chunking it, per slide (CPU and wall);
* embedding its passages with torch's default thread count (one per core) and with the
  count measured per batch (``embed_threads`` 0), ``--rounds`` rounds of ``--sample``
  passages each, interleaved, per passage (median and bootstrap 95 % interval);

then the whole `mitra ingest files` of the talk in a fresh process (wall time), or
``--ingest-rounds`` of them interleaved with the same run of the code in ``--baseline``
(another checkout, e.g. ``git archive 8f18629 | tar -x -C /tmp/base``). Prints JSON with
the machine's load average, since the cores may be shared.

    python benchmarks/large_talk.py [--slides 3000] [--sample 128] [--rounds 3] [--work-dir DIR]
        [--baseline DIR --ingest-rounds 3] [--no-ingest]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.ingest_types import write_talk  # noqa: E402
from benchmarks.intervals import median_ci  # noqa: E402
from mitra.core.settings import Settings  # noqa: E402
from mitra.core.types import Document  # noqa: E402


def timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def stages(deck: Path, slides: int, sample: int, rounds: int) -> dict:
    from ingest.chunk.from_blocks import chunk_document
    from ingest.extract.office import read_pptx
    from mitra.models.embedders import SentenceTransformerEmbedder
    from mitra.models.threads import BatchThreads
    from mitra.store.chunk_vectors import EmbeddingPlan

    settings = Settings()
    extracted, read_wall, read_cpu = timed(lambda: read_pptx(deck, settings))
    document = Document(analysis_id="TALK", doc_id=deck.stem, sha256="-")
    chunked, chunk_wall, chunk_cpu = timed(lambda: chunk_document(extracted, document, settings))
    texts = EmbeddingPlan.of(chunked.chunks, settings).texts
    embedder = SentenceTransformerEmbedder(settings.embedder_model)
    batch = settings.embed_batch_size
    per_passage: dict[str, list[float]] = {"all cores": [], "measured per batch": []}
    for round_ in range(rounds):
        start = round_ * sample % max(len(texts) - sample, 1)
        for name, fixed in (("all cores", os.cpu_count() or 1), ("measured per batch", 0)):
            embedder.threads = BatchThreads(fixed)
            _, wall, _ = timed(lambda: [embedder.embed_passages(texts[i:i + batch])
                                        for i in range(start, start + sample, batch)])
            per_passage[name].append(1000 * wall / sample)
    return {
        "passages": len(texts),
        "read_ms_per_slide": {"wall": round(1000 * read_wall / slides, 2), "cpu": round(1000 * read_cpu / slides, 2)},
        "chunk_ms_per_slide": {"wall": round(1000 * chunk_wall / slides, 2), "cpu": round(1000 * chunk_cpu / slides, 2)},
        "embed_ms_per_passage": {name: {"median": round(float(np.median(v)), 1), "ci95": median_ci(v),
                                        "rounds": [round(x, 1) for x in v]} for name, v in per_passage.items()},
    }


def ingest(deck: Path, work: Path, code: Path = REPO) -> float:
    """Seconds `mitra ingest files` of the checkout ``code`` takes to index the talk afresh."""
    env = {**os.environ, "MITRA_DATA_DIR": str(work / f"kb-{time.time_ns()}"), "MITRA_RERANKER": "none",
           "PYTHONPATH": str(code)}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mitra", "ingest", "files", str(deck), "--analysis", "TALK", "--json"],
                   env=env, cwd=code, capture_output=True, text=True, check=True)
    return time.perf_counter() - start


def ingests(deck: Path, work: Path, slides: int, rounds: int, baseline: Path | None) -> dict:
    runs: dict[str, list[float]] = {"this code": []} | ({"baseline": []} if baseline else {})
    for _ in range(rounds):
        runs["this code"].append(ingest(deck, work))
        if baseline:
            runs["baseline"].append(ingest(deck, work, baseline))
    return {name: {"seconds": {"median": round(float(np.median(v)), 1), "ci95": median_ci(v),
                               "runs": [round(x, 1) for x in v]},
                   "ms_per_slide": round(1000 * float(np.median(v)) / slides, 1)} for name, v in runs.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slides", type=int, default=3000)
    parser.add_argument("--sample", type=int, default=128, help="passages embedded per round and thread setting")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work-dir", type=Path)
    parser.add_argument("--no-ingest", action="store_true", help="skip the whole `mitra ingest files` run")
    parser.add_argument("--ingest-rounds", type=int, default=1)
    parser.add_argument("--baseline", type=Path, help="a checkout whose `mitra ingest files` is timed alongside")
    args = parser.parse_args()
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="mitra-large-talk-"))
    work.mkdir(parents=True, exist_ok=True)
    deck = work / f"talk-{args.slides}.pptx"
    if not deck.exists():
        write_talk(deck, args.slides)
    report = {"slides": args.slides, "cores": os.cpu_count(), "load_average": round(os.getloadavg()[0], 1),
              **stages(deck, args.slides, args.sample, args.rounds)}
    if not args.no_ingest:
        report["ingest_files"] = ingests(deck, work, args.slides, args.ingest_rounds, args.baseline)
        report["load_average_after"] = round(os.getloadavg()[0], 1)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
