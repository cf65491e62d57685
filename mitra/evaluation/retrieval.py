"""``mitra eval``: retrieval quality per system, laid out like the paper's Tables 1 and 2.

Retrieval is evaluated in the locked tier (inside the gold analysis, as after the
user's confirmation); routing is evaluated separately on ``route_query`` (or the
query itself) against the gold analysis.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from statistics import mean

from pydantic import BaseModel, Field, ValidationError

from mitra.evaluation.metrics import evidence_matches, mrr_at_k, ndcg_at_k, precision_at_k, recall_at_k
from mitra.retrieval.pipeline import Pipeline
from mitra.core.jsonl import InputError
from mitra.core.types import Chunk

KS = (1, 3, 5)
TABLE1 = [f"{m}@{k}" for k in KS for m in ("P", "R")]
TABLE2 = ["MRR@10", "NDCG@3", "NDCG@5"]


class GoldQuery(BaseModel):
    qid: str
    query: str
    analysis_id: str
    route_query: str | None = None
    relevant_chunk_ids: list[str] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)
    # passages (matched like evidence) left out of the ranking before it is scored: the
    # text a question was made from (a caption asking for the sentences that cite it)
    excluded: list[str] = Field(default_factory=list)
    set: str = "all"

    @property
    def has_gold(self) -> bool:
        return bool(self.relevant_chunk_ids or self.evidence)


class EvalReport(BaseModel):
    date: str
    gold: str
    query_sets: dict[str, int]
    skipped_without_gold: int
    systems: dict[str, dict[str, dict[str, float]]]  # set -> system -> metric -> value
    routing: dict[str, dict[str, float]]  # set -> top1/top3
    reranker: str

    @classmethod
    def uploaded(cls, raw: bytes, name: str) -> "EvalReport":
        """A report uploaded as ``name``, or one line saying why it is none (JSON nested past
        the parser's depth included: pydantic's parser stops there, ``json`` would recurse)."""
        try:
            return cls.model_validate_json(raw)
        except ValidationError as error:
            first = error.errors()[0]
            raise InputError(f"{name} is not a `mitra eval --out` report: {first['msg']}") from None


def _relevance(gold: GoldQuery, chunks: list[Chunk]) -> dict[str, set[int]]:
    """chunk id -> the gold evidence units it covers."""
    if gold.relevant_chunk_ids:
        return {cid: {i} for i, cid in enumerate(gold.relevant_chunk_ids)}
    covered: dict[str, set[int]] = {}
    for chunk in chunks:
        units = {i for i, ev in enumerate(gold.evidence) if evidence_matches(ev, chunk.text)}
        if units:
            covered[chunk.id] = units
    return covered


def query_metrics(ranked_ids: list[str], relevance: dict[str, set[int]], n_units: int) -> dict[str, float]:
    relevant = [cid in relevance for cid in ranked_ids]
    covered = [relevance.get(cid, set()) for cid in ranked_ids]
    out = {}
    for k in KS:
        out[f"P@{k}"] = precision_at_k(relevant, k)
        out[f"R@{k}"] = recall_at_k(covered, n_units, k)
    out["MRR@10"] = mrr_at_k(relevant, 10)
    for k in (3, 5):
        out[f"NDCG@{k}"] = ndcg_at_k(relevant, len(relevance), k)
    out["hit@5"] = float(any(relevant[:5]))
    return out


def locked_metrics(pipeline: Pipeline, gold: list[GoldQuery], system: str) -> list[dict[str, float]]:
    """Per-query metrics of ``system`` inside each query's gold analysis (queries
    without gold are skipped), in the order of ``gold``."""
    chunk_cache: dict[str, list[Chunk]] = {}
    rows = []
    for g in gold:
        if not g.has_gold:
            continue
        if g.analysis_id not in chunk_cache:
            chunk_cache[g.analysis_id] = pipeline.kb.chunks(g.analysis_id)
        chunks = chunk_cache[g.analysis_id]
        relevance = _relevance(g, chunks)
        # Left out of the search itself, not only of the scoring: a left-out caption would
        # still lift its neighbours and its section (worth 0.97x -> 1.08x BM25 on long).
        excluded = frozenset(c.id for c in chunks for e in g.excluded if evidence_matches(e, c.text)) - set(relevance)
        hits = pipeline.retriever.retrieve(g.analysis_id, g.query, system=system, k=10, left_out=excluded)
        ranked = [h.chunk.id for h in hits]
        rows.append(query_metrics(ranked, relevance, len(g.relevant_chunk_ids or g.evidence)))
    return rows


def routing_hits(pipeline: Pipeline, gold: list[GoldQuery], system: str = "hybrid") -> list[tuple[bool, bool]]:
    """(gold analysis first, gold analysis in the top 3) for each query's ``route_query``."""
    out = []
    for g in gold:
        routed = [c.analysis.id for c in pipeline.router.route(g.route_query or g.query, top_n=3, system=system).candidates]
        out.append((routed[:1] == [g.analysis_id], g.analysis_id in routed))
    return out


def evaluate(pipeline: Pipeline, gold: list[GoldQuery], systems: list[str], gold_name: str = "") -> EvalReport:
    sets: dict[str, list[GoldQuery]] = {}
    for g in gold:
        sets.setdefault(g.set, []).append(g)
    per_set = {name: {system: locked_metrics(pipeline, queries, system) for system in systems}
               for name, queries in sets.items()}
    routing = {name: routing_hits(pipeline, queries) for name, queries in sets.items()}
    return EvalReport(
        date=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        gold=gold_name,
        query_sets={name: len(queries) for name, queries in sets.items()},
        skipped_without_gold=sum(not g.has_gold for g in gold),
        systems={
            name: {sys: {m: round(mean(r[m] for r in rows), 4) for m in rows[0]} for sys, rows in by_sys.items() if rows}
            for name, by_sys in per_set.items()
        },
        routing={
            name: {"top1": round(mean(r[0] for r in rows), 4), "top3": round(mean(r[1] for r in rows), 4)}
            for name, rows in routing.items()
        },
        reranker=pipeline.reranker_note,
    )


def _table(report: EvalReport, columns: list[str]) -> str:
    lines = ["| Query set | System | " + " | ".join(columns) + " |", "|---|---|" + "---|" * len(columns)]
    for set_name, by_system in report.systems.items():
        for system, metrics in by_system.items():
            best = {c: max(m[c] for m in by_system.values()) for c in columns}
            cells = [f"**{metrics[c]:.2f}**" if metrics[c] == best[c] and len(by_system) > 1 else f"{metrics[c]:.2f}" for c in columns]
            lines.append(f"| {set_name} | {system} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def to_markdown(report: EvalReport) -> str:
    routing = ["| Query set | Routing top-1 | Routing top-3 |", "|---|---|---|"] + [
        f"| {name} | {r['top1']:.2f} | {r['top3']:.2f} |" for name, r in report.routing.items()
    ]
    sets = ", ".join(f"{name} ({n} queries)" for name, n in report.query_sets.items())
    return "\n\n".join(
        [
            f"Gold: {report.gold} — {sets}; {report.skipped_without_gold} without gold evidence skipped "
            f"for retrieval metrics; {report.date}; {report.reranker}",
            "Table 1 — precision and recall at k\n\n" + _table(report, TABLE1),
            "Table 2 — rank-aware metrics\n\n" + _table(report, TABLE2),
            "Routing (tier 1)\n\n" + "\n".join(routing),
        ]
    )


def save_report(report: EvalReport, path: Path) -> None:
    path.write_text(json.dumps(report.model_dump(), indent=2))
