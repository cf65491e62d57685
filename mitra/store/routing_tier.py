"""Tier 1 of the knowledge base, routing: the analyses' routing vectors written with each
analysis, the routing BM25 and the evidence index kept current with the catalog, and
the searches over them (``RoutingTier``, mixed into ``KnowledgeBase``, whose
``__init__`` sets the read caches; the indexes themselves are ``mitra.store.routing``'s)."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np
from chromadb.errors import ChromaError

from mitra.core.text import TOKENIZER
from mitra.core.types import Analysis
from mitra.store.bm25 import BM25Index, TermCounts
from mitra.store.chroma import ABSTRACTS, CHROMA_BATCH, EVIDENCE
from mitra.store.evidence import EvidenceIndex, EvidenceView
from mitra.store.evidence_files import EvidenceFiles, build_segments
from mitra.store.routing import AbstractVectors, generation_units

_READ_RETRIES = 3


class CatalogView(NamedTuple):
    """The catalog at one routing version: each analysis's current collection, the analyses."""

    version: str
    collections: dict[str, str]
    analyses: tuple[Analysis, ...]
    by_id: dict[str, Analysis]


def _routing_hash(analysis: Analysis) -> str:
    return hashlib.sha256(analysis.routing_text.encode()).hexdigest()


class RoutingTier:
    """Write and search the routing tier."""

    _current: CatalogView | None
    _pinned: threading.local
    _abstracts: tuple[str, AbstractVectors] | None
    _evidence: tuple[tuple[object, str], EvidenceView] | None
    _evidence_files: EvidenceFiles

    def _route(self, analyses: list[Analysis]) -> None:
        """Write the routing (tier 1) vectors of ``analyses``; routing BM25 follows the
        catalog by itself (``_routing_bm25``)."""
        collection = self._collection(ABSTRACTS)
        for start in range(0, len(analyses), CHROMA_BATCH):
            batch = analyses[start : start + CHROMA_BATCH]
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
        """Bring the evidence index (``mitra.store.evidence_files``) up to the catalog: a
        segment of the analyses re-indexed or added since, from each one's BM25 term counts,
        loaded one at a time and not kept (a writer's memory stays flat). The single index
        older versions rebuilt whole each run is deleted once the segments replace it."""
        self._evidence_files.update(self._catalog_view().collections, self._generation_units, self.settings.route_evidence_unit)
        if self.files.stamp("bm25", EVIDENCE):
            self.files.delete("bm25", EVIDENCE)

    def _generation_units(self, collection: str) -> tuple[list[str], TermCounts]:
        index = self._saved_bm25(collection)
        if index is not None and (index.terms is None or index.tokenizer != TOKENIZER):
            index = self._load_bm25(collection)  # an older index: rebuilt from its collection
        return generation_units(index, self.settings.route_evidence_unit)

    def _routing_bm25(self) -> BM25Index:
        """BM25 over the analyses' routing texts, current with the catalog: the saved one
        when its stamp is the catalog's routing version, else rebuilt (in memory, once per
        version), so an analysis is routable from the commit that made it searchable."""
        version = self.catalog_version()
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

    def catalog_version(self) -> str:
        """Moves on with every change to an analysis, in the same transaction (``put_analysis``)."""
        pinned = getattr(self._pinned, "view", None)
        return pinned.version if pinned is not None else self.catalog.get_meta("routing_version") or "0"

    @contextmanager
    def routing(self) -> Iterator[None]:
        """Every tier-1 read in this block (this thread) sees the catalog version current
        when it began, asked once: a routed question asked it six times (~0.7 ms each) and
        read three candidates' rows besides."""
        if getattr(self._pinned, "view", None) is not None:  # nested: the outer block's version
            yield
            return
        self._pinned.view = self._catalog_view()
        try:
            yield
        finally:
            self._pinned.view = None

    def _catalog_view(self) -> CatalogView:
        """The catalog at its current routing version, read again only when the version
        moves (every change to an analysis moves it, in the same transaction): reading 261
        analyses' rows took 7-10 ms, and a member's routed question read them three times."""
        version = self.catalog_version()
        if self._current is None or self._current.version != version:
            records = self.catalog.analyses()
            analyses = tuple(r.analysis for r in records)
            self._current = CatalogView(version, {r.analysis.id: r.collection for r in records}, analyses,
                                        {a.id: a for a in analyses})
        return self._current

    def route_dense(self, query_vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Exact search over the routing vectors, loaded once per routing version. Embedded
        Chroma is not process-safe: reading every vector while a writer upserts can fail
        ("Error finding id"); it is read again, and meanwhile this question is answered by
        Chroma's own (approximate) search, which a writer does not disturb."""
        view = self._catalog_view()
        version, current = view.version, view.collections
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
        the question best. Where no writer has saved the segmented index yet (a data dir
        of an older version, or a run killed before its end), one is built in memory, once
        per routing version, as ``_routing_bm25`` does."""
        view = self._catalog_view()
        version, current = view.version, view.collections
        index = self._evidence_files.index()
        if index is None:
            if self._evidence is None or self._evidence[0] != ("memory", version):
                vocabulary: list[str] = []
                segments = build_segments(current, self._generation_units, vocabulary)
                self._evidence = (("memory", version), EvidenceIndex(vocabulary, segments).view(current))
        elif self._evidence is None or self._evidence[0] != (index, version):
            self._evidence = ((index, version), index.view(current))
        return self._evidence[1].search(tokens, k, self.settings.route_evidence_depth, only)

    def route_bm25(self, query: str, k: int) -> list[tuple[str, float]]:
        return self._routing_bm25().search(query, k)
