"""The brief of one analysis, built from what its generation holds, and kept with it: built
after the analysis is written, and again only when its documents change (``refresh_brief``)."""

from __future__ import annotations

import hashlib
import json
import time

from mitra.brief.questions import questions
from mitra.brief.record import VERSION, Brief, DocumentLine
from mitra.brief.tree import document_tree
from mitra.brief.values import headline_values, mark_changes
from mitra.brief.vocabulary import vocabulary
from mitra.core.types import Chunk
from mitra.store.catalog import DocumentRecord
from mitra.store.knowledge_base import KnowledgeBase

_KINDS = {"pptx": "talk", "html": "wiki page", "docx": "note", "markdown": "note", "latex": "note", "text": "note"}


def kind_of(record: DocumentRecord, chunks: list[Chunk]) -> str:
    """Note, talk, wiki page or slides, from how its text was read."""
    fmt = record.document.format
    if fmt == "pdf":
        return "slides" if any(c.unit == "slide" for c in chunks) else "note"
    return _KINDS.get(fmt, "note")


def fingerprint(kb: KnowledgeBase, analysis_id: str) -> str:
    """What the brief depends on: the analysis as indexed and each document version's content."""
    analysis = kb.get_analysis(analysis_id)
    records = sorted((r.document.doc_id, r.document.version, r.document.sha256 or "", r.n_chunks)
                     for r in kb.documents(analysis_id))
    text = json.dumps([VERSION, analysis.model_dump() if analysis else None, records], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def build_brief(kb: KnowledgeBase, analysis_id: str) -> Brief:
    start = time.perf_counter()
    analysis = kb.get_analysis(analysis_id)
    if analysis is None:
        raise KeyError(analysis_id)
    records = kb.documents(analysis_id)
    chunks = kb.chunks(analysis_id)
    current = [c for c in chunks if not c.superseded]
    by_doc: dict[str, list[Chunk]] = {}
    for c in current:
        by_doc.setdefault(c.doc_id, []).append(c)
    documents, trees = [], []
    for r in records:
        if r.superseded:
            continue
        d = r.document
        versions = [x.document.version for x in records if x.document.doc_id == d.doc_id]
        documents.append(DocumentLine(doc_id=d.doc_id, title=d.title or d.doc_id, version=d.version,
                                      kind=kind_of(r, by_doc.get(d.doc_id, [])), versions=versions))
        trees.append(document_tree(d.doc_id, d.title or d.doc_id, d.version, by_doc.get(d.doc_id, [])))
    values = headline_values(analysis.abstract, chunks)
    mark_changes(values, [c for c in chunks if c.superseded])
    brief = Brief(fingerprint=fingerprint(kb, analysis_id), analysis_id=analysis.id, title=analysis.title,
                  abstract=analysis.abstract, documents=documents, values=values, trees=trees,
                  vocabulary=vocabulary(current), questions=questions(values, trees))
    brief.seconds = round(time.perf_counter() - start, 3)
    return brief


def refresh_brief(kb: KnowledgeBase, analysis_id: str) -> bool:
    """Build and keep the brief where its documents changed since the kept one; True where built."""
    kept = kb.brief_json(analysis_id)
    if kept is not None and json.loads(kept).get("fingerprint") == fingerprint(kb, analysis_id):
        return False
    kb.save_brief(analysis_id, build_brief(kb, analysis_id).model_dump_json())
    return True


def refresh_briefs(kb: KnowledgeBase, analysis_ids) -> int:
    """``refresh_brief`` for each analysis the knowledge base holds; how many were built."""
    return sum(refresh_brief(kb, a) for a in sorted(analysis_ids) if kb.get_analysis(a) is not None)


def read_brief(reader, analysis_id: str) -> Brief | None:
    """The kept brief of an analysis ``reader`` may read (a scoped reader raises ``UnknownAnalysis``
    for one it may not), or None where none is kept yet."""
    kept = reader.brief_json(analysis_id)
    return Brief.model_validate_json(kept) if kept else None
