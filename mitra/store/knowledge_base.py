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
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import OrderedDict
from typing import Callable, Iterable

import numpy as np
from chromadb.errors import ChromaError
from sqlalchemy.engine import make_url

from mitra.core import faults
from mitra.store.filters import SearchFilter
from mitra.store.bm25 import BM25Index
from mitra.store.dense import DenseIndex
from mitra.store.index_files import open_index_files
from mitra.store.passages import read_passages, write_passages
from mitra.store.state import cluster_form
from mitra.store.catalog import AnalysisRecord, Catalog, DocumentRecord
from mitra.store.routing import AbstractVectors, EvidenceSearch, build_evidence, current_rows
from mitra.models.embedders import Embedder
from mitra.core.errors import MitraError
from mitra.core.memory import release_freed
from mitra.core.settings import Settings
from mitra.core.text import TOKENIZER, tokenize_many
from mitra.core.types import Analysis, Chunk, ChunkKind, Document

ABSTRACTS = "abstracts"
_READ_RETRIES = 3
EVIDENCE = "evidence"
_CHROMA_BATCH = 1000
Progress = Callable[[int], None]


class IndexMismatch(MitraError):
    """The stores were built with another embedder than the configured one."""


class UnknownAnalysis(MitraError, KeyError):
    def __init__(self, analysis_id: str):
        super().__init__(analysis_id)
        self.analysis_id = analysis_id

    def __str__(self) -> str:
        return f"no analysis '{self.analysis_id}' in the knowledge base (see `mitra stats`)"


def collection_name(analysis_id: str, generation: int) -> str:
    """Chroma names allow [a-zA-Z0-9._-], 3-512 chars, alphanumeric ends: a slug
    for readability plus a hash so distinct ids never collide."""
    slug = re.sub(r"[^a-z0-9]+", "-", analysis_id.lower()).strip("-")[:40] or "analysis"
    digest = hashlib.sha1(analysis_id.encode()).hexdigest()[:8]
    return f"ft-{slug}-{digest}-g{generation}"


def windows_name(name: str) -> str:
    """The collection beside full-text collection ``name`` where generations indexed before
    ``mitra.store.dense`` kept their paragraphs' sentence windows."""
    return f"{name}-w"


def version_key(version: str) -> tuple:
    """Natural order of version labels: v2 < v10, 1.9 < 1.10."""
    return tuple(int(p) if p.isdigit() else p for p in re.findall(r"\d+|[^\d\W]+", version.lower()))


def current_versions(documents: Iterable[Document]) -> dict[str, str]:
    latest: dict[str, str] = {}
    for d in documents:
        if d.doc_id not in latest or version_key(d.version) > version_key(latest[d.doc_id]):
            latest[d.doc_id] = d.version
    return latest


def _metadata(chunk: Chunk) -> dict:
    # unit and anchor only where they differ from a PDF page's: most chunks carry neither
    return {
        **({"unit": chunk.unit} if chunk.unit != "page" else {}),
        **({"anchor": chunk.anchor} if chunk.anchor else {}),
        "analysis_id": chunk.analysis_id,
        "doc_id": chunk.doc_id,
        "version": chunk.version,
        "position": chunk.position,
        "section": json.dumps(chunk.section),
        "kind": chunk.kind.value,
        "page_start": -1 if chunk.page_start is None else chunk.page_start,
        "page_end": -1 if chunk.page_end is None else chunk.page_end,
        "superseded": chunk.superseded,
    }


def _chunk(chunk_id: str, text: str, meta: dict) -> Chunk:
    return Chunk(
        id=chunk_id,
        analysis_id=meta["analysis_id"],
        doc_id=meta["doc_id"],
        version=meta["version"],
        position=meta["position"],
        section=json.loads(meta["section"]),
        kind=ChunkKind(meta["kind"]),
        page_start=None if meta["page_start"] < 0 else meta["page_start"],
        page_end=None if meta["page_end"] < 0 else meta["page_end"],
        text=text,
        superseded=meta["superseded"],
        unit=meta.get("unit", "page"),
        anchor=meta.get("anchor", ""),
    )


def _reading_order(chunk: Chunk) -> tuple:
    return chunk.doc_id, version_key(chunk.version), chunk.position


def _tags(chunk: Chunk) -> dict[str, str]:
    return {"version": chunk.version, "doc_id": chunk.doc_id, "superseded": "1" if chunk.superseded else "0",
            "section": section_key(chunk)}


