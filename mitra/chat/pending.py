"""A pipeline and an answerer whose models are still loading: the chat draws meanwhile.

Loading the embedder and reranker, and starting the answering model (the embedded
llama.cpp server reading its GGUF), took the 36-48 s between "Sign in" and the chat on 2
shared cores. The app loads them in the background from the first page a process serves
(``mitra.ui.preload``), and a session gets these stand-ins: what reads the stores (the
analyses, their documents, the counts a page shows) answers at once, and what needs a
model (routing, retrieval, an answer) waits for it when a question comes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mitra.access.policy import Principal
    from mitra.access.scoped import ScopedKnowledge
    from mitra.chat.session import AnswererLike, Exchange
    from mitra.core.settings import Settings
    from mitra.retrieval.pipeline import Pipeline


class PendingPipeline:
    """``Pipeline`` of one principal while its models load: ``kb`` (the stores, scoped to
    the principal), ``settings`` and the principal at once; anything else is the loaded
    pipeline's (``loading()``, scoped to the principal), and waits for it."""

    def __init__(self, kb: "ScopedKnowledge", settings: "Settings", principal: "Principal",
                 loading: "Callable[[], Pipeline]") -> None:
        self.kb, self.settings, self.principal, self.loading = kb, settings, principal, loading
        self._ready: "Pipeline | None" = None

    @property
    def principal_name(self) -> str:
        return self.principal.user

    def loaded(self) -> "Pipeline":
        if self._ready is None:
            self._ready = self.loading().for_principal(self.principal)
        return self._ready

    def __getattr__(self, name: str):
        if name in ("kb", "settings", "principal", "loading", "_ready"):
            raise AttributeError(name)
        return getattr(self.loaded(), name)


class PendingAnswerer:
    """``AnswererLike``: the answerer ``loading()`` loads, once loaded (for ``pipeline``, a
    member's scoped view, where given); anything asked of it waits for that. ``loading`` is
    asked again each time until a load succeeds: a failed one is started again."""

    def __init__(self, loading: "Callable[[], Future[AnswererLike]]", pipeline: "Pipeline | None" = None,
                 across: bool = False) -> None:
        self.loading, self.pipeline, self.across = loading, pipeline, across
        self._ready: "AnswererLike | None" = None

    @property
    def ready(self) -> bool:
        return self._ready is not None or self.loading().done()

    def loaded(self) -> "AnswererLike":
        if self._ready is None:
            answerer = self.loading().result()
            self._ready = answerer.for_pipeline(self.pipeline, self.across) if self.pipeline is not None else answerer
        return self._ready

    def for_pipeline(self, pipeline: "Pipeline", across: bool = False) -> "PendingAnswerer":
        return PendingAnswerer(self.loading, pipeline, across)

    def stream(self, analysis, question: str, history: "Sequence[Exchange]", on_prompt=None) -> Iterator:
        yield from self.loaded().stream(analysis, question, history, on_prompt=on_prompt)

    def condense(self, history: "Sequence[Exchange]", question: str) -> str:
        return self.loaded().condense(history, question)

    def __getattr__(self, name: str):
        # what across answers read of an answerer (retriever, coverage, trusted, write, model_info)
        if name in ("loading", "pipeline", "across", "_ready"):
            raise AttributeError(name)
        return getattr(self.loaded(), name)
