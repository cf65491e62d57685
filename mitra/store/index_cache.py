"""The index files of a generation (``mitra.store.index_files``): its BM25 index (chunks,
and their sections), its dense index and its passages, built from chunks, saved, loaded
once per stamp and kept for the ``reader_cache_analyses`` most recently read analyses
(``IndexCaches``, mixed into ``KnowledgeBase``, whose ``__init__`` sets the caches)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable

import numpy as np

from mitra.core.text import TOKENIZER, tokenize_many
from mitra.core.types import Chunk
from mitra.store.bm25 import BM25Index
from mitra.store.chroma import ABSTRACTS, windows_name
from mitra.store.dense import DenseIndex
from mitra.store.passages import write_passages


def section_key(chunk: Chunk) -> str:
    """The top-level section of one document version a chunk belongs to."""
    return f"{chunk.doc_id}@{chunk.version}#{chunk.section[0] if chunk.section else ''}"


def _tags(chunk: Chunk) -> dict[str, str]:
    return {"version": chunk.version, "doc_id": chunk.doc_id, "superseded": "1" if chunk.superseded else "0",
            "section": section_key(chunk)}


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


class IndexCaches:
    """Load, cache and save a knowledge base's index files."""

    _bm25: dict[tuple[str, str | int], BM25Index]
    _dense: dict[str, tuple[str, BM25Index, DenseIndex, np.ndarray]]
    _handles: dict[str, object]
    _recent: OrderedDict[str, None]

    def _keep(self, name: str, store: Callable[[], None]) -> None:
        """Run ``store`` (which caches something of collection ``name``) under the cache lock,
        mark ``name`` most recently used, and forget everything of the least recently used
        collections beyond ``reader_cache_analyses``."""
        with self._cache_lock:
            store()
            if name in (ABSTRACTS, f"{ABSTRACTS}@catalog"):
                return
            self._recent[name] = None
            self._recent.move_to_end(name)
            while len(self._recent) > self.settings.reader_cache_analyses:
                old, _ = self._recent.popitem(last=False)
                self._bm25 = {k: v for k, v in self._bm25.items() if k[0] != old}
                self._dense.pop(old, None)
                self._handles.pop(old, None)

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
            if (index.tokenizer != TOKENIZER or index.terms is None) and name != ABSTRACTS:
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
        window_collection = self._existing(windows_name(name)) if self.settings.dense_window_words else None
        if window_collection is not None:
            old = window_collection.get(include=["embeddings"])
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
            dense = cached[2] if cached is not None and cached[0] == stamp else self._dense_index(name).prefiltered()
            position = {item: i for i, item in enumerate(bm25.ids)}
            cached = (stamp, bm25, dense, np.array([position.get(i, -1) for i in dense.ids], np.int64))
            self._keep(name, lambda: self._dense.__setitem__(name, cached))
        return cached[2], cached[3]

    def _save_dense(self, name: str, parts: dict[str, tuple[np.ndarray, np.ndarray]], ids: list[str]) -> None:
        """The dense index of generation ``name``: the vectors ``parts`` holds for ``ids``."""
        dense = DenseIndex.build(ids, np.array([parts[i][0] for i in ids]), [parts[i][1] for i in ids],
                                 self._require_embedder().dim)
        self.files.save("dense", name, dense.write)

    def bm25_index(self, analysis_id: str) -> BM25Index:
        """The analysis's BM25 index (chunks, and their sections), loaded once per generation."""
        return self._load_bm25(self._record(analysis_id).collection)
