"""Online retrieval: tier 1 routing and tier 2 hybrid retrieval with reranking.

tier 1  ``Router.route(question)``            abstracts: dense + BM25, fused
tier 2  ``Retriever.search(analysis, question)`` one analysis: dense top-k + BM25
        top-k -> weighted score fusion (convex, or RRF) -> cross-encoder rerank of the
        top ``rerank_top_n`` -> top ``final_k``.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator, Literal

from mitra.embedders import Embedder, load_embedder
from mitra.rerank import CrossEncoderReranker, load_reranker
from mitra.settings import Settings, get_settings
from mitra.store import KnowledgeBase, SearchFilter
from mitra.types import Chunk, Hit, RoutedAnalysis, RoutingResult

System = Literal["bm25", "dense", "hybrid", "rerank"]
SYSTEMS: tuple[str, ...] = ("bm25", "dense", "hybrid", "rerank")


def reciprocal_rank_fusion(
    rankings: dict[str, list[str]], weights: dict[str, float], k: int
) -> dict[str, float]:
    """score(d) = sum_r w_r / (k + rank_r(d)); ranks start at 1 (Cormack et al. 2009)."""
    fused: dict[str, float] = {}
    for name, ids in rankings.items():
        for rank, item in enumerate(ids, start=1):
            fused[item] = fused.get(item, 0.0) + weights[name] / (k + rank)
    return fused


def convex_fusion(scored: dict[str, list[tuple[str, float]]], weights: dict[str, float]) -> dict[str, float]:
    """score(d) = sum_r w_r * norm_r(d) / sum_r w_r, where norm_r min-max scales retriever
    r's scores over its candidate list and is 0 for a candidate r did not return
    (Bruch et al. 2023). Unlike RRF it keeps how far apart scores are, not only their order."""
    total = sum(weights[name] for name in scored)
    fused: dict[str, float] = {}
    for name, pairs in scored.items():
        if not pairs:
            continue
        values = [score for _, score in pairs]
        low, span = min(values), max(values) - min(values)
        for item, score in pairs:
            norm = (score - low) / span if span > 0 else 1.0
            fused[item] = fused.get(item, 0.0) + weights[name] * norm / total
    return fused


def fuse(scored: dict[str, list[tuple[str, float]]], weights: dict[str, float], method: str, rrf_k: int) -> dict[str, float]:
    """Both tiers fuse with the configured method; either way 1.0 means "best in every list"."""
    if method == "convex":
        return convex_fusion(scored, weights)
    rankings = {name: [item for item, _ in pairs] for name, pairs in scored.items()}
    best_possible = sum(weights[name] for name in scored) / (rrf_k + 1)
    return {item: score / best_possible for item, score in reciprocal_rank_fusion(rankings, weights, rrf_k).items()}


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
    def __init__(
        self,
        kb: KnowledgeBase,
        embedder: Embedder,
        reranker: CrossEncoderReranker | None,
        settings: Settings,
    ):
        self.kb = kb
        self.embedder = embedder
        self.reranker = reranker
        self.settings = settings

    def retrieve(self, analysis_id: str, question: str, **options) -> list[Hit]:
        """The hits of ``search`` (same keyword options), without timings."""
        return self.search(analysis_id, question, **options).hits

    def search(
        self,
        analysis_id: str,
        question: str,
        *,
        system: System = "rerank",
        k: int | None = None,
        version: str | None = None,
        include_superseded: bool | None = None,
    ) -> RetrievalResult:
        if system not in SYSTEMS:
            raise ValueError(f"unknown retrieval system '{system}': choose one of {', '.join(SYSTEMS)}")
        s = self.settings
        k = k or s.final_k
        search_filter = SearchFilter(
            version=version,
            include_superseded=s.include_superseded if include_superseded is None else include_superseded,
        )
        timer = Timer()
        chunks: dict[str, Chunk] = {}
        scores: dict[str, dict[str, float]] = {}
        scored: dict[str, list[tuple[str, float]]] = {}

        if system != "bm25":
            with timer.stage("embed_query"):
                vector = self.embedder.embed_queries([question])[0]
            with timer.stage("dense"):
                dense = self.kb.dense_search(analysis_id, vector, s.dense_k, search_filter)
            scored["dense"] = [(c.id, similarity) for c, similarity in dense]
            for rank, (chunk, similarity) in enumerate(dense, start=1):
                chunks[chunk.id] = chunk
                scores.setdefault(chunk.id, {}).update(dense=similarity, dense_rank=rank)
        if system != "dense":
            with timer.stage("bm25"):
                sparse = self.kb.bm25_search(analysis_id, question, s.bm25_k, search_filter)
            scored["bm25"] = sparse
            for rank, (item, score) in enumerate(sparse, start=1):
                scores.setdefault(item, {}).update(bm25=score, bm25_rank=rank)

        if system in ("bm25", "dense"):
            order = [i for i, _ in scored[system]]
        else:
            with timer.stage("fusion"):
                fused = fuse(scored, {"dense": s.weight_dense, "bm25": s.weight_bm25}, s.fusion, s.rrf_k)
                order = sorted(fused, key=fused.__getitem__, reverse=True)
                for rank, item in enumerate(order, start=1):
                    scores[item].update(fused=fused[item], fused_rank=rank)

        missing = [i for i in order[: max(k, s.rerank_top_n)] if i not in chunks]
        chunks.update(self.kb.get_chunks(analysis_id, missing))

        reranked = system == "rerank" and self.reranker is not None
        if reranked:
            head = order[: s.rerank_top_n]
            with timer.stage("rerank"):
                logits = self.reranker.score(question, [chunks[i].index_text for i in head])
            for item, logit in zip(head, logits):
                scores[item]["rerank"] = logit
            order = sorted(head, key=lambda i: scores[i]["rerank"], reverse=True) + order[s.rerank_top_n :]

        hits = [Hit(chunk=chunks[i], rank=r, scores=scores[i]) for r, i in enumerate(order[:k], start=1)]
        return RetrievalResult(hits=hits, timings_ms=timer.timings, system=system, reranked=reranked)


class Router:
    """Tier 1: which analyses is this question about?"""

    def __init__(self, kb: KnowledgeBase, embedder: Embedder, settings: Settings):
        self.kb = kb
        self.embedder = embedder
        self.settings = settings

    def route(self, question: str, top_n: int | None = None) -> RoutingResult:
        s = self.settings
        top_n = top_n or s.route_top_n
        vector = self.embedder.embed_queries([question])[0]
        dense = self.kb.route_dense(vector, s.route_k)
        sparse = self.kb.route_bm25(question, s.route_k)
        weights = {"dense": s.route_weight_dense, "bm25": s.route_weight_bm25}
        fused = fuse({"dense": dense, "bm25": sparse}, weights, s.fusion, s.rrf_k)
        detail: dict[str, dict[str, float]] = {}
        for name, ranked in (("dense", dense), ("bm25", sparse)):
            for rank, (item, score) in enumerate(ranked, start=1):
                detail.setdefault(item, {}).update({name: score, f"{name}_rank": rank})
        candidates = []
        for item in sorted(fused, key=fused.__getitem__, reverse=True)[:top_n]:
            analysis = self.kb.get_analysis(item)
            if analysis is not None:
                score = fused[item]
                candidates.append(RoutedAnalysis(analysis=analysis, score=score, scores={**detail[item], "fused": score}))
        return RoutingResult(question=question, candidates=candidates)


@dataclass
class Pipeline:
    """Everything online retrieval needs, loaded once per process."""

    settings: Settings
    embedder: Embedder
    kb: KnowledgeBase
    router: Router
    retriever: Retriever
    reranker_note: str


def build_pipeline(
    settings: Settings | None = None, *, embedder: Embedder | None = None, with_reranker: bool = True
) -> Pipeline:
    settings = settings or get_settings()
    embedder = embedder or load_embedder(settings)
    kb = KnowledgeBase(settings, embedder)
    reranker, note = load_reranker(settings) if with_reranker else (None, "reranker not loaded")
    return Pipeline(
        settings=settings,
        embedder=embedder,
        kb=kb,
        router=Router(kb, embedder, settings),
        retriever=Retriever(kb, embedder, reranker, settings),
        reranker_note=note,
    )
