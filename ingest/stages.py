"""The pipeline's stages, shared by the local runner (``ingest.pipeline``) and the Ray
runner (``ingest.ray_stages``): admit a version (skip a file already indexed), prepare it
(read and chunk; needs no store, so it runs anywhere) and write it (the one writer's part).
Both runners import this module and neither imports the other at module level.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TypeVar

from ingest.chunk.from_blocks import abstract_of, chunk_document
from ingest.chunk.from_text import chunk_text
from ingest.extract.base import NotAPdfError, TooLargeError
from ingest.extract.readers import TEXT_FORMATS, detect_format, read_document, read_text
from ingest.sources.folder import check_unchanged, file_stamp
from ingest.sources.manifest import file_sha256
from ingest.sources.jsonl import PreparedAnalysis, check_intake, intake_problems, low_coverage_flags
from mitra.core.settings import Settings
from mitra.core.types import Analysis, Chunk, Document
from mitra.store.writer import KnowledgeWriter

PageProgress = Callable[[int, int], None]
K = TypeVar("K")  # what a caller knows a version by (its path, its manifest record)


@dataclass
class IngestSummary:
    analyses: set[str] = field(default_factory=set)
    documents: set[tuple[str, str]] = field(default_factory=set)
    versions: int = 0
    pages: int = 0
    ocr_pages: int = 0
    chunks: int = 0
    skipped: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (file, reason)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (file, how it was read): indexed, with a remark
    flagged: list[str] = field(default_factory=list)  # versions indexed below min_coverage, one line each
    left_out: dict[str, int] = field(default_factory=dict)  # what a folder walk left out on purpose, by kind

    def as_dict(self) -> dict:
        return {
            "analyses": len(self.analyses),
            "documents": len(self.documents),
            "versions": self.versions,
            "pages": self.pages,
            "ocr_pages": self.ocr_pages,
            "chunks": self.chunks,
            "skipped": self.skipped,
            "failed": [{"file": f, "reason": r} for f, r in self.failed],
            "notes": [{"file": f, "note": n} for f, n in self.notes],
            "flagged": self.flagged,
            "left_out": self.left_out,
        }


@dataclass(frozen=True)
class VersionJob:
    """One document version to extract, chunk and index (its file's sha256 known, and its
    stamp: the file must be the same when the version is written)."""

    path: Path
    analysis: Analysis
    document: Document
    stamp: tuple[int, ...] | None = None


@dataclass
class PreparedVersion:
    """A version extracted and chunked, ready for the writer."""

    analysis: Analysis
    document: Document
    chunks: list[Chunk]
    pages: int
    ocr_pages: int
    notes: list[tuple[str, str]] = field(default_factory=list)  # (file, what its reader says of how it read it)
    path: Path | None = None  # the file read, and its stamp when it was admitted
    stamp: tuple[int, ...] | None = None
    flagged: list[str] = field(default_factory=list)  # indexed below min_coverage: the admin's line


def admit_version(
    kb: KnowledgeWriter, settings: Settings, path: Path, analysis: Analysis, document: Document, summary: IngestSummary,
) -> VersionJob | None:
    """The version as a job, or None (counted as skipped) when this exact file is indexed
    already. Raises ``ExtractionError`` for a missing or too large file."""
    if not path.is_file():
        raise NotAPdfError(path, "no such file" if not path.exists() else "not a file")
    size_mb = path.stat().st_size / 1e6
    if size_mb > settings.max_document_mb:
        raise TooLargeError(path, f"{size_mb:.1f} MB, over max_document_mb ({settings.max_document_mb:g} MB)")
    stamp = file_stamp(path)
    document = document.model_copy(update={"sha256": document.sha256 or file_sha256(path)})
    summary.analyses.add(analysis.id)
    summary.documents.add((analysis.id, document.doc_id))
    if kb.is_indexed(document):
        summary.skipped += 1
        return None
    return VersionJob(path, analysis, document, stamp)


def prepare_version(
    settings: Settings, job: VersionJob, *, force_ocr: bool = False, progress: PageProgress | None = None,
    allow_low_coverage: bool = False,
) -> PreparedVersion:
    """Read and chunk one version of any supported type, the reader chosen by the file's
    content; needs no store, so it runs anywhere. Raises ``ExtractionError`` for a file
    that cannot be read and ``LowCoverage`` for one whose chunks would lose its text."""
    analysis, document = job.analysis, job.document
    fmt = detect_format(job.path, settings)
    notes: list[str] = []
    if fmt in TEXT_FORMATS:
        # a Markdown file's headings have the anchors GitHub and GitLab give them
        chunked = chunk_text(document, read_text(job.path), settings.chunk_min_chars, settings.chunk_max_chars, fmt,
                             anchors=fmt == "markdown")
        pages, ocr_pages = 0, 0
        if progress is not None:
            progress(1, 1)
    else:
        extracted = read_document(job.path, settings, force_ocr=force_ocr, progress=progress, fmt=fmt)
        document = document.model_copy(update={"title": document.title or extracted.title})
        if not analysis.abstract:
            analysis = analysis.model_copy(update={"abstract": abstract_of(extracted)})
        chunked = chunk_document(extracted, document, settings)
        pages, ocr_pages, notes = extracted.pages, len(extracted.ocr_pages), extracted.warnings
    document = document.model_copy(update={
        "pages": pages or None, "format": chunked.format, "coverage": chunked.coverage, "dropped": chunked.dropped,
        "coverage_by_kind": chunked.coverage_by_kind})
    if not allow_low_coverage:
        check_intake(intake_problems(PreparedAnalysis(analysis, [document], chunked.chunks), settings))
    return PreparedVersion(analysis, document, chunked.chunks, pages, ocr_pages, [(str(job.path), n) for n in notes],
                           job.path, job.stamp, flagged=low_coverage_flags([document], settings))


def write_version(kb: KnowledgeWriter, prepared: PreparedVersion, summary: IngestSummary) -> None:
    """The one writer's part: the version into the stores, and into the summary; refused
    (``ChangedWhileReadError``) when its file changed since it was admitted."""
    if prepared.path is not None:
        check_unchanged(prepared.path, prepared.stamp)
    kb.add_document_version(prepared.analysis, prepared.document, prepared.chunks)
    summary.versions += 1
    summary.pages += prepared.pages
    summary.ocr_pages += prepared.ocr_pages
    summary.chunks += len(prepared.chunks)
    summary.notes += prepared.notes
    summary.flagged += prepared.flagged