def _routing_hash(analysis: Analysis) -> str:
    return hashlib.sha256(analysis.routing_text.encode()).hexdigest()


def section_key(chunk: Chunk) -> str:
    """The top-level section of one document version a chunk belongs to."""
    return f"{chunk.doc_id}@{chunk.version}#{chunk.section[0] if chunk.section else ''}"


def chunk_index(chunks: list[Chunk]) -> BM25Index:
    """BM25 over the chunks, with the section index beside it (see ``mitra.store.bm25``).
    Each chunk is tokenized once: a section's tokens are its chunks' (tokenizing is the
    costliest part of an index build, ~1 ms a paragraph)."""
    tokens = tokenize_many([c.index_text for c in chunks])
    tags = [_tags(c) for c in chunks]
    index = BM25Index.from_tokens([c.id for c in chunks], tokens, tags, with_terms=True)
    sections: dict[str, list[int]] = {}
    for i, c in enumerate(chunks):
        sections.setdefault(tags[i]["section"], []).append(i)
    index.sections = BM25Index.from_tokens(
        list(sections),
        [[t for i in members for t in tokens[i]] for members in sections.values()],
        [{k: v for k, v in tags[members[0]].items() if k != "section"} for members in sections.values()],
    )
    return index


def embedded_texts(chunks: list[Chunk], window_words: int) -> tuple[list[str], list[list[str]]]:
    """What a writer embeds for ``chunks``: each one's ``index_text``, and its sentence
    windows (none where ``window_words`` is 0). Ray's embedding stage embeds the same."""
    return [c.index_text for c in chunks], [c.index_windows(window_words) if window_words else [] for c in chunks]


def connect_chroma(settings: Settings):
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if settings.chroma_host:
        return chromadb.HttpClient(host=settings.chroma_host, port=settings.chroma_port, settings=chroma_settings)
    settings.chroma_dir.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(settings.chroma_dir), settings=chroma_settings)


