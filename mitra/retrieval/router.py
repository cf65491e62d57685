"""Tier 1: which analyses is a question about? Abstracts (dense + BM25) and each
analysis's best full-text evidence (BM25 over every analysis's sections), fused."""

from __future__ import annotations

import re
from functools import lru_cache

from mitra.core.settings import Settings, System
from mitra.core.text import spelled_out, tokenize
from mitra.core.types import RoutedAnalysis, RoutingResult
from mitra.models.embedders import Embedder
from mitra.retrieval.fusion import fuse, ranked_ids
from mitra.store.reader import KnowledgeReader


_ID_LIKE = re.compile(r"[A-Za-z]\w*[-_./]\w*\d")


def matched_words(question: str, texts: list[str]) -> list[list[str]]:
    """For each of ``texts``, the question's words (as written, once each) whose search
    tokens it holds."""
    words = {w: set(t) for w in re.findall(r"[\w\-→μ]+", question) if (t := tokenize(w))}
    return [[w for w, tokens in words.items() if tokens <= held] for held in map(_tokens, texts)]


@lru_cache(maxsize=1024)
def _tokens(text: str) -> frozenset[str]:
    """A routing text's tokens: the same few analyses are candidates again and again, and
    tokenizing an abstract took ~2 ms a candidate."""
    return frozenset(tokenize(text))


class Router:
    """Tier 1: which analyses is this question about?"""

    def __init__(self, kb: KnowledgeReader, embedder: Embedder, settings: Settings):
        self.kb = kb
        self.embedder = embedder
        self.settings = settings

    def route(self, question: str, top_n: int | None = None, system: System = "hybrid") -> RoutingResult:
        """The ``top_n`` analyses for ``question``; ``system`` compares routing by one
        retriever alone (``bm25``, ``dense``) with the fused default."""
        with self.kb.routing():  # every list and candidate read at one catalog version
            return self._route(question, top_n or self.settings.route_top_n, system)

    def _route(self, question: str, top_n: int, system: System) -> RoutingResult:
        s = self.settings
        scored: dict[str, list[tuple[str, float]]] = {}
        if system != "bm25":
            vector = self.embedder.embed_queries([spelled_out(question)])[0]
            scored["dense"] = self.kb.route_dense(vector, s.route_k)
        if system != "dense":
            scored["bm25"] = self.kb.route_bm25(question, s.route_k)
        if system not in ("bm25", "dense") and s.route_weight_evidence > 0:
            scored["evidence"] = self.kb.route_evidence(tokenize(question), s.route_k)
        weights = {"dense": s.route_weight_dense, "bm25": s.route_weight_bm25, "evidence": s.route_weight_evidence}
        fused = fuse(scored, weights, s.fusion, s.rrf_k, s.route_fusion_depth)
        detail: dict[str, dict[str, float]] = {}
        for name, ranked in scored.items():
            for rank, (item, score) in enumerate(ranked, start=1):
                detail.setdefault(item, {}).update({name: score, f"{name}_rank": rank})
        named = self._named(question)
        for item in named:
            fused[item] = 1.0  # "best in every list": the member said which analysis they mean
            detail.setdefault(item, {})["named"] = 1.0
        order = named + [item for item in ranked_ids(fused) if item not in named]
        firsts = [ranked[0][0] for ranked in scored.values() if ranked]
        analyses = [a for a in map(self.kb.get_analysis, order[:top_n]) if a is not None]
        candidates = []
        for analysis, matched in zip(analyses, matched_words(question, [a.routing_text for a in analyses])):
            score = fused[analysis.id]
            strong = not candidates and (analysis.id in named or firsts.count(analysis.id) >= 2)
            candidates.append(RoutedAnalysis(analysis=analysis, score=score, scores={**detail[analysis.id], "fused": score},
                                             confidence="strong" if strong else "weak", matched=matched))
        return RoutingResult(question=question, candidates=candidates)

    def _named(self, question: str) -> list[str]:
        """Analyses whose id the question spells out ("SMP-24-003 uncertainties"), in the
        order named: full-text evidence must not route such a question elsewhere. Ids are
        read only when the question holds an id-like word (letters, a separator, a digit)."""
        if not _ID_LIKE.search(question):
            return []
        lowered = question.lower()
        found = [(lowered.find(a.id.lower()), a.id) for a in self.kb.analyses()
                 if re.search(rf"(?<![\w-]){re.escape(a.id.lower())}(?![\w-])", lowered)]
        return [item for _, item in sorted(found)]
