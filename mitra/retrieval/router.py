"""Tier 1: which analyses is a question about? Abstracts: dense + BM25, fused."""

from __future__ import annotations

from mitra.core.settings import Settings, System
from mitra.core.text import spelled_out
from mitra.core.types import RoutedAnalysis, RoutingResult
from mitra.models.embedders import Embedder
from mitra.retrieval.fusion import fuse, ranked_ids
from mitra.store.reader import KnowledgeReader


class Router:
    """Tier 1: which analyses is this question about?"""

    def __init__(self, kb: KnowledgeReader, embedder: Embedder, settings: Settings):
        self.kb = kb
        self.embedder = embedder
        self.settings = settings

    def route(self, question: str, top_n: int | None = None, system: System = "hybrid") -> RoutingResult:
        """The ``top_n`` analyses for ``question``; ``system`` compares routing by one
        retriever alone (``bm25``, ``dense``) with the fused default."""
        s = self.settings
        top_n = top_n or s.route_top_n
        scored: dict[str, list[tuple[str, float]]] = {}
        if system != "bm25":
            vector = self.embedder.embed_queries([spelled_out(question)])[0]
            scored["dense"] = self.kb.route_dense(vector, s.route_k)
        if system != "dense":
            scored["bm25"] = self.kb.route_bm25(question, s.route_k)
        weights = {"dense": s.route_weight_dense, "bm25": s.route_weight_bm25}
        fused = fuse(scored, weights, s.fusion, s.rrf_k)
        detail: dict[str, dict[str, float]] = {}
        for name, ranked in scored.items():
            for rank, (item, score) in enumerate(ranked, start=1):
                detail.setdefault(item, {}).update({name: score, f"{name}_rank": rank})
        candidates = []
        for item in ranked_ids(fused)[:top_n]:
            analysis = self.kb.get_analysis(item)
            if analysis is not None:
                score = fused[item]
                candidates.append(RoutedAnalysis(analysis=analysis, score=score, scores={**detail[item], "fused": score}))
        return RoutingResult(question=question, candidates=candidates)
