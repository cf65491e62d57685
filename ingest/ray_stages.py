"""Extraction, OCR and embedding as Ray Data stages; this process stays the one writer.

``index_versions`` (``ingest.pipeline``, the local runner) comes here when ``ray_address`` is set. This
process, which holds the data dir's writer lock, admits each version (skipping those
already indexed) and hands the files to two ``map_batches`` stages, one file per batch:

* ``_prepare``: extract (OCR where a page needs it) and chunk, as tasks;
* ``EmbedStage``: an actor that loads the encoder once and embeds each version's
  passages and their sentence windows, the texts the store embeds; on a GPU each where
  the cluster has GPUs. On a CPU-only cluster Ray fuses the two stages into one actor
  per worker.

It writes what comes back in input order through the writer's ``add_document_version``
with an embedder that answers with the workers' vectors, so the stores end as the
single-process path leaves them. Every node reads the files at the same path (a shared
filesystem) and runs the same MITRA install.
"""

from __future__ import annotations

import pickle
import socket
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np

from ingest.extract.base import ExtractionError
from ingest.stages import (
    K, IngestSummary, PageProgress, PreparedVersion, VersionJob, admit_version, prepare_version, write_version,
)
from ingest.sources.jsonl import LowCoverage
from mitra.core.errors import MitraError
from mitra.core.memory import release_freed
from mitra.core.settings import Settings
from mitra.core.types import Analysis, Chunk, Document
from mitra.models.embedders import Embedder, load_embedder
from mitra.store.chunk_vectors import EmbeddingPlan
from mitra.store.writer import KnowledgeWriter


@dataclass
class StagedVersion:
    """One version through the stages: the job in, its chunks (or why it failed) and the
    vectors of its ``passage_texts`` out. Stages pass it pickled, as Arrow bytes (Arrow has
    no type for it, and Ray's own fallback to pickling warns on every batch)."""

    index: int
    job: VersionJob
    prepared: PreparedVersion | None = None
    error: str | None = None
    vectors: np.ndarray | None = None


def passage_texts(chunks: list[Chunk], settings: Settings) -> list[str]:
    """What the store's writer embeds for these chunks (``EmbeddingPlan``)."""
    return EmbeddingPlan.of(chunks, settings).texts


class PrecomputedEmbedder:
    """The writer's embedder for a version embedded elsewhere: the given vectors for the
    texts they were computed for, ``encoder`` for any other text (the analysis's routing
    text, which depends on the catalog only the writer reads)."""

    def __init__(self, encoder: Embedder, vectors: dict[str, np.ndarray]):
        self.encoder, self.vectors = encoder, vectors
        self.name, self.dim = encoder.name, encoder.dim

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.encoder.embed_queries(texts)

    def lengths(self, texts: list[str]) -> list[int]:
        return self.encoder.lengths(texts)

    def embed_passages(self, texts: list[str], show_progress: bool = False) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        known = self.vectors
        if missing:
            known = {**known, **dict(zip(missing, self.encoder.embed_passages(missing)))}
        return np.array([known[t] for t in texts], np.float32).reshape(len(texts), self.dim)


@contextmanager
def _embedding_from(kb: KnowledgeWriter, texts: list[str], vectors: np.ndarray) -> Iterator[None]:
    encoder = kb.embedder
    kb.embedder = PrecomputedEmbedder(encoder, dict(zip(texts, vectors)))
    try:
        yield
    finally:
        kb.embedder = encoder


def _prepare(batch: dict[str, np.ndarray], settings: Settings, force_ocr: bool,
             allow_low_coverage: bool) -> dict[str, list[bytes]]:
    """Stage 1: extract and chunk; a file that cannot be read, or would lose its text,
    carries its error on to the writer, which reports it as the single-process path does."""
    staged = [pickle.loads(b) for b in batch["item"]]
    for item in staged:
        try:
            item.prepared = prepare_version(settings, item.job, force_ocr=force_ocr,
                                            allow_low_coverage=allow_low_coverage)
        except (ExtractionError, LowCoverage) as error:
            item.error = str(error)
    return {"item": [pickle.dumps(item) for item in staged]}


class EmbedStage:
    """Stage 2: an actor holding the encoder, loaded once."""

    def __init__(self, settings: Settings):
        self.embedder = load_embedder(settings)
        self.settings = settings

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, list[bytes]]:
        staged = [pickle.loads(b) for b in batch["item"]]
        for item in staged:
            if item.prepared is not None:
                item.vectors = self.embedder.embed_passages(passage_texts(item.prepared.chunks, self.settings))
        release_freed()  # as the store's writer does: an actor lives for the whole run
        return {"item": [pickle.dumps(item) for item in staged]}


