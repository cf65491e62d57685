"""Indexing from JSONL (``mitra index-jsonl``): one analysis per line, its documents' text inline.

Line format::

    {"analysis_id": "...", "title": "...", "abstract": "...", "experiment": "CMS"?,
     "documents": [{"doc_id": "...", "version": "1", "title": "...", "text": "..."}]}

Every line is validated before any store is touched (a malformed file changes
nothing). Each analysis is then indexed on its own and replaced atomically: one whose
document yields no chunks (or, with ``low_coverage`` "refuse", loses text) is refused
and named, one below the coverage floor is indexed and flagged, the others are indexed,
and a rerun of the same file indexes only what was refused or changed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Literal

from pydantic import BaseModel, Field, field_validator

from ingest.chunk.from_text import chunk_text
from mitra.access.policy import attach_groups
from mitra.core.jsonl import InputError, JsonlFile
from mitra.store.lock import writer_lock
from mitra.brief.build import refresh_briefs
from mitra.core.settings import Settings
from mitra.store.writer import KnowledgeWriter
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
    """One analysis chunked and ready to index; each document carries its text format,
    its coverage (the share of its words that reach a chunk) and the words left out on
    purpose, by kind."""

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
    documents: list[dict]  # doc_id, version, format, chunks, coverage, dropped

    @classmethod
    def of(cls, prepared: PreparedAnalysis) -> "IndexedAnalysis":
        return cls(
            analysis_id=prepared.analysis.id,
            chunks=len(prepared.chunks),
            documents=[
                {"doc_id": d.doc_id, "version": d.version, "format": d.format, "chunks": prepared.chunk_count(d),
                 "coverage": None if d.coverage is None else round(d.coverage, 4), "dropped": d.dropped,
                 "coverage_by_kind": d.coverage_by_kind}
                for d in prepared.documents
            ],
        )


@dataclass
class IntakeReport:
    """What a batch did: analyses indexed, left as they were (already indexed with the same
    content), refused with one line per document saying why, and indexed below the
    coverage floor (flagged to the admin, one line per document)."""

    indexed: list[IndexedAnalysis] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    refused: dict[str, list[str]] = field(default_factory=dict)  # analysis id -> reasons
    flagged: dict[str, list[str]] = field(default_factory=dict)  # analysis id -> documents below min_coverage

    def as_dict(self) -> dict:
        return {
            "indexed": [{"analysis_id": a.analysis_id, "chunks": a.chunks, "documents": a.documents}
                        for a in self.indexed],
            "unchanged": self.unchanged,
            "refused": [{"analysis_id": a, "reason": r} for a, reasons in self.refused.items() for r in reasons],
            "flagged": [{"analysis_id": a, "reason": r} for a, reasons in self.flagged.items() for r in reasons],
        }


class LowCoverage(InputError):
    """Documents whose text would be lost: no chunks, or (``low_coverage`` "refuse") too few
    of their words in them."""


class DocumentTooLarge(InputError):
    """A document over ``max_document_mb``."""


class PartlyRefused(InputError):
    """Raised after a batch: the other analyses are indexed, these were refused."""

    def __init__(self, report: IntakeReport):
        self.report = report
        reasons = [r for rs in report.refused.values() for r in rs]
        more = f" (and {len(reasons) - 3} more)" if len(reasons) > 3 else ""
        super().__init__(f"{len(report.refused)} analyses not indexed: {'; '.join(reasons[:3])}{more}")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def too_large(record: JsonlAnalysis, settings: Settings) -> list[str]:
    """One line per document over ``max_document_mb``."""
    problems = []
    for d in record.documents:
        size_mb = len(d.text.encode()) / 1e6
        if size_mb > settings.max_document_mb:
            problems.append(
                f"analysis '{record.analysis_id}' document '{d.doc_id}' {version_label(d.version)} is "
                f"{size_mb:.1f} MB, over max_document_mb ({settings.max_document_mb:g} MB): split it, or raise the limit"
            )
    return problems


def analysis_of(record: JsonlAnalysis, groups: list[str] | None = None) -> Analysis:
    """The record's analysis, restricted to its groups and to ``groups``."""
    return attach_groups(
        Analysis(id=record.analysis_id, title=record.title, abstract=record.abstract, experiment=record.experiment),
        [*record.groups, *(groups or [])],
    )


def prepare(record: JsonlAnalysis, settings: Settings) -> PreparedAnalysis:
    problems = too_large(record, settings)
    if problems:
        raise DocumentTooLarge("; ".join(problems))
    analysis = analysis_of(record)
    documents, chunks = [], []
    for d in record.documents:
        document = Document(
            analysis_id=analysis.id,
            doc_id=d.doc_id,
            version=d.version,
            title=d.title,
            source="jsonl",
            sha256=_sha256(d.text),
        )
        chunked = chunk_text(document, d.text, settings.chunk_min_chars, settings.chunk_max_chars, d.format)
        documents.append(document.model_copy(
            update={"format": chunked.format, "coverage": chunked.coverage, "dropped": chunked.dropped,
                    "coverage_by_kind": chunked.coverage_by_kind}))
        chunks.extend(chunked.chunks)
    return PreparedAnalysis(analysis, documents, chunks)


def _where(d: Document) -> str:
    return f"analysis '{d.analysis_id}' document '{d.doc_id}' {version_label(d.version)} ({d.format})"


