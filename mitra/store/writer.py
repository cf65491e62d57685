"""What the writers write through: the boundary the offline pipeline (``ingest.pipeline``,
``ingest.stages``, ``ingest.ray_stages``), ``mitra index-jsonl`` (``ingest.sources.jsonl``)
and ``mitra ingest repair`` (``ingest.repair``) depend on, beside ``KnowledgeReader``
(``mitra.store.reader``), the one online retrieval reads through.

``KnowledgeBase`` is the implementation; another back end is one module that implements
both protocols, and ``tests/unit/store/test_protocols.py`` checks it the same way.
Besides the writes, a writer reads what it needs to decide what to write: the
catalog's analyses and document versions, an analysis's chunks (a repair re-indexes
them), the counts it reports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol, runtime_checkable

from mitra.core.types import Analysis, Chunk, Document

if TYPE_CHECKING:
    from mitra.core.settings import Settings
    from mitra.models.embedders import Embedder
    from mitra.store.catalog import DocumentRecord
    from mitra.store.filters import SearchFilter

Progress = Callable[[int], None]  # chunks written so far, as a write goes


@runtime_checkable
class KnowledgeWriter(Protocol):
    settings: Settings
    embedder: Embedder | None  # the Ray runner lends the writer the workers' vectors through it

    # writes: each one leaves the stores consistent (see ``mitra.store.knowledge_base``)
    def replace_analysis(
        self,
        analysis: Analysis,
        documents: list[Document],
        chunks: list[Chunk],
        progress: Progress | None = None,
    ) -> None: ...

    def add_document_version(
        self,
        analysis: Analysis,
        document: Document,
        chunks: list[Chunk],
        progress: Progress | None = None,
    ) -> None: ...

    def collect_garbage(self) -> list[str]: ...

    def sync_abstracts(self) -> None: ...

    # what a writer reads to decide
    def is_indexed(self, document: Document) -> bool: ...

    def get_analysis(self, analysis_id: str) -> Analysis | None: ...

    def documents(self, analysis_id: str) -> list[DocumentRecord]: ...

    def chunks(self, analysis_id: str, search_filter: SearchFilter | None = None) -> list[Chunk]: ...

    def stats(self, only: set[str] | None = None) -> dict: ...

    def brief_json(self, analysis_id: str) -> str | None: ...

    def save_brief(self, analysis_id: str, brief: str) -> None: ...
