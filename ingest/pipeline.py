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
from typing import Callable, Iterable, Iterator, TypeVar

from ingest.chunk.from_blocks import abstract_of, chunk_document
from ingest.chunk.from_text import chunk_text
from ingest.extract.pdf import ExtractionError, NotAPdfError, TooLargeError
from ingest.extract.readers import TEXT_FORMATS, detect_format, read_document, read_text
from ingest.sources.manifest import Manifest, Stage, VersionRecord, file_sha256
from ingest.sources.jsonl import LowCoverage, PreparedAnalysis, check_intake, intake_problems, low_coverage_flags
from mitra.access.policy import attach_groups
from mitra.store.lock import writer_lock
from mitra.core.settings import Settings
from mitra.store.knowledge_base import KnowledgeBase
from mitra.core.types import Analysis, Chunk, Document

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
            "flagged": self.flagged,
            "left_out": self.left_out,
        }


@dataclass(frozen=True)
class VersionJob:
    """One document version to extract, chunk and index (its file's sha256 known)."""

    path: Path
    analysis: Analysis
    document: Document


@dataclass
class PreparedVersion:
    """A version extracted and chunked, ready for the writer."""

    analysis: Analysis
    document: Document
    chunks: list[Chunk]
    pages: int
    ocr_pages: int
    flagged: list[str] = field(default_factory=list)  # indexed below min_coverage: the admin's line


def admit_version(
    kb: KnowledgeBase, settings: Settings, path: Path, analysis: Analysis, document: Document, summary: IngestSummary,
) -> VersionJob | None:
    """The version as a job, or None (counted as skipped) when this exact file is indexed
    already. Raises ``ExtractionError`` for a missing or too large file."""
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
        return None
    return VersionJob(path, analysis, document)


def prepare_version(
    settings: Settings, job: VersionJob, *, force_ocr: bool = False, progress: PageProgress | None = None,
    allow_low_coverage: bool = False,
) -> PreparedVersion:
    """Read and chunk one version of any supported type, the reader chosen by the file's
    content; needs no store, so it runs anywhere. Raises ``ExtractionError`` for a file
    that cannot be read and ``LowCoverage`` for one whose chunks would lose its text."""
    analysis, document = job.analysis, job.document
    fmt = detect_format(job.path)
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
        pages, ocr_pages = extracted.pages, len(extracted.ocr_pages)
    document = document.model_copy(update={
        "pages": pages or None, "format": chunked.format, "coverage": chunked.coverage, "dropped": chunked.dropped,
        "coverage_by_kind": chunked.coverage_by_kind})
    if not allow_low_coverage:
        check_intake(intake_problems(PreparedAnalysis(analysis, [document], chunked.chunks), settings))
    return PreparedVersion(analysis, document, chunked.chunks, pages, ocr_pages,
                           flagged=low_coverage_flags([document], settings))


def write_version(kb: KnowledgeBase, prepared: PreparedVersion, summary: IngestSummary) -> None:
    """The one writer's part: the version into the stores, and into the summary."""
    kb.add_document_version(prepared.analysis, prepared.document, prepared.chunks)
    summary.versions += 1
    summary.pages += prepared.pages
    summary.ocr_pages += prepared.ocr_pages
    summary.chunks += len(prepared.chunks)
    summary.flagged += prepared.flagged


def index_versions(
    kb: KnowledgeBase,
    settings: Settings,
    versions: Iterable[tuple[K, Path, Analysis, Document]],
    summary: IngestSummary,
    *,
    force_ocr: bool = False,
    progress: Callable[[K], PageProgress | None] | None = None,
    allow_low_coverage: bool = False,
) -> Iterator[tuple[K, str | None]]:
    """Extract, chunk and index each ``(key, file, analysis, document)``, yielding its key
    and why it failed (None once it is written or skipped): a bad file is reported and
    the others go on. With ``settings.ray_address`` set, extraction and embedding run as
    Ray Data stages (``ingest.ray_stages``) and this process only writes."""
    if settings.ray_address:
        from ingest.ray_stages import index_versions_on_ray

        yield from index_versions_on_ray(kb, settings, versions, summary, force_ocr=force_ocr, progress=progress,
                                         allow_low_coverage=allow_low_coverage)
        return
    for key, path, analysis, document in versions:
        try:
            job = admit_version(kb, settings, path, analysis, document, summary)
            if job is not None:
                prepared = prepare_version(settings, job, force_ocr=force_ocr, allow_low_coverage=allow_low_coverage,
                                           progress=progress(key) if progress else None)
                write_version(kb, prepared, summary)
        except (ExtractionError, LowCoverage) as error:
            yield key, str(error)
            continue
        yield key, None


def ingest_files(
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
    """``mitra ingest files`` and ``mitra ingest pdf``: each file is a document (id = file name
    without its extension) of one analysis, read by the reader its content calls for; the
    file stays where it is and is what the app offers for download. A bad file is reported
    in the summary and the batch goes on."""
    summary = IngestSummary()
    owners: dict[str, Path] = {}  # doc_id -> the file that has it
    for path in paths:
        owner = owners.setdefault(path.stem, path)
        if owner.resolve() != path.resolve():
            summary.failed.append((str(path), f"it would be document '{path.stem}', as {owner} is: rename one"))
    with writer_lock(settings, "ingest files"):
        kb.collect_garbage()
        versions = ((path, path, analysis,
                     Document(analysis_id=analysis.id, doc_id=doc_id, version=version, source=str(path.resolve()),
                              kept=str(path.resolve())))
                    for doc_id, path in owners.items())
        for path, error in index_versions(kb, settings, versions, summary, force_ocr=force_ocr, progress=progress,
                                          allow_low_coverage=allow_low_coverage):
            if error is not None:
                summary.failed.append((str(path), error))
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

        def version(record: VersionRecord) -> tuple[VersionRecord, Path, Analysis, Document]:
            analysis = attach_groups(
                analyses.get(record.analysis_id) or Analysis(id=record.analysis_id, title=record.analysis_id), groups)
            document = Document.model_validate(record.model_dump(include=set(Document.model_fields)))
            # the downloaded file stays: the app draws cited pages from it when the portal is away
            document = document.model_copy(update={"kept": str(record.path.resolve()) if record.path else ""})
            return record, record.path, analysis, document

        versions = map(version, manifest.pending(Stage.index))
        for record, error in index_versions(kb, settings, versions, summary, progress=progress,
                                            allow_low_coverage=allow_low_coverage):
            if error is not None:
                manifest.mark_stage(record.key, Stage.extract, error)
                manifest.mark_stage(record.key, Stage.index, "not indexed: extraction failed")
                summary.failed.append((str(record.path), error))
                continue
            manifest.mark_stage(record.key, Stage.extract)
            manifest.mark_stage(record.key, Stage.index)
        kb.sync_abstracts()
    return summary
