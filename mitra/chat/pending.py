"""An answerer whose model is still loading: the chat draws and retrieves meanwhile.

Starting the answering model (the embedded llama.cpp server reading a 1.1 GB GGUF) took
most of the 36-48 s between "Sign in" and the chat on 2 shared cores. The app loads it in
the background from the first page a process serves (``mitra.ui.preload``), and a session
gets this stand-in, which waits for the model only when a question needs it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mitra.chat.session import AnswererLike, Exchange
    from mitra.retrieval.pipeline import Pipeline


class PendingAnswerer:
    """``AnswererLike``: the answerer ``loading()`` loads, once loaded (for ``pipeline``, a
    member's scoped view, where given); anything asked of it waits for that. ``loading`` is
    asked again each time until a load succeeds: a failed one is started again."""

    def __init__(self, loading: "Callable[[], Future[AnswererLike]]", pipeline: "Pipeline | None" = None) -> None:
        self.loading, self.pipeline = loading, pipeline
        self._ready: "AnswererLike | None" = None

    @property
    def ready(self) -> bool:
        return self._ready is not None or self.loading().done()

    def loaded(self) -> "AnswererLike":
        if self._ready is None:
            answerer = self.loading().result()
            self._ready = answerer.for_pipeline(self.pipeline) if self.pipeline is not None else answerer
        return self._ready

    def for_pipeline(self, pipeline: "Pipeline") -> "PendingAnswerer":
        return PendingAnswerer(self.loading, pipeline)

    def stream(self, analysis, question: str, history: "Sequence[Exchange]", on_prompt=None) -> Iterator:
        yield from self.loaded().stream(analysis, question, history, on_prompt=on_prompt)

    def condense(self, history: "Sequence[Exchange]", question: str) -> str:
        return self.loaded().condense(history, question)

    def __getattr__(self, name: str):
        # what across answers read of an answerer (retriever, coverage, trusted, write, model_info)
        if name in ("loading", "pipeline", "_ready"):
            raise AttributeError(name)
        return getattr(self.loaded(), name)
