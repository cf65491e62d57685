"""The two-tier knowledge base: Chroma vectors + BM25 + the catalog.

Tier 1 is one ``abstracts`` collection (an entry per analysis); tier 2 is one
full-text collection per analysis. Embeddings are always computed here, never by
Chroma's default embedding function (it would download a model).

Consistency rules:
* ``replace_analysis`` writes a new *generation* (collection + BM25) and its routing
  entry, then switches to it in one catalog commit, so readers see the old or the new
  analysis, never a mix, and a committed analysis is always routable too. Replaced
  generations and leftovers of an interrupted run are collected by the next writer
  (``collect_garbage``, under the data dir's writer lock).
* ``add_document_version`` is idempotent (deterministic chunk ids, upserts), so a
  killed ingestion run re-run from the start converges to the same stores.
* The routing tier follows the catalog: vectors written with each analysis, BM25
  rebuilt from the catalog whenever its routing version moved on.

This module holds the writes and the tier-2 reads; ``KnowledgeBase`` mixes in the Chroma
collections (``mitra.store.chroma``), the index files' caches (``mitra.store.index_cache``)
and the routing tier (``mitra.store.routing_tier``), which share the state its
``__init__`` sets.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from sqlalchemy.engine import make_url

from mitra.core import faults
from mitra.store.filters import SearchFilter
from mitra.store.term_scores import section_scores_without
from mitra.store.bm25 import BM25Index
from mitra.store.dense import DenseIndex
from mitra.store.index_files import open_index_files
from mitra.store.passages import read_passages
from mitra.store.state import cluster_form
from mitra.store.catalog import AnalysisRecord, Catalog, DocumentRecord
from mitra.store.chunk_vectors import EmbeddingPlan
from mitra.store.chroma import (
    CHROMA_BATCH, ChromaCollections, chunk_from_row, chunk_metadata, collection_name, connect_chroma, windows_name,
)
from mitra.store.index_cache import IndexCaches
from mitra.store.evidence import EvidenceView
from mitra.store.evidence_files import EvidenceFiles
from mitra.store.routing import AbstractVectors
from mitra.store.routing_tier import CatalogView, RoutingTier
from mitra.store.versions import current_versions, reading_order
from mitra.store.writer import Progress
from mitra.models.embedders import Embedder
from mitra.core.errors import MitraError
from mitra.core.memory import release_freed
from mitra.core.settings import Settings
from mitra.core.types import Analysis, Chunk, Document



class IndexMismatch(MitraError):
    """The stores were built with another embedder than the configured one."""


class UnknownAnalysis(MitraError, KeyError):
    def __init__(self, analysis_id: str):
        super().__init__(analysis_id)
        self.analysis_id = analysis_id

    def __str__(self) -> str:
        return f"no analysis '{self.analysis_id}' in the knowledge base (see `mitra stats`)"


class KnowledgeBase(ChromaCollections, IndexCaches, RoutingTier):
    """The two-tier store of one data dir, and the only writer of it: the abstracts
    collection (tier 1), one full-text collection and BM25 index per analysis generation
    (tier 2), and the catalog that says which generation is current. The index files live
    where ``mitra.store.index_files`` says: the data dir, or PostgreSQL in the cluster form,
    where every replica reaches them and caches them by stamp. Reads need no
    embedder; writes do, and refuse one that differs from the one the stores were built with."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None):
        self.settings = settings
        self.embedder = embedder
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.catalog = Catalog.open(settings)
        self.client = connect_chroma(settings)
        self._filled = 0  # full-text collections written through this client
        self.files = open_index_files(settings)  # the data dir's, or (cluster form) PostgreSQL's
        # What reads keep loaded, per full-text collection, for the reader_cache_analyses
        # most recently read ones (tier 1's indexes are kept always): a long-running app
        # serves thousands of analyses. Changed under _cache_lock only, by threads of one app.
        self._bm25: dict[tuple[str, str | int], BM25Index] = {}
        self._dense: dict[str, tuple[str, BM25Index, DenseIndex, np.ndarray]] = {}
        self._handles: dict[str, object] = {}  # full-text collections read through this client
        self._recent: OrderedDict[str, None] = OrderedDict()
        self._cache_lock = threading.Lock()
        # Tier 1's read caches, each valid for one routing version (see ``_catalog_view``).
        self._current: CatalogView | None = None
        self._abstracts: tuple[str, AbstractVectors] | None = None
        self._evidence: tuple[tuple[object, str], EvidenceView] | None = None
        self._evidence_files = EvidenceFiles(self.files)
        self._pinned = threading.local()  # each thread's generations (``reading``) and catalog version (``routing``)
        if embedder is not None:
            self._check_embedder(embedder)

    # ---------------------------------------------------------------- helpers
    def _check_embedder(self, embedder: Embedder) -> None:
        built_with = self.catalog.get_meta("embedder")
        if built_with is None:
            return
        if built_with != embedder.name:
            raise IndexMismatch(
                f"the knowledge base in {self.settings.data_dir} was built with {built_with}, "
                f"but the configured embedder is {embedder.name}: re-index, or configure the "
                "embedder it was built with"
            )

    def _require_embedder(self) -> Embedder:
        if self.embedder is None:
            raise RuntimeError("this KnowledgeBase was opened without an embedder")
        return self.embedder

    def _claim_embedder(self) -> None:
        embedder = self._require_embedder()
        self._check_embedder(embedder)
        self.catalog.set_meta("embedder", embedder.name)
        self.catalog.set_meta("dim", str(embedder.dim))

    def _record(self, analysis_id: str) -> AnalysisRecord:
        record = getattr(self._pinned, "records", {}).get(analysis_id) or self.catalog.analysis(analysis_id)
        if record is None:
            raise UnknownAnalysis(analysis_id)
        return record

    @contextmanager
    def reading(self, analysis_id: str) -> Iterator[None]:
        """Every read of ``analysis_id`` in this block (this thread) sees the generation
        current when it began: one search's stages read one generation, whatever a writer
        swaps in meanwhile, and the catalog is asked once, not per stage (six catalog
        reads took 6.8 ms of a 37 ms search at 100k passages)."""
        records = self._pinned.__dict__.setdefault("records", {})
        if analysis_id in records:  # nested: the outer block's generation
            yield
            return
        records[analysis_id] = self._record(analysis_id)
        try:
            yield
        finally:
            del records[analysis_id]

    def _embed(self, texts: list[str]) -> np.ndarray:
        """Passage vectors, ``embed_batch_size`` at a time, longest first in tokens (so a
        batch pads little), with the heap's freed pages handed back at the end:
        glibc keeps what the batches' activations freed, and with batches of every length
        that kept memory grew ~120 MB in 200 batches. (Once per call, not per batch: a trim
        costs ~0.4 ms, 6 % of an index build when it ran after every batch.)"""
        embedder = self._require_embedder()
        lengths = embedder.lengths(texts)
        order = sorted(range(len(texts)), key=lambda i: -lengths[i])
        vectors = np.zeros((len(texts), embedder.dim), np.float32)
        size = self.settings.embed_batch_size
        for start in range(0, len(order), size):
            batch = order[start : start + size]
            vectors[batch] = embedder.embed_passages([texts[i] for i in batch])
        release_freed()
        return vectors

    def _write_chunks(self, collection, chunks: list[Chunk], progress: Progress | None) -> None:
        """Chunks with their vectors into Chroma, and those vectors with their sentence
        windows' into the generation's dense index (``mitra.store.dense``), merged into what
        it held: upsert semantics, as Chroma's. What is embedded: ``EmbeddingPlan`` (Ray's
        embedding stage embeds the same)."""
        parts = self._dense_index(collection.name).parts()
        for start in range(0, len(chunks), CHROMA_BATCH):
            batch = chunks[start : start + CHROMA_BATCH]
            plan = EmbeddingPlan.of(batch, self.settings)
            vectors, windows = plan.vectors(self._embed(plan.texts))
            collection.upsert(
                ids=[c.id for c in batch],
                embeddings=vectors,
                documents=[c.text for c in batch],
                metadatas=[chunk_metadata(c) for c in batch],
            )
            parts.update(zip([c.id for c in batch], zip(vectors, windows)))
            if progress:
                progress(len(batch))
        ids = list(parts)
        self._save_dense(collection.name, parts, ids)

    def _rebuild_bm25(self, name: str, collection) -> None:
        """BM25 from the collection's chunks, and the dense index cut to them (chunks deleted
        from the collection leave it too)."""
        chunks = self._all_chunks(collection)
        self._save_text_indexes(name, chunks)
        parts = self._dense_index(name).parts()
        ids = [c.id for c in chunks if c.id in parts]
        self._save_dense(name, parts, ids)

    # ---------------------------------------------------------------- writes
    def replace_analysis(
        self,
        analysis: Analysis,
        documents: list[Document],
        chunks: list[Chunk],
        progress: Progress | None = None,
    ) -> None:
        """Atomically replace everything indexed for ``analysis``: a new generation of its
        full text and its routing entry are written first, then one catalog commit makes
        the analysis searchable and routable together."""
        self._claim_embedder()
        latest = current_versions(documents)
        chunks = [c.model_copy(update={"superseded": latest.get(c.doc_id) != c.version}) for c in chunks]
        old = self.catalog.analysis(analysis.id)
        generation = int(old.collection.rsplit("-g", 1)[1]) + 1 if old else 1
        name = collection_name(analysis.id, generation)
        self._drop_collection(name)  # leftovers of an interrupted attempt at this generation
        if chunks:  # abstract-only analyses get their collection lazily, on first use
            self._write_chunks(self._to_fill(name), chunks, progress)
        self._save_text_indexes(name, chunks)
        self._route([analysis])
        faults.reached("index.written")
        counts: dict[tuple[str, str], int] = {}
        for c in chunks:
            counts[(c.doc_id, c.version)] = counts.get((c.doc_id, c.version), 0) + 1
        with self.catalog.transaction() as db:
            self.catalog.put_analysis(db, analysis, name)
            self.catalog.clear_documents(db, analysis.id)
            for d in documents:
                self.catalog.put_document(db, d, counts.get((d.doc_id, d.version), 0), latest[d.doc_id] != d.version)
        faults.reached("index.committed")
        # The old generation stays until the next writer's collect_garbage: a reader that
        # read the catalog just before this commit can still finish its query on it.

    def add_document_version(
        self,
        analysis: Analysis,
        document: Document,
        chunks: list[Chunk],
        progress: Progress | None = None,
    ) -> None:
        """Index one document version into the analysis's collection. The newest
        version of each document is current; older ones are kept, marked superseded."""
        self._claim_embedder()
        record = self.catalog.analysis(analysis.id)
        name = record.collection if record else collection_name(analysis.id, 1)
        if record and not analysis.abstract:
            analysis = analysis.model_copy(update={"abstract": record.analysis.abstract})
        collection = self._to_fill(name)
        known = [r.document for r in self.catalog.documents(analysis.id) if r.document.doc_id == document.doc_id]
        current = current_versions(known + [document])[document.doc_id]
        chunks = [c.model_copy(update={"superseded": current != document.version}) for c in chunks]
        stale = collection.get(where={"$and": [{"doc_id": document.doc_id}, {"version": document.version}]})["ids"]
        self._write_chunks(collection, chunks, progress)
        gone = sorted(set(stale) - {c.id for c in chunks})
        if gone:
            collection.delete(ids=gone)
            self._collection(windows_name(name)).delete(where={"chunk": {"$in": gone}})
        others = collection.get(where={"doc_id": document.doc_id}, include=["metadatas"])
        updates = [
            (i, {**m, "superseded": m["version"] != current})
            for i, m in zip(others["ids"], others["metadatas"])
            if m["superseded"] != (m["version"] != current)
        ]
        if updates:
            collection.update(ids=[i for i, _ in updates], metadatas=[m for _, m in updates])
        self._rebuild_bm25(name, collection)
        self._route([analysis])
        with self.catalog.transaction() as db:
            self.catalog.put_analysis(db, analysis, name)
            self.catalog.put_document(db, document, len(chunks), current != document.version)
            self.catalog.set_superseded(db, analysis.id, document.doc_id, current)
        faults.reached("index.committed")

    def _drop_collection(self, name: str) -> None:
        """A full-text collection, its BM25 and dense indexes (and its windows collection, where
        an older version wrote one)."""
        from chromadb.errors import NotFoundError

        for collection in (name, windows_name(name)):
            try:
                self.client.delete_collection(collection)  # one call, not a lookup and a delete
            except NotFoundError:
                pass
        with self._cache_lock:
            self._handles.pop(name, None)
        for kind in ("bm25", "dense", "passages", "brief"):
            self.files.delete(kind, name)

    def collect_garbage(self) -> list[str]:
        """Delete full-text collections no catalog entry points to (an interrupted re-index),
        and what an interrupted save of index files left."""
        self.files.sweep()
        live = {r.collection for r in self.catalog.analyses()}
        # A windows collection is named for its paragraphs' one, and goes with it.
        names = {c.name.removesuffix("-w") for c in self.client.list_collections() if c.name.startswith("ft-")}
        orphans = sorted(names - live)
        for name in orphans:
            self._drop_collection(name)
        return orphans

    # ---------------------------------------------------------------- reads
    def analyses(self) -> list[Analysis]:
        return list(self._catalog_view().analyses)

    def get_analysis(self, analysis_id: str) -> Analysis | None:
        pinned = getattr(self._pinned, "view", None)
        if pinned is not None:  # inside ``routing``
            return pinned.by_id.get(analysis_id)
        record = self.catalog.analysis(analysis_id)
        return record.analysis if record else None

    def documents(self, analysis_id: str) -> list[DocumentRecord]:
        return self.catalog.documents(analysis_id)

    def brief_json(self, analysis_id: str) -> str | None:
        """The brief kept with the analysis's current generation (``mitra.brief``), or None."""
        path = self.files.directory("brief", self._record(analysis_id).collection) / "brief.json"
        return path.read_text() if path.is_file() else None

    def save_brief(self, analysis_id: str, brief: str) -> None:
        def write(directory) -> None:
            directory.mkdir(parents=True, exist_ok=True)
            (directory / "brief.json").write_text(brief)

        self.files.save("brief", self._record(analysis_id).collection, write)

    def is_indexed(self, document: Document) -> bool:
        """True when this exact document version (same sha256) is already indexed."""
        return any(
            r.document.version == document.version and r.document.sha256 == document.sha256 and r.n_chunks > 0
            for r in self.catalog.documents(document.analysis_id)
            if r.document.doc_id == document.doc_id
        )

    def chunks(self, analysis_id: str, search_filter: SearchFilter | None = None) -> list[Chunk]:
        search_filter = search_filter or SearchFilter(include_superseded=True)
        name = self._record(analysis_id).collection
        saved = read_passages(self.files.directory("passages", name))
        if saved is None:  # a generation written before passages files
            return self._all_chunks(self._read(name), search_filter.chroma_where())
        return sorted((c for c in saved.values() if search_filter.admits(c)), key=reading_order)

    def get_chunks(self, analysis_id: str, ids: list[str]) -> dict[str, Chunk]:
        if not ids:
            return {}
        name = self._record(analysis_id).collection
        saved = read_passages(self.files.directory("passages", name), ids)
        if saved is not None:
            return saved
        got = self._read(name).get(ids=ids, include=["documents", "metadatas"])
        return {i: chunk_from_row(i, t, m) for i, t, m in zip(got["ids"], got["documents"], got["metadatas"])}

    def dense_search(
        self, analysis_id: str, query_vector: np.ndarray, k: int, search_filter: SearchFilter
    ) -> list[tuple[str, float]]:
        """The ids of the ``k`` paragraphs most similar to the query, with their similarity:
        exact, so the same in every process (``mitra.store.dense``)."""
        index = self.bm25_index(analysis_id)
        dense, rows = self._loaded_dense(self._record(analysis_id).collection, index)
        # The filter is a mask over BM25 rows; a row the BM25 index lacks is never admitted.
        admitted = rows >= 0
        mask = search_filter.bm25_mask(index)
        if mask is not None:
            admitted &= mask[rows] > 0
        return dense.search(query_vector, k, None if admitted.all() else admitted, self.settings.dense_window_words > 0)

    def bm25_search(
        self, analysis_id: str, tokens: list[str], k: int, search_filter: SearchFilter
    ) -> list[tuple[str, float]]:
        index = self.bm25_index(analysis_id)
        return index.search_tokens(tokens, k, search_filter.bm25_mask(index))

    def section_scores(
        self, analysis_id: str, tokens: list[str], chunk_ids: list[str], search_filter: SearchFilter
    ) -> list[tuple[str, float]]:
        """Each chunk scored by the BM25 score of its section (0 where the section does
        not match, or the index predates sections)."""
        index = self.bm25_index(analysis_id)
        if index.sections is None:
            return []
        sections = index.sections
        mask = search_filter.bm25_mask(sections)
        if search_filter.left_out:  # the same scores, without the left-out chunks' words
            admitted = {name for row, name in enumerate(sections.ids) if mask is None or mask[row] > 0}
            scored = {name: score for name, score in section_scores_without(index, tokens, search_filter.left_out).items()
                      if name in admitted}
        else:
            scored = dict(sections.search_tokens(tokens, len(sections), mask))
        return [(cid, scored.get(index.tag(cid, "section") or "", 0.0)) for cid in chunk_ids]

    def stats(self, only: set[str] | None = None) -> dict:
        """Counts over every analysis, or over those in ``only``."""
        analyses = [r for r in self.catalog.analyses() if only is None or r.analysis.id in only]
        docs = [d for r in analyses for d in self.catalog.documents(r.analysis.id)]
        return {
            # The cluster form's data dir is a replica's own cache: the knowledge base is the database's.
            **({"database": make_url(self.settings.database_url.get_secret_value()).render_as_string(hide_password=True)}
               if cluster_form(self.settings) else {"data_dir": str(self.settings.data_dir)}),
            "chroma": f"http://{self.settings.chroma_host}:{self.settings.chroma_port}"
            if self.settings.chroma_host
            else str(self.settings.chroma_dir),
            "embedder": self.catalog.get_meta("embedder"),
            "analyses": len(analyses),
            "documents": len({(d.document.analysis_id, d.document.doc_id) for d in docs}),
            "document_versions": len(docs),
            "superseded_versions": sum(d.superseded for d in docs),
            "chunks": sum(d.n_chunks for d in docs),
            "current_chunks": sum(d.n_chunks for d in docs if not d.superseded),
        }
