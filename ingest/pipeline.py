"""Index stage: extracted, chunked document versions into the two-tier knowledge base.

Version-aware and restartable: a version whose exact file (sha256) is already
indexed is skipped; a new version is added and supersedes the older ones of its
document; every write is an idempotent upsert of deterministic chunk ids and the
manifest is marked only after the stores hold the version, so a run killed at any
point and started again converges to the stores of an uninterrupted run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ingest.chunk.from_blocks import abstract_of, chunk_document
from ingest.extract.pdf import ExtractionError, NotAPdfError, TooLargeError, extract_pdf
from ingest.sources.manifest import Manifest, Stage, VersionRecord, file_sha256
from ingest.sources.jsonl import LowCoverage, PreparedAnalysis, check_intake, intake_problems
from mitra.access.policy import attach_groups
from mitra.store.lock import writer_lock
from mitra.core.settings import Settings
from mitra.store.knowledge_base import KnowledgeBase
from mitra.core.types import Analysis, Document

PageProgress = Callable[[int, int], None]


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
        }


def ingest_version(
    kb: KnowledgeBase,
    settings: Settings,
    path: Path,
    analysis: Analysis,
    document: Document,
    summary: IngestSummary,
    *,
    force_ocr: bool = False,
    progress: PageProgress | None = None,
    allow_low_coverage: bool = False,
) -> None:
    """Extract, chunk and index one document version (skipped when already indexed).
    Raises ``ExtractionError`` for a file that cannot be read and ``LowCoverage`` for
    one whose chunks would lose its text; nothing is written then."""
    if not path.is_file():
        raise NotAPdfError(path, "no such file" if not path.exists() else "not a file")
    size_mb = path.stat().st_size / 1e6
    if size_mb > settings.max_document_mb:
        raise TooLargeError(path, f"{size_mb:.1f} MB, over max_document_mb ({settings.max_document_mb:g} MB)")
    document = document.model_copy(update={"sha256": document.sha256 or file_sha256(path)})
    summary.analyses.add(analysis.id)
    summary.documents.add((analysis.id, document.doc_id))
    if kb.is_indexed(document):
        summary.skipped += 1
        return
    extracted = extract_pdf(path, settings, force_ocr=force_ocr, progress=progress)
    document = document.model_copy(update={"pages": extracted.pages, "title": document.title or extracted.title})
    if not analysis.abstract:
        analysis = analysis.model_copy(update={"abstract": abstract_of(extracted)})
    chunked = chunk_document(extracted, document, settings)
    document = document.model_copy(
        update={"format": chunked.format, "coverage": chunked.coverage, "dropped": chunked.dropped})
    if not allow_low_coverage:
        check_intake(intake_problems(PreparedAnalysis(analysis, [document], chunked.chunks), settings))
    kb.add_document_version(analysis, document, chunked.chunks)
    summary.versions += 1
    summary.pages += extracted.pages
    summary.ocr_pages += len(extracted.ocr_pages)
    summary.chunks += len(chunked.chunks)


def ingest_pdfs(
    kb: KnowledgeBase,
    settings: Settings,
    paths: list[Path],
    analysis: Analysis,
    *,
    version: str = "1",
    force_ocr: bool = False,
    progress: Callable[[Path], PageProgress | None] | None = None,
    allow_low_coverage: bool = False,
) -> IngestSummary:
    """``mitra ingest pdf``: each file is a document (id = file name) of one analysis.
    A bad file is reported in the summary and the batch goes on."""
    summary = IngestSummary()
    with writer_lock(settings, "ingest pdf"):
        kb.collect_garbage()
        for path in paths:
            document = Document(analysis_id=analysis.id, doc_id=path.stem, version=version, source=str(path.resolve()))
            try:
                ingest_version(kb, settings, path, analysis, document, summary, force_ocr=force_ocr,
                               progress=progress(path) if progress else None, allow_low_coverage=allow_low_coverage)
            except (ExtractionError, LowCoverage) as error:
                summary.failed.append((str(path), str(error)))
        kb.sync_abstracts()
    return summary


def index_manifest(
    kb: KnowledgeBase,
    manifest: Manifest,
    settings: Settings,
    *,
    progress: Callable[[VersionRecord], PageProgress | None] | None = None,
    allow_low_coverage: bool = False,
    groups: list[str] | None = None,
) -> IngestSummary:
    """``mitra ingest run`` after the crawl: every downloaded version not yet indexed
    (the store orders versions itself, so the order of this loop does not matter), each
    analysis restricted to ``groups`` where given (the profile's and ``--groups``)."""
    summary = IngestSummary()
    analyses = {a.id: Analysis(id=a.id, title=a.title, abstract=a.abstract) for a in manifest.analyses()}
    with writer_lock(settings, "ingest run"):
        kb.collect_garbage()
        for record in manifest.pending(Stage.index):
            analysis = attach_groups(
                analyses.get(record.analysis_id) or Analysis(id=record.analysis_id, title=record.analysis_id), groups)
            document = Document.model_validate(record.model_dump(include=set(Document.model_fields)))
            # the downloaded file stays: the app draws cited pages from it when the portal is away
            document = document.model_copy(update={"kept": str(record.path.resolve()) if record.path else ""})
            try:
                ingest_version(kb, settings, record.path, analysis, document, summary,
                               progress=progress(record) if progress else None, allow_low_coverage=allow_low_coverage)
            except (ExtractionError, LowCoverage) as error:
                manifest.mark_stage(record.key, Stage.extract, str(error))
                manifest.mark_stage(record.key, Stage.index, "not indexed: extraction failed")
                summary.failed.append((str(record.path), str(error)))
                continue
            manifest.mark_stage(record.key, Stage.extract)
            manifest.mark_stage(record.key, Stage.index)
        kb.sync_abstracts()
    return summary
