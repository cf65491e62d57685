"""Index stage: extracted, chunked document versions into the two-tier knowledge base.

The local runner: the stages themselves (admit, prepare, write) are in ``ingest.stages``;
with ``ray_address`` set the versions go to the Ray runner (``ingest.ray_stages``) instead.

Version-aware and restartable: a version whose exact file (sha256) is already
indexed is skipped; a new version is added and supersedes the older ones of its
document; every write is an idempotent upsert of deterministic chunk ids and the
manifest is marked only after the stores hold the version, so a run killed at any
point and started again converges to the stores of an uninterrupted run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable, Iterator

from ingest.extract.base import ExtractionError
from ingest.sources.folder import ChangedWhileReadError, check_unchanged
from ingest.sources.manifest import DownloadStatus, Manifest, Stage, VersionRecord
from ingest.sources.jsonl import LowCoverage
from ingest.stages import K, IngestSummary, PageProgress, admit_version, prepare_version, write_version
from mitra.access.policy import attach_groups
from mitra.brief.build import refresh_briefs
from mitra.store.lock import writer_lock
from mitra.core.settings import Settings
from mitra.store.writer import KnowledgeWriter
from mitra.core.types import Analysis, Document


def index_versions(
    kb: KnowledgeWriter,
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
    kb: KnowledgeWriter,
    settings: Settings,
    paths: list[Path],
    analysis: Analysis,
    *,
    version: str = "1",
    force_ocr: bool = False,
    progress: Callable[[Path], PageProgress | None] | None = None,
    allow_low_coverage: bool = False,
    stamps: dict[Path, tuple[int, ...]] | None = None,
) -> IngestSummary:
    """``mitra ingest files`` and ``mitra ingest pdf``: each file is a document (id = file name
    without its extension) of one analysis, read by the reader its content calls for; the
    file stays where it is and is what the app offers for download. A bad file is reported
    in the summary and the batch goes on; so is one that changed since ``stamps`` (the
    folder walk's) say."""
    summary = IngestSummary()
    owners: dict[str, Path] = {}  # doc_id -> the file that has it
    for path in paths:
        owner = owners.setdefault(path.stem, path)
        if owner.resolve() != path.resolve():
            summary.failed.append((str(path), f"it would be document '{path.stem}', as {owner} is: rename one"))
    def unchanged() -> Iterator[tuple[Path, Path, Analysis, Document]]:
        for doc_id, path in owners.items():
            try:
                check_unchanged(path, (stamps or {}).get(path))
            except ChangedWhileReadError as error:
                summary.failed.append((str(path), error.reason))
                continue
            yield path, path, analysis, Document(analysis_id=analysis.id, doc_id=doc_id, version=version,
                                                 source=str(path.resolve()), kept=str(path.resolve()))

    with writer_lock(settings, "ingest files"):
        kb.collect_garbage()
        versions = unchanged()
        for path, error in index_versions(kb, settings, versions, summary, force_ocr=force_ocr, progress=progress,
                                          allow_low_coverage=allow_low_coverage):
            if error is not None:
                summary.failed.append((str(path), error))
        refresh_briefs(kb, summary.analyses)
        kb.sync_abstracts()
    return summary


def index_manifest(
    kb: KnowledgeWriter,
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

        pending = manifest.pending(Stage.index)
        # The versions indexed before, which the crawl found unchanged: the run's summary counts
        # them as the crawl's does ("9 unchanged" then "9 unchanged and skipped", not 0).
        summary.skipped += len(manifest.versions(status=DownloadStatus.downloaded)) - len(pending)
        versions = map(version, pending)
        for record, error in index_versions(kb, settings, versions, summary, progress=progress,
                                            allow_low_coverage=allow_low_coverage):
            if error is not None:
                manifest.mark_stage(record.key, Stage.extract, error)
                manifest.mark_stage(record.key, Stage.index, "not indexed: extraction failed")
                summary.failed.append((str(record.path), error))
                continue
            manifest.mark_stage(record.key, Stage.extract)
            manifest.mark_stage(record.key, Stage.index)
        refresh_briefs(kb, summary.analyses)
        kb.sync_abstracts()
    return summary
