"""``mitra search``: route (when no analysis is given), retrieve, and shape result rows.

Result row: ``{"qid", "routed": [{"analysis_id", "score"}], "analysis_id",
"hits": [Hit.to_json()], "timings_ms": {...}}``.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, field_validator

from mitra.core.jsonl import read_jsonl
from mitra.core.types import RoutingResult
from mitra.retrieval.pipeline import Pipeline
from mitra.retrieval.retriever import System


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


def routing_json(result: RoutingResult) -> dict:
    """The routing of a question (`mitra route --json`, the MCP `find_analysis` tool): the
    candidates best first, each with the reason the app shows for it (a strong or weak match,
    and the question's words its title or abstract holds), and whether one stands out."""
    return {
        "question": result.question,
        "margin": result.margin,
        "stands_out": result.stands_out,
        "candidates": [
            {"analysis_id": c.analysis.id, "title": c.analysis.title, "score": c.score, "scores": c.scores,
             "confidence": c.confidence, "matched": c.matched,
             "reason": f"{c.confidence} match" + (f": its summary has {', '.join(c.matched)}" if c.matched else "")}
            for c in result.candidates
        ],
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
        "hits": [h.to_json() for h in result.hits],
        "timings_ms": result.timings_ms,
    }
