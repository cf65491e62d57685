"""The Chroma client of a knowledge base: how it connects (embedded or a server), how
collections are named, how a chunk is stored as a Chroma row and read back, and the
collection handles a ``KnowledgeBase`` opens (``ChromaCollections``, mixed into it; its
``__init__`` sets the client and the caches these methods use)."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from mitra.core.memory import release_freed
from mitra.core.settings import Settings
from mitra.core.types import Chunk, ChunkKind
from mitra.store.versions import reading_order

ABSTRACTS = "abstracts"
EVIDENCE = "evidence"  # the BM25 index older versions rebuilt whole each run (the writer deletes it)
CHROMA_BATCH = 1000


def connect_chroma(settings: Settings):
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if settings.chroma_host:
        return chromadb.HttpClient(host=settings.chroma_host, port=settings.chroma_port, settings=chroma_settings)
    settings.chroma_dir.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(settings.chroma_dir), settings=chroma_settings)


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


def chunk_metadata(chunk: Chunk) -> dict:
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


def chunk_from_row(chunk_id: str, text: str, meta: dict) -> Chunk:
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


class ChromaCollections:
    """The collections a knowledge base reads and writes, opened through its client."""

    settings: Settings
    client: Any

    def _collection(self, name: str):
        return self.client.get_or_create_collection(
            name, configuration={"hnsw": {"space": "cosine"}}, embedding_function=None
        )

    def _existing(self, name: str):
        """Collection ``name`` where it exists, else None. (Asking by listing every collection
        cost a writer O(analyses) an analysis: with the drop of leftovers, which listed them
        too, 60 % of its time at ~750 analyses.)"""
        from chromadb.errors import NotFoundError

        try:
            return self.client.get_collection(name, embedding_function=None)
        except NotFoundError:
            return None

    def _read(self, name: str):
        """A full-text collection to read from, opened once per client: opening one costs
        Chroma ~1 ms idle and 30+ ms on busy cores, and every query reads texts."""
        handle = self._handles.get(name)
        if handle is None:
            handle = self._collection(name)
            self._keep(name, lambda: self._handles.__setitem__(name, handle))
        return handle

    def _to_fill(self, name: str):
        """A full-text collection about to be written. Every ``chroma_reopen_every`` of
        them an embedded client is closed and opened again first: closing is what makes
        embedded Chroma release the indexes it holds, so a run's memory stays flat however
        many analyses it writes. A server's client is kept: the server holds the indexes
        (in a bounded pool, deploy/chroma.yaml), and closing an HTTP client leaves its
        connections open (~1,000 sockets, on both sides, over 5,000 analyses). Only writers
        call this, and writers are single-threaded CLI runs, so no other thread holds the
        old client."""
        if self._filled >= self.settings.chroma_reopen_every and not self.settings.chroma_host:
            self.client.close()
            with self._cache_lock:
                self._handles.clear()
            release_freed()
            self.client = connect_chroma(self.settings)
            self._filled = 0
        self._filled += 1
        return self._collection(name)

    @staticmethod
    def _all_chunks(collection, where: dict | None = None) -> list[Chunk]:
        """The collection's chunks in reading order (document, version, position)."""
        got = collection.get(where=where, include=["documents", "metadatas"])
        chunks = [chunk_from_row(i, t, m) for i, t, m in zip(got["ids"], got["documents"], got["metadatas"])]
        return sorted(chunks, key=reading_order)
