"""Everything online retrieval needs, loaded once per process: ``build_pipeline``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from mitra.core.settings import Settings, get_settings
from mitra.models.embedders import Embedder, load_embedder
from mitra.models.rerank import load_reranker
from mitra.retrieval.retriever import Retriever
from mitra.retrieval.router import Router
from mitra.store.knowledge_base import KnowledgeBase

if TYPE_CHECKING:
    from mitra.access.policy import Principal
    from mitra.access.scoped import ScopedKnowledge


@dataclass
class Pipeline:
    """Everything online retrieval needs, loaded once per process."""

    settings: Settings
    embedder: Embedder
    kb: "KnowledgeBase | ScopedKnowledge"  # scoped once a principal is given
    router: Router
    retriever: Retriever
    reranker_note: str
    adapted_note: str = ""
    principal: "Principal | None" = None  # None: unscoped, as ingestion and the operator's CLI read

    @property
    def principal_name(self) -> str:
        """Who reads through this pipeline, as the audit trail names them."""
        return self.principal.user if self.principal else "operator"

    def with_settings(self, **updates) -> "Pipeline":
        """The same stores and models read with other query-time settings (fusion weights,
        depths): what a benchmark compares without rebuilding anything."""
        settings = self.settings.model_copy(update=updates)
        retriever = self.retriever
        return replace(self, settings=settings, router=Router(self.kb, self.embedder, settings),
                       retriever=Retriever(self.kb, self.embedder, retriever.reranker, settings, adapted=retriever.adapted))

    def for_principal(self, principal: "Principal") -> "Pipeline":
        """The same models over the analyses ``principal`` may read, under the access
        policy in settings (``mitra.access``): routing, retrieval and every listing."""
        from mitra.access.scoped import scope

        if self.principal is not None:
            raise ValueError(f"this pipeline already reads as {self.principal.user}: scope the unscoped one")
        scoped = scope(self.kb, principal)
        retriever = self.retriever
        return replace(
            self,
            kb=scoped,
            router=Router(scoped, self.embedder, self.settings),
            retriever=Retriever(scoped, self.embedder, retriever.reranker, self.settings, adapted=retriever.adapted),
            principal=principal,
        )


def build_pipeline(
    settings: Settings | None = None,
    *,
    embedder: Embedder | None = None,
    with_reranker: bool = True,
    principal: "Principal | None" = None,
) -> Pipeline:
    """The stores and models for ``settings``; ``with_reranker=False`` skips loading the
    rerankers (indexing and routing need neither); ``principal`` scopes every read to the
    analyses they may read."""
    from mitra.models.adapted import load_adapted
    from mitra.store.index_files import published_model

    settings = settings or get_settings()
    embedder = embedder or load_embedder(settings)
    kb = KnowledgeBase(settings, embedder)
    reranker, note = load_reranker(settings) if with_reranker else (None, "reranker not loaded")
    adapted, adapted_note = load_adapted(settings, published_model(settings)) if with_reranker else (None, "adapted reranker not loaded")
    pipeline = Pipeline(
        settings=settings,
        embedder=embedder,
        kb=kb,
        router=Router(kb, embedder, settings),
        retriever=Retriever(kb, embedder, reranker, settings, adapted=adapted),
        reranker_note=note,
        adapted_note=adapted_note,
    )
    return pipeline.for_principal(principal) if principal is not None else pipeline