def below_floor(d: Document, settings: Settings) -> bool:
    return d.coverage is not None and d.coverage < settings.min_coverage


def _short_of(d: Document, settings: Settings) -> str:
    return f"{_where(d)}: only {d.coverage:.0%} of its words reach a chunk (min_coverage {settings.min_coverage:.0%})"


def intake_problems(prepared: PreparedAnalysis, settings: Settings) -> list[str]:
    """Why this analysis is not indexed, one line per document: no chunks, or (``low_coverage``
    "refuse") coverage below the floor."""
    problems = []
    for d in prepared.documents:
        if prepared.chunk_count(d) == 0:
            problems.append(f"{_where(d)}: its text yields no chunks")
        elif settings.low_coverage == "refuse" and below_floor(d, settings):
            problems.append(_short_of(d, settings))
    return problems


def low_coverage_flags(documents: Iterable[Document], settings: Settings) -> list[str]:
    """One line per document indexed below the coverage floor: its coverage, and the kinds
    of block that lost the most words (from coverage by kind)."""
    flags = []
    for d in documents:
        if not below_floor(d, settings):
            continue
        lost = sorted(((round(v["words"] * (1 - v["coverage"])), kind, v) for kind, v in d.coverage_by_kind.items()
                       if v["coverage"] < settings.min_coverage), key=lambda row: (-row[0], row[1]))
        kinds = "; ".join(f"{kind} {v['coverage']:.0%} of {v['words']:,} words" for _, kind, v in lost[:3])
        flags.append(f"{_short_of(d, settings)}: indexed with what it has" + (f" (by block: {kinds})" if kinds else ""))
    return flags


def check_intake(problems: list[str], hint: str = "") -> None:
    """Raise ``LowCoverage`` naming the documents that would lose text."""
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise LowCoverage(f"{'; '.join(problems[:3])}{more}: not indexed. {hint}Pass --allow-low-coverage to index anyway")


_JSONL_HINT = 'give the document\'s "format" (markdown, latex or text) if it was misread, or pass --allow-low-coverage'


def _unchanged(kb: KnowledgeWriter, analysis: Analysis, record: JsonlAnalysis) -> bool:
    """Indexed before from this very record: the catalog holds the same analysis (groups
    included) and exactly these document versions, each with the same text (sha256),
    title and format. Chunk settings are not compared: a rerun after changing them
    keeps the old chunks (delete the analysis, or change its record, to redo it)."""
    if kb.get_analysis(analysis.id) != analysis:
        return False
    indexed = {(r.document.doc_id, r.document.version): r.document for r in kb.documents(analysis.id)}
    if set(indexed) != {(d.doc_id, d.version) for d in record.documents}:
        return False
    return all(
        (known := indexed[(d.doc_id, d.version)]).source == "jsonl" and known.sha256 == _sha256(d.text)
        and known.title == d.title and d.format in ("auto", known.format)
        for d in record.documents
    )


def index_records(
    kb: KnowledgeWriter,
    records: Iterable[JsonlAnalysis],
    on_analysis: Callable[[str, int], Callable[[int], None] | None] | None = None,
    allow_low_coverage: bool = False,
    groups: list[str] | None = None,
) -> IntakeReport:
    """Index validated analyses, each replaced atomically with its routing entry.
    An analysis already indexed with the same content is left as it is. One with a
    document that is too large or yields no chunks (the latter allowed with
    ``allow_low_coverage``) is refused; one with a document below ``settings.min_coverage``
    is indexed and named in ``report.flagged`` (refused instead where ``low_coverage`` is
    "refuse", unless ``allow_low_coverage``); the others are indexed, and then
    ``PartlyRefused`` names the refused ones.
    Holds the data dir's writer lock throughout. ``on_analysis(id, n_chunks)`` may
    return a progress callback; ``groups`` restricts every analysis to those groups
    (beside any its record names)."""
    settings = kb.settings
    report = IntakeReport()
    with writer_lock(settings, "index-jsonl"):
        kb.collect_garbage()  # under the lock: no other writer is building anything
        for record in records:
            analysis = analysis_of(record, groups)
            if _unchanged(kb, analysis, record):
                report.unchanged.append(analysis.id)
                continue
            problems = too_large(record, settings)
            prepared = None if problems else prepare(record, settings)
            if prepared is not None and not allow_low_coverage:
                problems = [f"{p}: {_JSONL_HINT}" for p in intake_problems(prepared, settings)]
            if problems:
                report.refused[analysis.id] = problems
                continue
            progress = on_analysis(analysis.id, len(prepared.chunks)) if on_analysis else None
            kb.replace_analysis(analysis, prepared.documents, prepared.chunks, progress=progress)
            report.indexed.append(IndexedAnalysis.of(prepared))
            if flags := low_coverage_flags(prepared.documents, settings):
                report.flagged[analysis.id] = flags
        # each written analysis's brief, and one an older run left without (unchanged ones are not rebuilt)
        refresh_briefs(kb, [a.analysis_id for a in report.indexed] + report.unchanged)
        kb.sync_abstracts()
    if report.refused:
        raise PartlyRefused(report)
    return report


def index_jsonl(
    kb: KnowledgeWriter,
    path: Path,
    on_analysis: Callable[[str, int], Callable[[int], None] | None] | None = None,
    allow_low_coverage: bool = False,
    groups: list[str] | None = None,
) -> IntakeReport:
    return index_records(kb, load_analyses(path), on_analysis, allow_low_coverage, groups)
