"""Indexing from JSONL (``mitra index-jsonl``): one analysis per line, its documents' text inline.

Line format::

    {"analysis_id": "...", "title": "...", "abstract": "...", "experiment": "CMS"?,
     "documents": [{"doc_id": "...", "version": "1", "title": "...", "text": "..."}]}

Every line is validated before any store is touched, and each analysis is then
replaced atomically, so a bad file changes nothing and a good one never leaves
an analysis half-indexed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Literal

from pydantic import BaseModel, Field, field_validator

from ingest.chunk.from_text import chunk_text
from mitra.access.policy import attach_groups
from mitra.core.jsonl import InputError, JsonlFile
from mitra.store.lock import writer_lock
from mitra.core.settings import Settings
from mitra.store.knowledge_base import KnowledgeBase
from mitra.core.types import Analysis, Chunk, Document, version_label


class JsonlDocument(BaseModel):
    doc_id: str
    version: str = "1"
    title: str = ""
    text: str
    # How the text marks its structure; "auto" tells from the sectioning it finds.
    format: Literal["auto", "markdown", "latex", "text"] = "auto"

    @field_validator("doc_id", "version", "text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value


class JsonlAnalysis(BaseModel):
    analysis_id: str
    title: str
    abstract: str = ""
    experiment: str | None = None
    groups: list[str] = Field(default_factory=list)  # who may read it (mitra.access), beside the policy file
    documents: list[JsonlDocument] = Field(default_factory=list)

    @field_validator("analysis_id", "title")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value.strip()


def load_analyses(path: Path) -> JsonlFile[JsonlAnalysis]:
    """The file's analyses, every line validated now (one streaming pass) and read again
    when indexed, so memory holds one analysis at a time."""
    records = JsonlFile(path, JsonlAnalysis)
    seen: set[str] = set()
    for record in records:
        if record.analysis_id in seen:
            raise InputError(f"{path}: analysis '{record.analysis_id}' appears on more than one line")
        seen.add(record.analysis_id)
        versions = [(d.doc_id, d.version) for d in record.documents]
        if len(versions) != len(set(versions)):
            raise InputError(f"{path}: analysis '{record.analysis_id}' repeats a document version")
    return records


@dataclass
class PreparedAnalysis:
    """One analysis chunked and ready to index; each document carries its text format
    and coverage (the share of its words that reach a chunk)."""

    analysis: Analysis
    documents: list[Document]
    chunks: list[Chunk]

    def chunk_count(self, document: Document) -> int:
        return sum(c.doc_id == document.doc_id and c.version == document.version for c in self.chunks)


@dataclass
class IndexedAnalysis:
    """What indexing one analysis did (no chunk texts: a batch's memory stays flat)."""

    analysis_id: str
    chunks: int
    documents: list[dict]  # doc_id, version, format, chunks, coverage

    @classmethod
    def of(cls, prepared: PreparedAnalysis) -> "IndexedAnalysis":
        return cls(
            analysis_id=prepared.analysis.id,
            chunks=len(prepared.chunks),
            documents=[
                {"doc_id": d.doc_id, "version": d.version, "format": d.format, "chunks": prepared.chunk_count(d),
                 "coverage": None if d.coverage is None else round(d.coverage, 4)}
                for d in prepared.documents
            ],
        )


class LowCoverage(InputError):
    """Documents whose text would be lost: no chunks, or too few of their words in them."""


class DocumentTooLarge(InputError):
    """A document over ``max_document_mb``."""


def prepare(record: JsonlAnalysis, settings: Settings) -> PreparedAnalysis:
    for d in record.documents:
        size_mb = len(d.text.encode()) / 1e6
        if size_mb > settings.max_document_mb:
            raise DocumentTooLarge(
                f"analysis '{record.analysis_id}' document '{d.doc_id}' {version_label(d.version)} is "
                f"{size_mb:.1f} MB, over max_document_mb ({settings.max_document_mb:g} MB): split it, or raise the limit"
            )
    analysis = attach_groups(
        Analysis(id=record.analysis_id, title=record.title, abstract=record.abstract, experiment=record.experiment),
        record.groups,
    )
    documents, chunks = [], []
    for d in record.documents:
        document = Document(
            analysis_id=analysis.id,
            doc_id=d.doc_id,
            version=d.version,
            title=d.title,
            source="jsonl",
            sha256=hashlib.sha256(d.text.encode()).hexdigest(),
        )
        chunked = chunk_text(document, d.text, settings.chunk_min_chars, settings.chunk_max_chars, d.format)
        documents.append(document.model_copy(update={"format": chunked.format, "coverage": chunked.coverage}))
        chunks.extend(chunked.chunks)
    return PreparedAnalysis(analysis, documents, chunks)


def intake_problems(prepared: PreparedAnalysis, settings: Settings) -> list[str]:
    """What would be lost indexing this analysis, one line per document."""
    problems = []
    for d in prepared.documents:
        where = f"analysis '{d.analysis_id}' document '{d.doc_id}' {version_label(d.version)} ({d.format})"
        if prepared.chunk_count(d) == 0:
            problems.append(f"{where}: its text yields no chunks")
        elif d.coverage is not None and d.coverage < settings.min_coverage:
            problems.append(
                f"{where}: only {d.coverage:.0%} of its words reach a chunk (min_coverage {settings.min_coverage:.0%})"
            )
    return problems


def check_intake(problems: list[str], hint: str = "") -> None:
    """Raise ``LowCoverage`` naming the documents that would lose text."""
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise LowCoverage(f"{'; '.join(problems[:3])}{more}: not indexed. {hint}Pass --allow-low-coverage to index anyway")


_JSONL_HINT = 'Give the document\'s "format" (markdown, latex or text) if it was misread. '


def index_records(
    kb: KnowledgeBase,
    records: Iterable[JsonlAnalysis],
    on_analysis: Callable[[str, int], Callable[[int], None] | None] | None = None,
    allow_low_coverage: bool = False,
    groups: list[str] | None = None,
) -> list[IndexedAnalysis]:
    """Index validated analyses (``records`` is read twice: a list, or a ``JsonlFile``).
    Every document is chunked and checked first (too large, no chunks, or coverage below
    ``settings.min_coverage`` stops the run before any store is touched, unless
    ``allow_low_coverage`` for the last two); then each analysis is replaced atomically,
    its routing entry with it. Holds the data dir's writer lock throughout.
    ``on_analysis(id, n_chunks)`` may return a progress callback; ``groups`` restricts
    every analysis to those groups (beside any its record names)."""
    settings = kb.settings
    with writer_lock(settings, "index-jsonl"):
        problems = [p for r in records for p in intake_problems(prepare(r, settings), settings)]
        if not allow_low_coverage:
            check_intake(problems, _JSONL_HINT)
        kb.collect_garbage()  # under the lock: no other writer is building anything
        done = []
        for record in records:
            prepared = prepare(record, settings)
            progress = on_analysis(prepared.analysis.id, len(prepared.chunks)) if on_analysis else None
            analysis = attach_groups(prepared.analysis, groups)
            kb.replace_analysis(analysis, prepared.documents, prepared.chunks, progress=progress)
            done.append(IndexedAnalysis.of(prepared))
        kb.sync_abstracts()
    return done


def index_jsonl(
    kb: KnowledgeBase,
    path: Path,
    on_analysis: Callable[[str, int], Callable[[int], None] | None] | None = None,
    allow_low_coverage: bool = False,
    groups: list[str] | None = None,
) -> list[IndexedAnalysis]:
    return index_records(kb, load_analyses(path), on_analysis, allow_low_coverage, groups)
