"""The catalog: which analyses and document versions are indexed, and where.

In a database (SQLite in the data dir, or PostgreSQL with ``MITRA_DATABASE_URL``: see
``mitra.store.state``), because its transactions are what makes a re-index atomic: the
vectors and BM25 of a new generation are written first, then one commit here switches
readers over to them.
"""

from __future__ import annotations

import json
from typing import ContextManager

from pydantic import BaseModel
from sqlalchemy import Integer, Text, case, cast, delete, select, update
from sqlalchemy.engine import Connection, RowMapping

from mitra.core.types import Analysis, Document
from mitra.store.schema import analyses, documents, meta
from mitra.store.state import SqlStore, now, upsert


class DocumentRecord(BaseModel):
    document: Document
    n_chunks: int
    superseded: bool
    indexed_at: str


class AnalysisRecord(BaseModel):
    analysis: Analysis
    collection: str
    updated_at: str


class Catalog(SqlStore):
    """The catalog (see ``SqlStore``)."""

    branch = "catalog"

    def transaction(self) -> ContextManager[Connection]:
        """One transaction: commits on success, rolls back on error."""
        return self.engine.begin()

    # ---------------------------------------------------------------- meta
    def get_meta(self, key: str) -> str | None:
        with self.transaction() as db:
            return db.scalar(select(meta.c.value).where(meta.c.key == key))

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as db:
            upsert(db, meta, {"key": key, "value": value}, ["key"])

    # ---------------------------------------------------------------- analyses
    @staticmethod
    def _analysis(row: RowMapping) -> AnalysisRecord:
        return AnalysisRecord(
            analysis=Analysis(
                id=row["id"],
                title=row["title"],
                abstract=row["abstract"],
                experiment=row["experiment"],
                metadata=json.loads(row["metadata"]),
            ),
            collection=row["collection"],
            updated_at=row["updated_at"],
        )

    def analyses(self) -> list[AnalysisRecord]:
        with self.transaction() as db:
            return [self._analysis(r) for r in db.execute(select(analyses).order_by(analyses.c.id)).mappings()]

    def analysis(self, analysis_id: str) -> AnalysisRecord | None:
        with self.transaction() as db:
            row = db.execute(select(analyses).where(analyses.c.id == analysis_id)).mappings().first()
        return self._analysis(row) if row else None

    @staticmethod
    def put_analysis(db: Connection, analysis: Analysis, collection: str) -> None:
        """Insert or replace the analysis, and move the routing version on (in the same
        transaction): routing indexes built from an older version know they are stale."""
        upsert(db, meta, {"key": "routing_version", "value": "1"}, ["key"],
               changes={"value": cast(cast(meta.c.value, Integer) + 1, Text)})
        upsert(db, analyses, {
            "id": analysis.id, "title": analysis.title, "abstract": analysis.abstract,
            "experiment": analysis.experiment, "metadata": json.dumps(analysis.metadata),
            "collection": collection, "updated_at": now(),
        }, ["id"])

    # ---------------------------------------------------------------- documents
    def documents(self, analysis_id: str) -> list[DocumentRecord]:
        with self.transaction() as db:
            rows = db.execute(
                select(documents).where(documents.c.analysis_id == analysis_id)
                .order_by(documents.c.doc_id, documents.c.indexed_at, documents.c.version)
            ).mappings().all()
        return [
            DocumentRecord(
                document=Document(
                    analysis_id=r["analysis_id"],
                    doc_id=r["doc_id"],
                    version=r["version"],
                    title=r["title"],
                    source=r["source"],
                    kept=r["kept"],
                    sha256=r["sha256"],
                    pages=r["pages"],
                    format=r["format"],
                    coverage=r["coverage"],
                    dropped=json.loads(r["dropped"]),
                    coverage_by_kind=json.loads(r["coverage_by_kind"]),
                ),
                n_chunks=r["n_chunks"],
                superseded=bool(r["superseded"]),
                indexed_at=r["indexed_at"],
            )
            for r in rows
        ]

    @staticmethod
    def clear_documents(db: Connection, analysis_id: str) -> None:
        db.execute(delete(documents).where(documents.c.analysis_id == analysis_id))

    @staticmethod
    def put_document(db: Connection, document: Document, n_chunks: int, superseded: bool) -> None:
        d = document
        upsert(db, documents, {
            "analysis_id": d.analysis_id, "doc_id": d.doc_id, "version": d.version, "title": d.title,
            "source": d.source, "sha256": d.sha256, "pages": d.pages, "n_chunks": n_chunks,
            "superseded": int(superseded), "indexed_at": now(), "format": d.format, "coverage": d.coverage,
            "dropped": json.dumps(d.dropped), "kept": d.kept, "coverage_by_kind": json.dumps(d.coverage_by_kind),
        }, ["analysis_id", "doc_id", "version"])

    @staticmethod
    def set_superseded(db: Connection, analysis_id: str, doc_id: str, current: str) -> None:
        db.execute(
            update(documents)
            .where(documents.c.analysis_id == analysis_id, documents.c.doc_id == doc_id)
            .values(superseded=case((documents.c.version != current, 1), else_=0))
        )
