"""The catalog: which analyses and document versions are indexed, and where.

SQLite, because its transactions are what makes a re-index atomic: the vectors
and BM25 of a new generation are written first, then one commit here switches
readers over to them.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing, contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from pydantic import BaseModel

from mitra.core.types import Analysis, Document

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS analyses (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, abstract TEXT NOT NULL, experiment TEXT,
    metadata TEXT NOT NULL, collection TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    analysis_id TEXT NOT NULL, doc_id TEXT NOT NULL, version TEXT NOT NULL,
    title TEXT NOT NULL, source TEXT NOT NULL, sha256 TEXT NOT NULL, pages INTEGER,
    n_chunks INTEGER NOT NULL, superseded INTEGER NOT NULL, indexed_at TEXT NOT NULL,
    format TEXT NOT NULL DEFAULT '', coverage REAL, dropped TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (analysis_id, doc_id, version));
"""
# Columns added after the first release: (table, column, declaration) for older catalogs.
_ADDED_COLUMNS = [("documents", "format", "TEXT NOT NULL DEFAULT ''"), ("documents", "coverage", "REAL"),
                  ("documents", "dropped", "TEXT NOT NULL DEFAULT '{}'"),
                  # the crawler's kept copy of a downloaded version: the cited page is drawn from it
                  ("documents", "kept", "TEXT NOT NULL DEFAULT ''")]


class DocumentRecord(BaseModel):
    document: Document
    n_chunks: int
    superseded: bool
    indexed_at: str


class AnalysisRecord(BaseModel):
    analysis: Analysis
    collection: str
    updated_at: str


@contextmanager
def sqlite_transaction(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection per operation (Streamlit serves each browser session from its own
    thread) that commits on success and rolls back on error."""
    with closing(sqlite3.connect(path, timeout=30)) as db, db:
        db.row_factory = sqlite3.Row
        yield db


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Catalog:
    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with self.transaction() as db:
            db.executescript(_SCHEMA)
            for table, column, declaration in _ADDED_COLUMNS:
                if column not in {row["name"] for row in db.execute(f"PRAGMA table_info({table})")}:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")

    def transaction(self):
        return sqlite_transaction(self.path)

    # ---------------------------------------------------------------- meta
    def get_meta(self, key: str) -> str | None:
        with self.transaction() as db:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row["value"] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # ---------------------------------------------------------------- analyses
    @staticmethod
    def _analysis(row: sqlite3.Row) -> AnalysisRecord:
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
            return [self._analysis(r) for r in db.execute("SELECT * FROM analyses ORDER BY id")]

    def analysis(self, analysis_id: str) -> AnalysisRecord | None:
        with self.transaction() as db:
            row = db.execute("SELECT * FROM analyses WHERE id = ?", (analysis_id,)).fetchone()
        return self._analysis(row) if row else None

    @staticmethod
    def put_analysis(db: sqlite3.Connection, analysis: Analysis, collection: str) -> None:
        """Insert or replace the analysis, and move the routing version on (in the same
        transaction): routing indexes built from an older version know they are stale."""
        db.execute(
            "INSERT INTO meta VALUES ('routing_version', '1') ON CONFLICT(key) "
            "DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )
        db.execute(
            "INSERT OR REPLACE INTO analyses VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                analysis.id,
                analysis.title,
                analysis.abstract,
                analysis.experiment,
                json.dumps(analysis.metadata),
                collection,
                now(),
            ),
        )

    # ---------------------------------------------------------------- documents
    def documents(self, analysis_id: str) -> list[DocumentRecord]:
        with self.transaction() as db:
            rows = db.execute(
                "SELECT * FROM documents WHERE analysis_id = ? ORDER BY doc_id, indexed_at, version",
                (analysis_id,),
            ).fetchall()
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
                ),
                n_chunks=r["n_chunks"],
                superseded=bool(r["superseded"]),
                indexed_at=r["indexed_at"],
            )
            for r in rows
        ]

    @staticmethod
    def clear_documents(db: sqlite3.Connection, analysis_id: str) -> None:
        db.execute("DELETE FROM documents WHERE analysis_id = ?", (analysis_id,))

    @staticmethod
    def put_document(db: sqlite3.Connection, document: Document, n_chunks: int, superseded: bool) -> None:
        d = document
        db.execute(
            "INSERT OR REPLACE INTO documents (analysis_id, doc_id, version, title, source, sha256, pages, n_chunks, "
            "superseded, indexed_at, format, coverage, dropped, kept) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (d.analysis_id, d.doc_id, d.version, d.title, d.source, d.sha256, d.pages, n_chunks, int(superseded), now(),
             d.format, d.coverage, json.dumps(d.dropped), d.kept),
        )

    @staticmethod
    def set_superseded(db: sqlite3.Connection, analysis_id: str, doc_id: str, current: str) -> None:
        db.execute(
            "UPDATE documents SET superseded = (version != ?) WHERE analysis_id = ? AND doc_id = ?",
            (current, analysis_id, doc_id),
        )
