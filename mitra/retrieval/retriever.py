"""Tier 2: retrieval inside one analysis.

``Retriever.search(analysis, question)``: dense top-k + BM25
        top-k -> weighted score fusion (z-score, min-max or RRF) -> cross-encoder rerank of the
        top ``rerank_top_n`` -> top ``final_k``.
"""

from __future__ import annotations

import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Iterator

from mitra.models.embedders import Embedder
from mitra.models.rerank import Reranker
from mitra.core.settings import SYSTEMS, Settings, System
from mitra.store.filters import SearchFilter
from mitra.store.reader import KnowledgeReader
from mitra.store.term_scores import coverage
from mitra.core.text import spelled_out, tokenize
from mitra.core.types import Chunk, Hit, chunk_place
from mitra.retrieval.fusion import fuse, guarded_order, mix, ranked_ids


@dataclass
class Timer:
    timings: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        yield
        self.timings[name] = self.timings.get(name, 0.0) + (time.perf_counter() - start) * 1000


@dataclass
class RetrievalResult:
    hits: list[Hit]
    timings_ms: dict[str, float]
    system: str
    reranked: bool


class Retriever:
    """Tier 2: passages of one analysis for a question, one method per stage (dense, BM25,
    fusion, fetch, rerank) so that every system is the same stages switched on or off,
    with each stage's score and time kept on the hits."""

    def __init__(
        self,
        kb: KnowledgeReader,
        embedder: Embedder,
        reranker: Reranker | None,
        settings: Settings,
        adapted: Reranker | None = None,
    ):
        self.kb = kb
        self.embedder = embedder
        self.reranker = reranker  # the configured cross-encoder, where it loaded
        self.adapted = adapted  # the reranker `mitra adapt` trained on this corpus, where enabled
        self.settings = settings

    def retrieve(self, analysis_id: str, question: str, **options) -> list[Hit]:
        """The hits of ``search`` (same keyword options), without timings."""
        return self.search(analysis_id, question, **options).hits

    def search(
        self,
        analysis_id: str,
        question: str,
        *,
        system: System | None = None,
        k: int | None = None,
        version: str | None = None,
        include_superseded: bool | None = None,
        left_out: frozenset[str] = frozenset(),
    ) -> RetrievalResult:
        s = self.settings
        system = system or self.default_system
        if system not in SYSTEMS:
            raise ValueError(f"unknown retrieval system '{system}': choose one of {', '.join(SYSTEMS)}")
        k = k or s.final_k
        search_filter = SearchFilter(
            version=version,
            include_superseded=s.include_superseded if include_superseded is None else include_superseded,
            left_out=left_out,
        )
        run = _Run(analysis_id, question, tokenize(question), search_filter, Timer())
        with ExitStack() as generation:
            with run.timer.stage("catalog"):  # every stage reads the generation current now
                generation.enter_context(self.kb.reading(analysis_id))
            return self._search(run, system, k)

    def _search(self, run: "_Run", system: System, k: int) -> RetrievalResult:
        s = self.settings
        if system != "bm25":
            self._dense(run)
        if system != "dense":
            self._bm25(run)
        if system in ("bm25", "dense"):
            order = [i for i, _ in run.scored[system]]
        else:
            order = self._fuse(run)
        reranker = {"rerank": self.reranker, "adapted": self.adapted}.get(system)
        with run.timer.stage("fetch"):  # texts only for the passages handed on
            self._fetch(run, order[: max(k, s.rerank_top_n) if reranker is not None else k])
        if reranker is not None:
            order = self._rerank(run, reranker, order)
        hits = [Hit(chunk=run.chunks[i], rank=r, scores=run.scores[i]) for r, i in enumerate(order[:k], start=1)]
        return RetrievalResult(hits=hits, timings_ms=run.timer.timings, system=system, reranked=reranker is not None)

    @property
    def default_system(self) -> System:
        """``settings.retrieval_system``; ``auto`` is the adapted reranker where one is
        enabled, else the cross-encoder where it loaded, else the fused ranking."""
        if self.settings.retrieval_system != "auto":
            return self.settings.retrieval_system
        if self.adapted is not None:
            return "adapted"
        return "rerank" if self.reranker is not None else "hybrid"

    # ---------------------------------------------------------------- stages
    def _dense(self, run: "_Run") -> None:
        with run.timer.stage("embed_query"):
            vector = self.embedder.embed_queries([spelled_out(run.question)])[0]
        with run.timer.stage("dense"):
            run.add("dense", self.kb.dense_search(run.analysis_id, vector, self.settings.dense_k, run.filter))

    def _bm25(self, run: "_Run") -> None:
        with run.timer.stage("bm25"):
            run.add("bm25", self.kb.bm25_search(run.analysis_id, run.tokens, self.settings.bm25_k, run.filter))

    def _fuse(self, run: "_Run") -> list[str]:
        """Dense and BM25, then each candidate's section (tree-structured retrieval) and
        its share of the question's rare words (``coverage``), then BM25 again with the
        query expanded from the best first-pass passages (pseudo-relevance feedback),
        then each candidate's best neighbouring paragraph; one weighted fusion of all."""
        s = self.settings
        weights = {"dense": s.weight_dense, "bm25": s.weight_bm25, "section": s.weight_section, "prf": s.weight_prf,
                   "coverage": s.weight_coverage}
        with run.timer.stage("fusion"):
            candidates = sorted({item for pairs in run.scored.values() for item, _ in pairs})
            if s.weight_section > 0:
                sections = self.kb.section_scores(run.analysis_id, run.tokens, candidates, run.filter)
                run.add("section", sorted(sections, key=lambda pair: (-pair[1], pair[0])))
            if s.weight_coverage > 0:
                run.add("coverage", coverage(self.kb.bm25_index(run.analysis_id), run.tokens, candidates))
            fused = fuse(run.scored, weights, s.fusion, s.rrf_k, s.fusion_depth)
        if s.weight_prf > 0 and s.prf_docs > 0 and s.prf_terms > 0:
            with run.timer.stage("prf"):
                top = ranked_ids(fused)[: s.prf_docs]
                index = self.kb.bm25_index(run.analysis_id)
                terms = index.expansion_terms(top, run.tokens, s.prf_terms)
                if terms:
                    run.add("prf", self.kb.bm25_search(run.analysis_id, run.tokens + terms, s.bm25_k, run.filter))
                    fused = fuse(run.scored, weights, s.fusion, s.rrf_k, s.fusion_depth)
        if s.weight_context > 0:
            with run.timer.stage("context"):
                weights["context"] = s.weight_context
                run.add("context", sorted(neighbour_scores(fused).items(), key=lambda pair: (-pair[1], pair[0])))
                fused = fuse(run.scored, weights, s.fusion, s.rrf_k, s.fusion_depth)
        order = guarded_order(ranked_ids(fused), run.scored, s.fusion_guard)
        for rank, item in enumerate(order, start=1):
            run.scores.setdefault(item, {}).update(fused=fused[item], fused_rank=rank)
        return order

    def _fetch(self, run: "_Run", ids: list[str]) -> None:
        missing = [i for i in ids if i not in run.chunks]
        run.chunks.update(self.kb.get_chunks(run.analysis_id, missing))

    def _rerank(self, run: "_Run", reranker: Reranker, order: list[str]) -> list[str]:
        """The fused head reranked: by the reranker's scores, or by those mixed with the
        fused ones where the reranker carries a weight (the adapted reranker)."""
        head = order[: self.settings.rerank_top_n]
        with run.timer.stage("rerank"):
            logits = reranker.score(run.question, [run.chunks[i].index_text for i in head])
        for item, logit in zip(head, logits):
            run.scores[item]["rerank"] = logit
        final = mix({i: run.scores[i].get("fused", 0.0) for i in head}, dict(zip(head, logits)),
                    getattr(reranker, "weight", None))
        return ranked_ids(final) + order[len(head) :]


