"""Everything online retrieval needs, loaded once per process: ``build_pipeline``."""

from __future__ import annotations

from dataclasses import dataclass

from mitra.core.settings import Settings, get_settings
from mitra.models.embedders import Embedder, load_embedder
from mitra.models.rerank import load_reranker
from mitra.retrieval.retriever import Retriever
from mitra.retrieval.router import Router
from mitra.store.knowledge_base import KnowledgeBase


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
    from mitra.models.adapted import load_adapted

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