class RayUnreachable(MitraError):
    """The Ray cluster named by ``--ray`` / ``MITRA_RAY_ADDRESS`` does not answer."""


def check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """A ``host:port`` or ``ray://host:port`` address must accept a connection first:
    ``ray.init`` retries an unreachable one for minutes before it fails."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # "auto", "local": Ray resolves those itself, and fails fast
    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as error:
        raise RayUnreachable(f"no Ray cluster answers at {address} ({error.strerror or error}): "
                             "start it with `ray start --head`, or fix --ray / MITRA_RAY_ADDRESS") from None


def connect(address: str) -> None:
    """Join the Ray cluster at ``address`` (``local``: start one on this machine's
    cores), unless this process has joined one already."""
    import ray

    if address != "local":
        check_reachable(address)  # also when joined already: a wrong address is still wrong
    if ray.is_initialized():
        return
    if address == "local":
        ray.init(include_dashboard=False)
    else:
        ray.init(address=address)


def run_stages(settings: Settings, jobs: list[VersionJob], *, force_ocr: bool = False,
               allow_low_coverage: bool = False) -> Iterator[StagedVersion]:
    """The jobs through the two stages on the cluster of ``settings.ray_address``,
    streamed back in the jobs' order."""
    import ray

    connect(settings.ray_address or "local")
    resources = ray.cluster_resources()
    cpus, gpus = int(resources.get("CPU", 1)), int(resources.get("GPU", 0))
    extractors = min(settings.ray_workers or cpus, len(jobs))
    embedders = min(settings.ray_workers or gpus or cpus, len(jobs))
    # One block per file, so that every worker gets files from the start.
    dataset = ray.data.from_items([{"item": pickle.dumps(StagedVersion(i, job))} for i, job in enumerate(jobs)],
                                  override_num_blocks=len(jobs))
    # Written in the order given, as in one process: where no abstract was given, the
    # analysis keeps the one of the last version written.
    dataset.context.execution_options.preserve_order = True
    dataset.context.enable_progress_bars = False  # the CLI shows its own, a file at a time
    dataset = dataset.map_batches(
        _prepare, batch_size=1, compute=ray.data.TaskPoolStrategy(size=extractors),
        fn_kwargs={"settings": settings, "force_ocr": force_ocr, "allow_low_coverage": allow_low_coverage},
    ).map_batches(
        EmbedStage, batch_size=1, compute=ray.data.ActorPoolStrategy(size=embedders), num_gpus=1 if gpus else 0,
        fn_constructor_kwargs={"settings": settings.model_copy(update={"device": "cuda"}) if gpus else settings},
    )
    for row in dataset.iter_rows():
        yield pickle.loads(row["item"])


def index_versions_on_ray(
    kb: KnowledgeWriter,
    settings: Settings,
    versions: Iterable[tuple[K, Path, Analysis, Document]],
    summary: IngestSummary,
    *,
    force_ocr: bool = False,
    progress: Callable[[K], PageProgress | None] | None = None,
    allow_low_coverage: bool = False,
) -> Iterator[tuple[K, str | None]]:
    """``ingest.pipeline.index_versions`` with the extraction and embedding on Ray: the
    same yields, each page callback told a version's pages once it is written."""
    keys: list[K] = []
    jobs: list[VersionJob] = []
    admitted: set[tuple[str, str, str, str | None]] = set()
    for key, path, analysis, document in versions:
        try:
            job = admit_version(kb, settings, path, analysis, document, summary)
        except ExtractionError as error:
            yield key, str(error)
            continue
        if job is None:
            yield key, None
            continue
        same = (job.analysis.id, job.document.doc_id, job.document.version, job.document.sha256)
        if same in admitted:  # the single-process path skips a file it has just written
            summary.skipped += 1
            yield key, None
            continue
        admitted.add(same)
        keys.append(key)
        jobs.append(job)
    if not jobs:
        return
    for item in run_stages(settings, jobs, force_ocr=force_ocr, allow_low_coverage=allow_low_coverage):
        key = keys[item.index]
        if item.prepared is None:
            yield key, item.error
            continue
        try:
            with _embedding_from(kb, passage_texts(item.prepared.chunks, settings), item.vectors):
                write_version(kb, item.prepared, summary)
        except ExtractionError as error:  # its file changed while it was read
            yield key, str(error)
            continue
        page = progress(key) if progress else None
        if page:
            page(item.prepared.pages, item.prepared.pages)
        yield key, None
