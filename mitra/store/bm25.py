"""A persisted BM25 index over one collection's entries (bm25s + our tokenizer).

Saved beside Chroma as ``<dir>/`` with the bm25s arrays and the entry ids, and
replaced by rename so a reader never sees half an index. A full-text index also
carries a *section* index (``<dir>/sections``): one entry per top-level section of
each document version, its text the section's chunks together. Retrieval scores a
chunk by its section too (tree-structured retrieval): generic questions ("what is
the dominant systematic uncertainty?") name the section's topic more than the
paragraph's words.

A chunk index also keeps each entry's term counts (``TermCounts``), so pseudo-relevance
feedback reads the best first-pass passages' terms from the index instead of fetching
and re-tokenizing their texts.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import bm25s
import numpy as np

from mitra.core.text import TOKENIZER, tokenize, tokenize_many
from mitra.store.files import swap_in


@dataclass
class TermCounts:
    """Each entry's terms (ids in the BM25 vocabulary) and how often it has them: entry
    ``i``'s are ``tokens[indptr[i]:indptr[i + 1]]``, with ``counts`` alike."""

    indptr: np.ndarray
    tokens: np.ndarray
    counts: np.ndarray

    @classmethod
    def count(cls, tokens: list[list[int]] | list[np.ndarray], vocabulary: int) -> "TermCounts":
        """Entry ``i``'s counts from its token ids ``tokens[i]``."""
        lengths = np.fromiter(map(len, tokens), np.int64, len(tokens))
        flat = np.concatenate([np.asarray(t, np.int64) for t in tokens]) if lengths.sum() else np.zeros(0, np.int64)
        return cls.summed(np.repeat(np.arange(len(tokens)), lengths), flat, np.ones(len(flat)), len(tokens), vocabulary)

    @classmethod
    def summed(cls, owner: np.ndarray, terms: np.ndarray, counts: np.ndarray, entries: int,
               vocabulary: int) -> "TermCounts":
        """``entries`` entries' counts: ``counts[j]`` occurrences of term ``terms[j]`` in entry
        ``owner[j]``, summed per (entry, term)."""
        width = max(vocabulary, 1)
        keys, inverse = np.unique(np.asarray(owner, np.int64) * width + terms, return_inverse=True)
        summed = np.bincount(inverse, weights=counts, minlength=len(keys)).astype(np.int32)
        indptr = np.searchsorted(keys // width, np.arange(entries + 1)).astype(np.int64)
        return cls(indptr, (keys % width).astype(np.int32), summed)


class BM25Index:
    def __init__(
        self,
        ids: list[str],
        tags: list[dict[str, str]],
        retriever: bm25s.BM25 | None,
        sections: "BM25Index | None" = None,
        stamp: str = "",
        tokenizer: str = TOKENIZER,
        terms: TermCounts | None = None,
    ):
        self.ids = ids
        self.stamp = stamp  # what the index was built from (the routing index: the catalog's version)
        self.tokenizer = tokenizer  # an index saved by another tokenizer would miss the queries' tokens
        # Per entry filter fields (version, superseded, section), so filters are masks, not re-indexing.
        self.tags = tags
        self.sections = sections
        self.terms = terms  # each entry's term counts, where built with them (chunk indexes)
        self._retriever = retriever
        self._names: list[str] | None = None
        self._masks: dict[tuple, np.ndarray | None] = {}
        self._position: dict[str, int] | None = None

    @classmethod
    def build(
        cls, ids: list[str], texts: list[str], tags: list[dict[str, str]] | None = None, with_terms: bool = False
    ) -> "BM25Index":
        return cls.from_tokens(ids, tokenize_many(texts), tags, with_terms)

    @classmethod
    def from_tokens(
        cls, ids: list[str], tokens: list[list[str]], tags: list[dict[str, str]] | None = None, with_terms: bool = False
    ) -> "BM25Index":
        """An index over entries already tokenized (by ``tokenize``); ``with_terms`` keeps
        each entry's term counts (``TermCounts``) too."""
        tags = tags if tags is not None else [{} for _ in ids]
        if not ids:
            return cls([], [], None, terms=TermCounts.count([], 1) if with_terms else None)
        retriever = bm25s.BM25()
        retriever.index(tokens, show_progress=False)
        terms = None
        if with_terms:
            vocabulary = retriever.vocab_dict
            terms = TermCounts.count([[vocabulary[t] for t in entry] for entry in tokens], len(vocabulary))
        return cls(list(ids), tags, retriever, terms=terms)

    def __len__(self) -> int:
        return len(self.ids)

    def mask(self, **required: str) -> np.ndarray | None:
        """1.0 for entries whose tags match every ``required`` value; None when all do
        (no mask to apply). Memoised: building one costs ~50 ms at 100k entries."""
        key = tuple(sorted(required.items()))
        if key not in self._masks:
            mask = np.array([all(t.get(k) == v for k, v in key) for t in self.tags], dtype=np.float32)
            self._masks[key] = None if mask.all() else mask
        return self._masks[key]

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> list[tuple[str, float]]:
        return self.search_tokens(tokenize(query), k, mask)

    def search_tokens(self, tokens: list[str], k: int, mask: np.ndarray | None = None) -> list[tuple[str, float]]:
        """The top ``k`` entries for already tokenized query terms, best first."""
        if self._retriever is None or not tokens or k < 1:
            return []
        k = min(k, len(self.ids))
        docs, scores = self._retriever.retrieve(
            [tokens], k=k, show_progress=False, weight_mask=mask, n_threads=0
        )
        return [(self.ids[d], float(s)) for d, s in zip(docs[0], scores[0]) if s > 0]

    def rows(self, entry_ids: list[str]) -> list[int | None]:
        """Each entry's row (None for an id the index lacks)."""
        if self._position is None:
            self._position = {item: i for i, item in enumerate(self.ids)}
        return [self._position.get(entry) for entry in entry_ids]

    def tag(self, entry_id: str, name: str) -> str | None:
        position = self.rows([entry_id])[0]
        return None if position is None else self.tags[position].get(name)

    def term_id(self, token: str) -> int | None:
        """The token's id in the vocabulary (the ids ``terms`` holds), None where unknown."""
        return None if self._retriever is None else self._retriever.vocab_dict.get(token)

    def idf(self, token: str) -> float:
        """log(1 + N / df): 0 for a token no entry contains."""
        token_id = self.term_id(token)
        if token_id is None:
            return 0.0
        indptr = self._retriever.scores["indptr"]
        df = int(indptr[token_id + 1] - indptr[token_id])
        return math.log(1 + len(self.ids) / df) if df else 0.0

    def expansion_terms(self, entry_ids: list[str], query_tokens: list[str], n: int) -> list[str]:
        """Pseudo-relevance feedback: the ``n`` terms of the entries ``entry_ids`` (the best
        first-pass passages) weighing most by frequency there times rarity in the index
        (``idf``), read from the term counts; ties by term."""
        if self.terms is None:
            raise ValueError("this BM25 index was built without term counts: rebuild it with with_terms=True")
        if self._retriever is None:
            return []
        rows = [r for r in self.rows(entry_ids) if r is not None]
        spans = [slice(self.terms.indptr[r], self.terms.indptr[r + 1]) for r in rows]
        if not spans:
            return []
        tokens, inverse = np.unique(np.concatenate([self.terms.tokens[s] for s in spans]), return_inverse=True)
        counts = np.bincount(inverse, weights=np.concatenate([self.terms.counts[s] for s in spans]))
        indptr = self._retriever.scores["indptr"]
        df = indptr[tokens + 1] - indptr[tokens]
        weights = counts * np.log(1 + len(self.ids) / np.maximum(df, 1))
        names = self.vocabulary()
        asked = set(query_tokens)
        weighted = [(names[t], w) for t, w in zip(tokens.tolist(), weights.tolist())
                    if w > 0 and names[t] not in asked]
        return [t for t, _ in sorted(weighted, key=lambda item: (-item[1], item[0]))[:n]]

    def vocabulary(self) -> list[str]:
        """The index's terms, by id (the ids ``terms`` holds)."""
        if self._retriever is None:
            return []
        if self._names is None:
            self._names = [""] * len(self._retriever.vocab_dict)
            for name, token_id in self._retriever.vocab_dict.items():
                self._names[token_id] = name
        return self._names

    def save(self, directory: Path) -> None:
        swap_in(directory, self.write)

    def write(self, directory: Path) -> None:
        """The index into the new directory ``directory`` (``save`` swaps it in)."""
        directory.mkdir(parents=True)
        (directory / "entries.json").write_text(json.dumps(
            {"ids": self.ids, "tags": self.tags, "stamp": self.stamp, "tokenizer": self.tokenizer}
        ))
        if self._retriever is not None:
            self._retriever.save(directory / "bm25s", show_progress=False)
        if self.terms is not None:
            np.savez(directory / "terms.npz", indptr=self.terms.indptr, tokens=self.terms.tokens,
                     counts=self.terms.counts)
        if self.sections is not None:
            self.sections.write(directory / "sections")

    @classmethod
    def load(cls, directory: Path) -> "BM25Index | None":
        entries = directory / "entries.json"
        if not entries.exists():
            return None
        data = json.loads(entries.read_text())
        retriever = None
        if (directory / "bm25s").exists():
            retriever = bm25s.BM25.load(directory / "bm25s", show_progress=False, verbosity=0)
        terms = None
        if (directory / "terms.npz").exists():
            with np.load(directory / "terms.npz") as saved:
                terms = TermCounts(saved["indptr"], saved["tokens"], saved["counts"])
        return cls(data["ids"], data["tags"], retriever, cls.load(directory / "sections"), data.get("stamp", ""),
                   data.get("tokenizer", ""), terms)
