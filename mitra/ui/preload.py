"""The app's stores and models, loaded in the background from the first page a process serves.

Before, the chat page built the pipeline (embedder, reranker, stores) and started the
answering model only once a member had signed in, and drew nothing until both were up:
36-48 s on 2 shared cores. Now the first page a process serves (the sign-in, for a
members-only app) starts the loads on a thread, stores first: the member types their
password while they load, a page waits only for the stores it draws from, and a
question waits for the models only if they are still loading (``mitra.chat.pending``).

A load that fails is tried again by the next call, as the page's next rerun did before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from mitra.core.settings import Settings


class Preload:
    """The pipeline and the answerer of one process, each loading once in the background."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mitra-preload")
        self._lock = threading.Lock()
        self._loads: dict[str, Future] = {}
        self.start()

    def start(self) -> None:
        """Start whatever is not loaded or loading: the stores (quick, what a page draws from),
        then the pipeline's models, then the answerer (it needs the pipeline)."""
        self._load("stores", self._open_stores)
        self._load("pipeline", self._build_pipeline)
        self._load("answerer", self._build_answerer)

    def _load(self, name: str, build: Callable[[], object]) -> Future:
        with self._lock:
            future = self._loads.get(name)
            if future is None or (future.done() and future.exception() is not None):
                future = self._loads[name] = self._pool.submit(build)
            return future

    def _open_stores(self):
        from mitra.store.knowledge_base import KnowledgeBase

        return KnowledgeBase(self.settings)  # reads need no embedder

    def _build_pipeline(self):
        from mitra.retrieval.pipeline import build_pipeline

        return build_pipeline(self.settings)

    def reader(self, principal):
        """What ``principal`` reads through: the pipeline scoped to them once it is loaded,
        meanwhile a stand-in that reads the stores at once and waits for the models when
        asked to route or retrieve."""
        from mitra.access.scoped import scope
        from mitra.chat.pending import PendingPipeline

        loaded = self._loads.get("pipeline")
        if loaded is not None and loaded.done() and loaded.exception() is None:
            return loaded.result().for_principal(principal)
        stores = self._load("stores", self._open_stores).result()
        return PendingPipeline(scope(stores, principal), self.settings, principal, self.pipeline)

    def _build_answerer(self):
        from mitra.chat.session import load_answerer

        # on the load thread, after the pipeline's load: its outcome, never a new load (it would wait on itself)
        return load_answerer(self._loads["pipeline"].result())

    def pipeline(self):
        """The pipeline, once loaded (its error, once, where loading failed)."""
        return self._load("pipeline", self._build_pipeline).result()

    def answerer(self) -> Future:
        """The answerer's load: a session holds it while it finishes."""
        return self._load("answerer", self._build_answerer)

    def loading(self, name: str) -> bool:
        future = self._loads.get(name)
        return future is not None and not future.done()
