"""Fold the duplicate documents a moved portal left into the documents they duplicate.

Before document identity was the portal-relative locator (``ingest.sources.identity``), a
re-crawl of a portal at another address named its pages and attachments anew
(``ORION.HiggsToMuMuRun3`` beside ``HiggsToMuMuRun3``) and indexed them again. Such a
duplicate is a document whose manifest rows share a locator with another document of its
analysis, first seen there, and whose id is that document's qualified by a folder's (the
only names the crawl gave such a duplicate): the first is kept, and each version of the
duplicate is

* dropped when a version of the kept document holds the same file (sha256): nothing is
  lost, the same text stays indexed;
* else the next version of the kept document (its label where the portal gave one that
  comes after the kept ones, else the kept document's next label), in the order the
  versions were fetched: the kept version history, and then what the duplicate added.

The knowledge base is changed first, in one atomic re-index of the analysis (its passages
relabelled, none embedded from a file again), then the manifest in one transaction, then
the duplicate's files are deleted; ratings that cited a duplicate's passage cite the kept
one's. A run killed at any point and started again ends as an uninterrupted one: a
knowledge base that holds no duplicate is not written again.
``mitra ingest repair`` runs it; ``mitra ingest run`` runs it before it crawls.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ingest.sources.identity import next_version
from ingest.sources.manifest import DownloadStatus, Manifest, VersionKey, VersionRecord
from mitra.core.types import Chunk, Document, chunk_id
from mitra.evaluation.feedback import FeedbackStore
from mitra.store.writer import KnowledgeWriter
from mitra.store.versions import version_key


@dataclass
class Fold:
    """One duplicate document folded into the document it duplicates: each of its versions
    and what it becomes (None: dropped, the kept document holds the same file)."""

    analysis_id: str
    duplicate: str
    into: str
    versions: dict[str, str | None] = field(default_factory=dict)
    same: dict[str, str] = field(default_factory=dict)  # a dropped version -> the kept one holding its file
    paths: dict[str, Path] = field(default_factory=dict)  # a version's file once moved to the kept document

    def as_dict(self) -> dict:
        return {"analysis_id": self.analysis_id, "duplicate": self.duplicate, "into": self.into,
                "versions": self.versions}


def plan(manifest: Manifest, downloads: Path) -> list[Fold]:
    """The duplicates in the manifest and how each folds; nothing is changed."""
    by_place: dict[tuple[str, str], dict[str, list[VersionRecord]]] = {}
    for record in manifest.versions():
        if record.locator:
            by_place.setdefault((record.analysis_id, record.locator), {}).setdefault(record.doc_id, []).append(record)
    folds = []
    for (analysis_id, _), documents in sorted(by_place.items()):
        if len(documents) < 2:
            continue
        order = sorted(documents, key=lambda d: (min(_when(r) for r in documents[d]), d))
        files = {r.sha256: r.version for r in documents[order[0]] if r.status is DownloadStatus.downloaded}
        labels = sorted((r.version for r in documents[order[0]]), key=version_key)
        # Only the names the crawl gave a moved portal's documents (the first name qualified by a
        # folder's, ORION.HiggsToMuMuRun3): two ids a portal itself gave one address are left as they are.
        for duplicate in (d for d in order[1:] if d.endswith(f".{order[0]}")):
            fold = Fold(analysis_id, duplicate, order[0])
            for record in sorted(documents[duplicate], key=_when):
                if record.status is not DownloadStatus.downloaded or record.sha256 in files:
                    fold.versions[record.version] = None  # the same file, or only a failed fetch: nothing to keep
                    if record.sha256 in files:
                        fold.same[record.version] = files[record.sha256]
                    continue
                label = record.version if not labels or (record.version not in labels and version_key(
                    record.version) > version_key(labels[-1])) else next_version(labels[-1])
                fold.versions[record.version] = label
                fold.paths[record.version] = downloads / analysis_id / order[0] / f"{label}{record.path.suffix}"
                labels.append(label)
                files[record.sha256] = label
            folds.append(fold)
    return folds


def _when(record: VersionRecord):
    return record.downloaded_at or record.seen_at


def repair(manifest: Manifest, kb: KnowledgeWriter | None, downloads: Path) -> list[Fold]:
    """Fold every duplicate of the manifest (and of the knowledge base, where given) into the
    document it duplicates; returns what was folded."""
    folds = plan(manifest, downloads)
    for fold in folds:  # the files first: the knowledge base names them as the kept copies
        for version, path in fold.paths.items():
            source = manifest.get(VersionKey(fold.analysis_id, fold.duplicate, version)).path
            if not path.is_file():
                path.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, path)
    if kb is not None:
        for analysis_id in dict.fromkeys(f.analysis_id for f in folds):
            _fold_index(kb, analysis_id, [f for f in folds if f.analysis_id == analysis_id])
    moves = [(VersionKey(f.analysis_id, f.duplicate, version), VersionKey(f.analysis_id, f.into, label) if label
              else None, f.paths.get(version)) for f in folds for version, label in f.versions.items()]
    gone = [manifest.get(old).path for old, _, _ in moves]
    manifest.fold(moves)
    for path in gone:
        if path is not None:
            path.unlink(missing_ok=True)
            if path.parent.is_dir() and not any(path.parent.iterdir()):
                path.parent.rmdir()
    return folds


def _fold_index(kb: KnowledgeWriter, analysis_id: str, folds: list[Fold]) -> None:
    """The analysis re-indexed without its duplicates, what they add relabelled as versions
    of the documents they duplicate, in one atomic replace (skipped where it holds none)."""
    records = kb.documents(analysis_id)
    duplicates = {f.duplicate: f for f in folds}
    if not any(r.document.doc_id in duplicates for r in records):
        return
    documents: list[Document] = []
    for record in records:
        d = record.document
        fold = duplicates.get(d.doc_id)
        if fold is None:
            documents.append(d)
        elif fold.versions.get(d.version):
            documents.append(d.model_copy(update={"doc_id": fold.into, "version": fold.versions[d.version],
                                                  "kept": str(fold.paths[d.version].resolve())}))
    chunks: list[Chunk] = []
    renamed: dict[str, str] = {}  # a duplicate's passage -> the same passage of the kept document
    for c in kb.chunks(analysis_id):
        fold = duplicates.get(c.doc_id)
        label = fold.versions.get(c.version) or fold.same.get(c.version) if fold else None
        if fold is None:
            chunks.append(c)
        elif label:
            renamed[c.id] = chunk_id(fold.into, label, c.position, c.text)
            if fold.versions.get(c.version):
                chunks.append(c.model_copy(update={"doc_id": fold.into, "version": label, "id": renamed[c.id]}))
    # ratings keep citing what they cited (renamed first: a run killed between the two renames nothing twice)
    FeedbackStore.open(kb.settings).rename_chunks(analysis_id, renamed)
    kb.replace_analysis(kb.get_analysis(analysis_id), documents, chunks)