def neighbour_scores(fused: dict[str, float]) -> dict[str, float]:
    """Each candidate's best neighbour: the higher fused score of the paragraphs just
    before and after it in the same document version, where both are candidates. A
    question often names what the paragraph before the answer introduced (tree- and
    window-based retrieval make the same bet). Positions come from the ids
    (``chunk_place``); other ids have no neighbours."""
    at = {place: item for item in fused if (place := chunk_place(item)) is not None}
    scores = {}
    for (prefix, position), item in at.items():
        around = [fused[at[key]] for key in ((prefix, position - 1), (prefix, position + 1)) if key in at]
        if around:
            scores[item] = max(around)
    return scores


@dataclass
class _Run:
    """One query's state as it passes the stages: each stage's scored list, the score
    details of every candidate, and the chunks fetched so far."""

    analysis_id: str
    question: str
    tokens: list[str]
    filter: SearchFilter
    timer: Timer
    scored: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    scores: dict[str, dict[str, float]] = field(default_factory=dict)
    chunks: dict[str, Chunk] = field(default_factory=dict)

    def add(self, stage: str, pairs: list[tuple[str, float]]) -> None:
        self.scored[stage] = pairs
        for rank, (item, score) in enumerate(pairs, start=1):
            self.scores.setdefault(item, {}).update({stage: score, f"{stage}_rank": rank})
