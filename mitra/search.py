"""``mitra search``: route (when no analysis is given), retrieve, and shape result rows.

Result row: ``{"qid", "routed": [{"analysis_id", "score"}], "analysis_id",
"hits": [{"rank", "chunk_id", "doc_id", "version", "section", "page", "kind",
"text", "scores": {...}}], "timings_ms": {...}}``.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, field_validator

from mitra.jsonl import read_jsonl
from mitra.retrieval import Pipeline, System
from mitra.types import Hit


class SearchRequest(BaseModel):
    qid: str
    query: str
    analysis_id: str | None = None

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the query is empty")
        return value


def load_queries(path: Path) -> list[SearchRequest]:
    return read_jsonl(path, SearchRequest)


def hit_row(hit: Hit) -> dict:
    c = hit.chunk
    return {
        "rank": hit.rank,
        "chunk_id": c.id,
        "doc_id": c.doc_id,
        "version": c.version,
        "section": c.section_path,
        "page": c.page_label,
        "kind": c.kind.value,
        "text": c.text,
        "scores": hit.scores,
    }


def run_search(
    pipeline: Pipeline, request: SearchRequest, *, system: System | None = None, k: int | None = None, version: str | None = None
) -> dict:
    routed = []
    analysis_id = request.analysis_id
    if analysis_id is None:
        routing = pipeline.router.route(request.query)
        routed = [{"analysis_id": c.analysis.id, "score": c.score} for c in routing.candidates]
        if not routing.candidates:
            return {"qid": request.qid, "routed": [], "analysis_id": None, "hits": [], "timings_ms": {}}
        analysis_id = routing.candidates[0].analysis.id
    result = pipeline.retriever.search(analysis_id, request.query, system=system, k=k, version=version)
    return {
        "qid": request.qid,
        "routed": routed,
        "analysis_id": analysis_id,
        "hits": [hit_row(h) for h in result.hits],
        "timings_ms": result.timings_ms,
    }
