"""Thumbs up/down on answers, kept in SQLite and exportable as ``mitra eval`` gold queries.

A thumbs-up answer's cited passages become the query's ``relevant_chunk_ids``; a
thumbs-down one is exported without them (it still scores routing, and an expert
can add the right evidence before using it for retrieval metrics).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from mitra.store.catalog import sqlite_transaction
from mitra.evaluation.retrieval import GoldQuery

_SCHEMA = """
CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    analysis_id TEXT NOT NULL,
    question TEXT NOT NULL,
    standalone TEXT NOT NULL,
    answer TEXT NOT NULL,
    cited_chunk_ids TEXT NOT NULL,
    rating INTEGER NOT NULL CHECK (rating IN (-1, 1)),
    reason TEXT NOT NULL DEFAULT '');
"""


class Feedback(BaseModel):
    analysis_id: str
    question: str
    standalone: str = Field("", description="the condensed query retrieval saw; empty = the question")
    answer: str
    cited_chunk_ids: list[str] = Field(default_factory=list)
    rating: Literal[-1, 1] = Field(description="+1 thumbs up, -1 thumbs down")
    reason: str = ""
    id: int | None = None
    created_at: str = ""


class FeedbackStore:
    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._db() as db:
            db.executescript(_SCHEMA)

    def _db(self):
        return sqlite_transaction(self.path)

    def add(self, feedback: Feedback) -> int:
        f = feedback
        with self._db() as db:
            cursor = db.execute(
                "INSERT INTO feedback (created_at, analysis_id, question, standalone, answer, cited_chunk_ids, rating, reason)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    f.analysis_id, f.question, f.standalone or f.question, f.answer,
                    json.dumps(f.cited_chunk_ids), f.rating, f.reason,
                ),
            )
        return int(cursor.lastrowid)

    def set_reason(self, feedback_id: int, reason: str) -> None:
        with self._db() as db:
            db.execute("UPDATE feedback SET reason = ? WHERE id = ?", (reason.strip(), feedback_id))

    def all(self) -> list[Feedback]:
        with self._db() as db:
            rows = db.execute("SELECT * FROM feedback ORDER BY id").fetchall()
        return [Feedback(**{**dict(r), "cited_chunk_ids": json.loads(r["cited_chunk_ids"])}) for r in rows]

    def gold_queries(self, analyses: set[str] | None = None) -> list[GoldQuery]:
        """Every rating as an eval question; only those about ``analyses`` where given
        (what the exporting principal may read)."""
        return [
            GoldQuery(
                qid=f"feedback-{f.id}",
                query=f.standalone or f.question,
                analysis_id=f.analysis_id,
                relevant_chunk_ids=f.cited_chunk_ids if f.rating > 0 else [],
                set="feedback-up" if f.rating > 0 else "feedback-down",
            )
            for f in self.all()
            if analyses is None or f.analysis_id in analyses
        ]

    def to_jsonl(self, analyses: set[str] | None = None) -> str:
        """The feedback as ``mitra eval --gold`` JSONL (about ``analyses`` only, where given)."""
        return "".join(q.model_dump_json() + "\n" for q in self.gold_queries(analyses))
