"""Thumbs up/down on answers, kept in the shared state (``mitra.store.state``) and
exportable as ``mitra eval`` gold queries.

A thumbs-up answer's cited passages become the query's ``relevant_chunk_ids``; a
thumbs-down one is exported without them (it still scores routing, and an expert
can add the right evidence before using it for retrieval metrics).
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, Field
from sqlalchemy import insert, select, update

from mitra.evaluation.retrieval import GoldQuery
from mitra.store.schema import feedback as ratings
from mitra.store.state import SqlStore, now


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


class FeedbackStore(SqlStore):
    """The ratings (see ``SqlStore``)."""

    branch = "feedback"

    def add(self, feedback: Feedback) -> int:
        f = feedback
        with self.engine.begin() as db:
            return db.scalar(insert(ratings).values(
                created_at=now(), analysis_id=f.analysis_id, question=f.question,
                standalone=f.standalone or f.question, answer=f.answer,
                cited_chunk_ids=json.dumps(f.cited_chunk_ids), rating=f.rating, reason=f.reason,
            ).returning(ratings.c.id))

    def set_reason(self, feedback_id: int, reason: str) -> None:
        with self.engine.begin() as db:
            db.execute(update(ratings).where(ratings.c.id == feedback_id).values(reason=reason.strip()))

    def rename_chunks(self, analysis_id: str, renamed: dict[str, str]) -> int:
        """Ratings of the analysis that cite a chunk of ``renamed`` cite its new id instead
        (``ingest.repair`` folding a duplicate document); returns how many changed."""
        changed = 0
        with self.engine.begin() as db:
            rows = db.execute(select(ratings.c.id, ratings.c.cited_chunk_ids)
                              .where(ratings.c.analysis_id == analysis_id)).mappings().all()
            for row in rows:
                cited = json.loads(row["cited_chunk_ids"])
                if any(c in renamed for c in cited):
                    db.execute(update(ratings).where(ratings.c.id == row["id"])
                               .values(cited_chunk_ids=json.dumps([renamed.get(c, c) for c in cited])))
                    changed += 1
        return changed

    def all(self) -> list[Feedback]:
        with self.engine.begin() as db:
            rows = db.execute(select(ratings).order_by(ratings.c.id)).mappings().all()
        return [Feedback(**{**r, "cited_chunk_ids": json.loads(r["cited_chunk_ids"])}) for r in rows]

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