class KnowledgeBase:
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
        # Tier 1's read caches, each valid for one routing version (see ``_routing_view``).
        self._current: tuple[str, dict[str, str]] | None = None
        self._abstracts: tuple[str, AbstractVectors] | None = None
        self._evidence: EvidenceSearch | None = None
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

    def _collection(self, name: str):
        return self.client.get_or_create_collection(
            name, configuration={"hnsw": {"space": "cosine"}}, embedding_function=None
        )

    def _read(self, name: str):
        """A full-text collection to read from, opened once per client: opening one costs
        Chroma ~1 ms idle and 30+ ms on busy cores, and every query reads texts."""
        handle = self._handles.get(name)
        if handle is None:
            handle = self._collection(name)
            self._keep(name, lambda: self._handles.__setitem__(name, handle))
        return handle

    def _keep(self, name: str, store: Callable[[], None]) -> None:
        """Run ``store`` (which caches something of collection ``name``) under the cache lock,
        mark ``name`` most recently used, and forget everything of the least recently used
        collections beyond ``reader_cache_analyses``."""
        with self._cache_lock:
            store()
            if name in (ABSTRACTS, EVIDENCE, f"{ABSTRACTS}@catalog"):
                return
            self._recent[name] = None
            self._recent.move_to_end(name)
            while len(self._recent) > self.settings.reader_cache_analyses:
                old, _ = self._recent.popitem(last=False)
                self._bm25 = {k: v for k, v in self._bm25.items() if k[0] != old}
                self._dense.pop(old, None)
                self._handles.pop(old, None)

    def _to_fill(self, name: str):
        """A full-text collection about to be written. Every ``chroma_reopen_every`` of
        them the client is closed and opened again first: closing is what makes embedded
        Chroma release the indexes it holds, so a run's memory stays flat however many
        analyses it writes. Only writers call this, and writers are single-threaded CLI
        runs, so no other thread holds the old client."""
        if self._filled >= self.settings.chroma_reopen_every:
            self.client.close()
            with self._cache_lock:
                self._handles.clear()
            release_freed()
            self.client = connect_chroma(self.settings)
            self._filled = 0
        self._filled += 1
        return self._collection(name)

    def _record(self, analysis_id: str) -> AnalysisRecord:
        record = self.catalog.analysis(analysis_id)
        if record is None:
            raise UnknownAnalysis(analysis_id)
        return record

    def _saved_bm25(self, name: str) -> BM25Index | None:
        return BM25Index.load(self.files.directory("bm25", name))

    def _save_bm25(self, name: str, index: BM25Index) -> None:
        self.files.save("bm25", name, index.write)

    def _save_text_indexes(self, name: str, chunks: list[Chunk]) -> None:
        """A generation's BM25 index and the passages its hits are read from."""
        self._save_bm25(name, chunk_index(chunks))
        self.files.save("passages", name, lambda directory: write_passages(directory, chunks))

    def _load_bm25(self, name: str) -> BM25Index:
        key = (name, self.files.stamp("bm25", name))
        index = self._bm25.get(key)
        if index is None:
            index = self._saved_bm25(name) or BM25Index.build([], [])
            if (index.tokenizer != TOKENIZER or index.terms is None) and name not in (ABSTRACTS, EVIDENCE):
                # Saved by an older tokenizer, or without term counts: rebuilt from the
                # collection (in memory; the next write of the analysis saves a current one).
                index = chunk_index(self._all_chunks(self._collection(name)))
            self._keep(name, lambda: self._cache_bm25(key, index))
        else:
            self._keep(name, lambda: None)
        return index

    def _cache_bm25(self, key: tuple[str, str | int], index: BM25Index) -> None:
        """The one BM25 index kept for ``key``'s collection (its older stamps dropped)."""
        self._bm25 = {**{k: v for k, v in self._bm25.items() if k[0] != key[0]}, key: index}

    def _embed(self, texts: list[str]) -> np.ndarray:
        """Passage vectors, ``embed_batch_size`` at a time, longest first (the batches the
        encoders would form themselves), with the heap's freed pages handed back at the end:
        glibc keeps what the batches' activations freed, and with batches of every length
        that kept memory grew ~120 MB in 200 batches. (Once per call, not per batch: a trim
        costs ~0.4 ms, 6 % of an index build when it ran after every batch.)"""
        embedder = self._require_embedder()
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
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
        it held: upsert semantics, as Chroma's."""
        words = self.settings.dense_window_words
        parts = self._dense_index(collection.name).parts()
        for start in range(0, len(chunks), _CHROMA_BATCH):
            batch = chunks[start : start + _CHROMA_BATCH]
            texts, runs = embedded_texts(batch, words)
            vectors = self._embed(texts)
            collection.upsert(
                ids=[c.id for c in batch],
                embeddings=vectors,
                documents=[c.text for c in batch],
                metadatas=[_metadata(c) for c in batch],
            )
            windows = self._embed([t for texts in runs for t in texts])
            ends = np.cumsum([len(texts) for texts in runs])
            for c, vector, end, texts in zip(batch, vectors, ends, runs):
                parts[c.id] = (vector, windows[end - len(texts) : end])
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

    def _save_dense(self, name: str, parts: dict[str, tuple[np.ndarray, np.ndarray]], ids: list[str]) -> None:
        """The dense index of generation ``name``: the vectors ``parts`` holds for ``ids``."""
        dense = DenseIndex.build(ids, np.array([parts[i][0] for i in ids]), [parts[i][1] for i in ids],
                                 self._require_embedder().dim)
        self.files.save("dense", name, dense.write)

    @staticmethod
    def _all_chunks(collection, where: dict | None = None) -> list[Chunk]:
        """The collection's chunks in reading order (document, version, position)."""
        got = collection.get(where=where, include=["documents", "metadatas"])
        chunks = [_chunk(i, t, m) for i, t, m in zip(got["ids"], got["documents"], got["metadatas"])]
        return sorted(chunks, key=_reading_order)

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
        present = {c.name for c in self.client.list_collections()}
        for collection in (name, windows_name(name)):
            if collection in present:
                self.client.delete_collection(collection)
        with self._cache_lock:
            self._handles.pop(name, None)
        for kind in ("bm25", "dense", "passages"):
            self.files.delete(kind, name)

    def collect_garbage(self) -> list[str]:
        """Delete full-text collections no catalog entry points to (an interrupted re-index)."""
        live = {r.collection for r in self.catalog.analyses()}
        # A windows collection is named for its paragraphs' one, and goes with it.
        names = {c.name.removesuffix("-w") for c in self.client.list_collections() if c.name.startswith("ft-")}
        orphans = sorted(names - live)
        for name in orphans:
            self._drop_collection(name)
        return orphans

    def _route(self, analyses: list[Analysis]) -> None:
        """Write the routing (tier 1) vectors of ``analyses``; routing BM25 follows the
        catalog by itself (``_routing_bm25``)."""
        collection = self._collection(ABSTRACTS)
        for start in range(0, len(analyses), _CHROMA_BATCH):
            batch = analyses[start : start + _CHROMA_BATCH]
            collection.upsert(
                ids=[a.id for a in batch],
                embeddings=self._embed([a.routing_text for a in batch]),
                documents=[a.routing_text for a in batch],
                metadatas=[{"hash": _routing_hash(a), "title": a.title} for a in batch],
            )

    def sync_abstracts(self) -> None:
        """Make the routing tier match the catalog (after a bulk run, or to repair one that
        was killed): vectors of changed analyses, none of removed ones, and BM25 saved."""
        analyses = [r.analysis for r in self.catalog.analyses()]
        collection = self._collection(ABSTRACTS)
        have = collection.get(include=["metadatas"])
        have_hash = {i: m.get("hash") for i, m in zip(have["ids"], have["metadatas"])}
        removed = sorted(set(have_hash) - {a.id for a in analyses})
        if removed:
            collection.delete(ids=removed)
        self._route([a for a in analyses if have_hash.get(a.id) != _routing_hash(a)])
        self._save_bm25(ABSTRACTS, self._routing_bm25())
        self._sync_evidence()

    def _sync_evidence(self) -> None:
        """Rebuild the evidence index (``mitra.store.routing``) when the catalog moved on
        since it was built, from each current generation's BM25 term counts. Indexes are
        loaded one at a time and not kept: a writer's memory stays flat."""
        unit = self.settings.route_evidence_unit
        stamp = f"{self.catalog.get_meta('routing_version') or '0'}:{unit}"
        saved = self._saved_bm25(EVIDENCE)
        if saved is not None and saved.stamp == stamp and saved.tokenizer == TOKENIZER:
            return
        generations = {}
        for record in self.catalog.analyses():
            index = self._saved_bm25(record.collection)
            if index is not None and (index.terms is None or index.tokenizer != TOKENIZER):
                index = self._load_bm25(record.collection)  # an older index: rebuilt from its collection
            generations[record.analysis.id] = (record.collection, current_rows(index) if index else [])
        self._save_bm25(EVIDENCE, build_evidence(generations, unit, stamp))

    def _routing_bm25(self) -> BM25Index:
        """BM25 over the analyses' routing texts, current with the catalog: the saved one
        when its stamp is the catalog's routing version, else rebuilt (in memory, once per
        version), so an analysis is routable from the commit that made it searchable."""
        version = self.catalog.get_meta("routing_version") or "0"
        saved = self._load_bm25(ABSTRACTS)
        if saved.stamp == version and saved.tokenizer == TOKENIZER:
            return saved
        key = (f"{ABSTRACTS}@catalog", int(version))
        index = self._bm25.get(key)
        if index is None:
            analyses = [r.analysis for r in self.catalog.analyses()]
            index = BM25Index.build([a.id for a in analyses], [f"{a.id} {a.routing_text}" for a in analyses])
            index.stamp = version
            self._keep(key[0], lambda: self._cache_bm25(key, index))
        return index

    # ---------------------------------------------------------------- reads
    def analyses(self) -> list[Analysis]:
        return [r.analysis for r in self.catalog.analyses()]

    def get_analysis(self, analysis_id: str) -> Analysis | None:
        record = self.catalog.analysis(analysis_id)
        return record.analysis if record else None

    def documents(self, analysis_id: str) -> list[DocumentRecord]:
        return self.catalog.documents(analysis_id)

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
        return sorted((c for c in saved.values() if search_filter.admits(c)), key=_reading_order)

    def get_chunks(self, analysis_id: str, ids: list[str]) -> dict[str, Chunk]:
        if not ids:
            return {}
        name = self._record(analysis_id).collection
        saved = read_passages(self.files.directory("passages", name), ids)
        if saved is not None:
            return saved
        got = self._read(name).get(ids=ids, include=["documents", "metadatas"])
        return {i: _chunk(i, t, m) for i, t, m in zip(got["ids"], got["documents"], got["metadatas"])}

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

    def _dense_index(self, name: str) -> DenseIndex:
        """The generation's dense index as saved, or, for one indexed before it existed, built
        from the collection's paragraph vectors and its windows collection (in memory; the
        next write of the analysis saves it)."""
        saved = DenseIndex.load(self.files.directory("dense", name))
        if saved is not None:
            return saved
        dim = int(self.catalog.get_meta("dim") or (self.embedder.dim if self.embedder else 0))
        got = self._read(name).get(include=["embeddings"])
        windows: dict[str, list[tuple[int, np.ndarray]]] = {}
        if self.settings.dense_window_words and windows_name(name) in {c.name for c in self.client.list_collections()}:
            old = self.client.get_collection(windows_name(name), embedding_function=None).get(include=["embeddings"])
            for window_id, vector in zip(old["ids"], old["embeddings"]):
                chunk_id, _, j = window_id.rpartition("~")
                windows.setdefault(chunk_id, []).append((int(j), vector))
        runs = [np.array([v for _, v in sorted(windows.get(i, []), key=lambda w: w[0])], np.float32).reshape(-1, dim)
                for i in got["ids"]]
        return DenseIndex.build(got["ids"], np.array(got["embeddings"], np.float32).reshape(-1, dim), runs, dim)

    def _loaded_dense(self, name: str, bm25: BM25Index) -> tuple[DenseIndex, np.ndarray]:
        """The dense index of generation ``name``, loaded once per save, and each of its rows'
        row in the BM25 index ``bm25`` (-1 where it has none)."""
        stamp = self.files.stamp("dense", name)
        cached = self._dense.get(name)
        if cached is None or cached[0] != stamp or cached[1] is not bm25:
            dense = cached[2] if cached is not None and cached[0] == stamp else self._dense_index(name)
            position = {item: i for i, item in enumerate(bm25.ids)}
            cached = (stamp, bm25, dense, np.array([position.get(i, -1) for i in dense.ids], np.int64))
            self._keep(name, lambda: self._dense.__setitem__(name, cached))
        return cached[2], cached[3]

    def bm25_index(self, analysis_id: str) -> BM25Index:
        """The analysis's BM25 index (chunks, and their sections), loaded once per generation."""
        return self._load_bm25(self._record(analysis_id).collection)

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
        scored = dict(sections.search_tokens(tokens, len(sections), search_filter.bm25_mask(sections)))
        return [(cid, scored.get(index.tag(cid, "section") or "", 0.0)) for cid in chunk_ids]

    def _routing_view(self) -> tuple[str, dict[str, str]]:
        """The catalog's routing version and each analysis's current collection."""
        version = self.catalog.get_meta("routing_version") or "0"
        if self._current is None or self._current[0] != version:
            self._current = (version, {r.analysis.id: r.collection for r in self.catalog.analyses()})
        return self._current

    def route_dense(self, query_vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Exact search over the routing vectors, loaded once per routing version. Embedded
        Chroma is not process-safe: reading every vector while a writer upserts can fail
        ("Error finding id"); it is read again, and meanwhile this question is answered by
        Chroma's own (approximate) search, which a writer does not disturb."""
        version, current = self._routing_view()
        for attempt in range(_READ_RETRIES):
            if self._abstracts is not None and self._abstracts[0] == version:
                return self._abstracts[1].search(query_vector, k)
            try:
                self._abstracts = (version, AbstractVectors.from_collection(self._collection(ABSTRACTS), set(current)))
            except ChromaError:
                time.sleep(0.05 * (attempt + 1))
        result = self._collection(ABSTRACTS).query(query_embeddings=query_vector.reshape(1, -1), n_results=k,
                                                   include=["distances"])
        return [(i, 1.0 - float(d)) for i, d in zip(result["ids"][0], result["distances"][0])]

    def route_evidence(self, tokens: list[str], k: int, only: set[str] | None = None) -> list[tuple[str, float]]:
        """The ``k`` analyses (of ``only``, where given) whose best full-text unit matches
        the question best; empty until a writer has built the evidence index."""
        _, current = self._routing_view()
        if only is not None:
            current = {a: c for a, c in current.items() if a in only}
        saved = self._load_bm25(EVIDENCE)
        if self._evidence is None or self._evidence.index is not saved:
            self._evidence = EvidenceSearch(saved)
        return self._evidence.search(tokens, k, self.settings.route_evidence_depth, current)

    def route_bm25(self, query: str, k: int) -> list[tuple[str, float]]:
        return self._routing_bm25().search(query, k)

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
