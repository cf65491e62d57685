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
from mitra.rerank import Reranker, load_reranker
from mitra.settings import SYSTEMS, Settings, get_settings
from mitra.store import KnowledgeBase, SearchFilter
from mitra.text import tokenize
from mitra.types import Chunk, Hit, RoutedAnalysis, RoutingResult

System = Literal["bm25", "dense", "hybrid", "rerank", "adapted"]
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


def ranked_ids(scores: dict[str, float]) -> list[str]:
    """Best first; equal scores in id order, so a ranking never depends on the order
    the candidates arrived in (hash seeds, set iteration)."""
    return sorted(scores, key=lambda item: (-scores[item], item))


def mix(fused: dict[str, float], reranked: dict[str, float], weight: float | None) -> dict[str, float]:
    """A reranker's scores combined with the fused ones over the reranked passages: the
    min-max scaled fused score plus ``weight`` times the min-max scaled reranker score;
    ``weight`` None ranks by the reranker alone."""
    if weight is None:
        return dict(reranked)
    f, r = _scaled(fused), _scaled(reranked)
    return {i: f.get(i, 0.0) + weight * r[i] for i in reranked}


def _scaled(scores: dict[str, float]) -> dict[str, float]:
    low, high = min(scores.values(), default=0.0), max(scores.values(), default=0.0)
    return {i: (s - low) / (high - low) if high > low else 1.0 for i, s in scores.items()}


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
    ) -> RetrievalResult:
        s = self.settings
        system = system or self.default_system
        if system not in SYSTEMS:
            raise ValueError(f"unknown retrieval system '{system}': choose one of {', '.join(SYSTEMS)}")
        k = k or s.final_k
        search_filter = SearchFilter(
            version=version,
            include_superseded=s.include_superseded if include_superseded is None else include_superseded,
        )
        run = _Run(analysis_id, question, tokenize(question), search_filter, Timer())
        if system != "bm25":
            self._dense(run)
        if system != "dense":
            self._bm25(run)
        if system in ("bm25", "dense"):
            order = [i for i, _ in run.scored[system]]
        else:
            order = self._fuse(run)
        reranker = {"rerank": self.reranker, "adapted": self.adapted}.get(system)
        self._fetch(run, order[: max(k, s.rerank_top_n)])
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
            vector = self.embedder.embed_queries([run.question])[0]
        with run.timer.stage("dense"):
            dense = self.kb.dense_search(run.analysis_id, vector, self.settings.dense_k, run.filter)
        run.add("dense", [(c.id, similarity) for c, similarity in dense])
        run.chunks.update((c.id, c) for c, _ in dense)

    def _bm25(self, run: "_Run") -> None:
        with run.timer.stage("bm25"):
            run.add("bm25", self.kb.bm25_search(run.analysis_id, run.tokens, self.settings.bm25_k, run.filter))

    def _fuse(self, run: "_Run") -> list[str]:
        """Dense and BM25, then each candidate's section (tree-structured retrieval),
        then BM25 again with the query expanded from the best first-pass passages
        (pseudo-relevance feedback); one weighted fusion of all four lists."""
        s = self.settings
        weights = {"dense": s.weight_dense, "bm25": s.weight_bm25, "section": s.weight_section, "prf": s.weight_prf}
        with run.timer.stage("fusion"):
            if s.weight_section > 0:
                candidates = sorted({item for pairs in run.scored.values() for item, _ in pairs})
                sections = self.kb.section_scores(run.analysis_id, run.tokens, candidates, run.filter)
                run.add("section", sorted(sections, key=lambda pair: (-pair[1], pair[0])))
            fused = fuse(run.scored, weights, s.fusion, s.rrf_k)
        if s.weight_prf > 0 and s.prf_docs > 0 and s.prf_terms > 0:
            with run.timer.stage("prf"):
                top = ranked_ids(fused)[: s.prf_docs]
                self._fetch(run, top)
                index = self.kb.bm25_index(run.analysis_id)
                terms = index.expansion_terms([run.chunks[i].index_text for i in top], run.tokens, s.prf_terms)
                if terms:
                    run.add("prf", self.kb.bm25_search(run.analysis_id, run.tokens + terms, s.bm25_k, run.filter))
                    fused = fuse(run.scored, weights, s.fusion, s.rrf_k)
        order = ranked_ids(fused)
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


class Router:
    """Tier 1: which analyses is this question about?"""

    def __init__(self, kb: KnowledgeBase, embedder: Embedder, settings: Settings):
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
            vector = self.embedder.embed_queries([question])[0]
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


@dataclass
class Pipeline:
    """Everything online retrieval needs, loaded once per process."""

    settings: Settings
    embedder: Embedder
    kb: KnowledgeBase
    router: Router
    retriever: Retriever
    reranker_note: str
    adapted_note: str = ""


def build_pipeline(
    settings: Settings | None = None, *, embedder: Embedder | None = None, with_reranker: bool = True
) -> Pipeline:
    """The stores and models for ``settings``; ``with_reranker=False`` skips loading the
    rerankers (indexing and routing need neither)."""
    from mitra.adapt import load_adapted

    settings = settings or get_settings()
    embedder = embedder or load_embedder(settings)
    kb = KnowledgeBase(settings, embedder)
    reranker, note = load_reranker(settings) if with_reranker else (None, "reranker not loaded")
    adapted, adapted_note = load_adapted(settings) if with_reranker else (None, "adapted reranker not loaded")
    return Pipeline(
        settings=settings,
        embedder=embedder,
        kb=kb,
        router=Router(kb, embedder, settings),
        retriever=Retriever(kb, embedder, reranker, settings, adapted=adapted),
        reranker_note=note,
        adapted_note=adapted_note,
    )
