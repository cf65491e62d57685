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
from pathlib import Path
from typing import Callable

from pydantic import BaseModel, Field, field_validator

from mitra.chunking import chunk_text
from mitra.jsonl import InputError, read_jsonl
from mitra.settings import Settings
from mitra.store import KnowledgeBase
from mitra.types import Analysis, Chunk, Document


class JsonlDocument(BaseModel):
    doc_id: str
    version: str = "1"
    title: str = ""
    text: str

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
    documents: list[JsonlDocument] = Field(default_factory=list)

    @field_validator("analysis_id", "title")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value.strip()


def load_analyses(path: Path) -> list[JsonlAnalysis]:
    records = read_jsonl(path, JsonlAnalysis)
    seen: set[str] = set()
    for record in records:
        if record.analysis_id in seen:
            raise InputError(f"{path}: analysis '{record.analysis_id}' appears on more than one line")
        seen.add(record.analysis_id)
        versions = [(d.doc_id, d.version) for d in record.documents]
        if len(versions) != len(set(versions)):
            raise InputError(f"{path}: analysis '{record.analysis_id}' repeats a document version")
    return records


def to_records(record: JsonlAnalysis, settings: Settings) -> tuple[Analysis, list[Document], list[Chunk]]:
    analysis = Analysis(
        id=record.analysis_id, title=record.title, abstract=record.abstract, experiment=record.experiment
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
        documents.append(document)
        chunks.extend(chunk_text(document, d.text, settings.chunk_min_chars, settings.chunk_max_chars))
    return analysis, documents, chunks


def index_records(
    kb: KnowledgeBase,
    records: list[JsonlAnalysis],
    on_analysis: Callable[[str, int], Callable[[int], None] | None] | None = None,
) -> list[tuple[str, int]]:
    """Index validated analyses; returns (analysis id, chunk count) pairs.
    ``on_analysis(id, n_chunks)`` may return a progress callback for that analysis."""
    kb.collect_garbage()
    done = []
    for record in records:
        analysis, documents, chunks = to_records(record, kb.settings)
        progress = on_analysis(analysis.id, len(chunks)) if on_analysis else None
        kb.replace_analysis(analysis, documents, chunks, progress=progress, sync=False)
        done.append((analysis.id, len(chunks)))
    kb.sync_abstracts()
    return done


def index_jsonl(
    kb: KnowledgeBase, path: Path, on_analysis: Callable[[str, int], Callable[[int], None] | None] | None = None
) -> list[tuple[str, int]]:
    return index_records(kb, load_analyses(path), on_analysis)
