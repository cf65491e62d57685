"""How should dense and BM25 scores be combined? Every rule measured on every set.

For each set of ``benchmarks/corpora`` it scores *every* chunk of each question's
analysis (and every abstract, for routing) with the embedder and with BM25 once,
then replays each fusion rule on those score vectors: a rule's ranking is exactly
what the retriever would return, at no extra model cost. Prints JSON (per set and
rule: MRR@10 for the locked tier, top-1 for routing) and a Markdown table on stderr.

    python benchmarks/fusion_sweep.py [--sets lhcb,lhcb-md,qasper,rivet] [--embedder all-MiniLM-L6-v2]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from benchmarks.corpora import SET_NAMES, load_set, shared_dir
from mitra.store.bm25 import BM25Index
from mitra.models.embedders import SentenceTransformerEmbedder
from mitra.evaluation.retrieval import _relevance
from ingest.sources.jsonl import prepare
from mitra.core.settings import Settings

CANDIDATES = 50  # what each retriever hands to fusion (settings.dense_k / bm25_k)


@dataclass
class Query:
    dense: np.ndarray  # cosine of every entry
    bm25: np.ndarray  # BM25 score of every entry
    relevant: np.ndarray  # bool per entry


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    order = np.lexsort((np.arange(scores.size), -scores))
    return order[:k]


def _minmax(values: np.ndarray) -> np.ndarray:
    span = values.max() - values.min()
    return (values - values.min()) / span if span > 0 else np.ones_like(values)


def convex(w: float, normalise: str = "minmax", fill: bool = False) -> Callable[[Query], np.ndarray]:
    """w * dense + (1 - w) * bm25 over the union of both top-50 lists. ``fill``: a
    candidate one retriever did not return still gets that retriever's real score
    (instead of 0); ``normalise``: minmax or zscore over each retriever's candidates."""

    def rule(q: Query) -> np.ndarray:
        d_top, b_top = _top(q.dense, CANDIDATES), _top(q.bm25, CANDIDATES)
        b_top = b_top[q.bm25[b_top] > 0]
        union = np.union1d(d_top, b_top)
        fused = np.full(q.dense.size, -np.inf)
        parts = []
        for scores, top in ((q.dense, d_top), (q.bm25, b_top)):
            if not top.size:
                parts.append(np.zeros(union.size))
                continue
            base = top if not fill else union
            values = scores[base]
            if normalise == "zscore":
                sd = values.std()
                norm = (scores[union] - values.mean()) / sd if sd > 0 else np.zeros(union.size)
                if not fill:
                    norm = np.where(np.isin(union, top), norm, norm.min() if norm.size else 0)
            else:
                low, span = (values.min(), values.max() - values.min()) if values.size else (0, 0)
                norm = (scores[union] - low) / span if span > 0 else np.ones(union.size)
                if not fill:
                    norm = np.where(np.isin(union, top), norm, 0.0)
            parts.append(norm)
        fused[union] = w * parts[0] + (1 - w) * parts[1]
        return fused

    return rule


def rrf(w: float, k: int = 60) -> Callable[[Query], np.ndarray]:
    def rule(q: Query) -> np.ndarray:
        fused = np.full(q.dense.size, -np.inf)
        d_top, b_top = _top(q.dense, CANDIDATES), _top(q.bm25, CANDIDATES)
        b_top = b_top[q.bm25[b_top] > 0]
        total = np.zeros(q.dense.size)
        total[d_top] += w / (k + 1 + np.arange(d_top.size))
        total[b_top] += (1 - w) / (k + 1 + np.arange(b_top.size))
        seen = np.union1d(d_top, b_top)
        fused[seen] = total[seen]
        return fused

    return rule


def single(name: str) -> Callable[[Query], np.ndarray]:
    return lambda q: getattr(q, name).astype(float)


RULES: dict[str, Callable[[Query], np.ndarray]] = {
    "bm25": single("bm25"),
    "dense": single("dense"),
    **{f"convex w={w}": convex(w) for w in (0.2, 0.3, 0.4, 0.5, 0.6)},
    **{f"convex-fill w={w}": convex(w, fill=True) for w in (0.2, 0.3, 0.4, 0.5, 0.6)},
    **{f"zscore w={w}": convex(w, "zscore") for w in (0.3, 0.4, 0.5)},
    **{f"zscore-fill w={w}": convex(w, "zscore", fill=True) for w in (0.3, 0.4, 0.5)},
    **{f"rrf w={w}": rrf(w) for w in (0.3, 0.5)},
}


def mrr(order: np.ndarray, relevant: np.ndarray, k: int = 10) -> float:
    hits = np.flatnonzero(relevant[order[:k]])
    return 1.0 / (hits[0] + 1) if hits.size else 0.0


def ranking(rule: Callable[[Query], np.ndarray], q: Query) -> np.ndarray:
    return _top(rule(q), q.dense.size)


def score_vectors(bench, embedder, settings) -> tuple[list[Query], list[Query]]:
    locked, routing = [], []
    by_analysis = {r.analysis_id: r for r in bench.records}
    if bench.locked:
        chunks_of = {}
        for g in bench.locked:
            if g.analysis_id not in chunks_of:
                chunks = prepare(by_analysis[g.analysis_id], settings).chunks
                vectors = embedder.embed_passages([c.index_text for c in chunks])
                index = BM25Index.build([c.id for c in chunks], [c.index_text for c in chunks])
                chunks_of[g.analysis_id] = (chunks, vectors, index)
            chunks, vectors, index = chunks_of[g.analysis_id]
            relevance = _relevance(g, chunks)
            locked.append(Query(
                dense=vectors @ embedder.embed_queries([g.query])[0],
                bm25=_bm25_all(index, g.query),
                relevant=np.array([c.id in relevance for c in chunks]),
            ))
    if bench.routing:
        analyses = bench.records
        texts = [f"{a.title}\n{a.abstract}".strip() for a in analyses]
        vectors = embedder.embed_passages(texts)
        index = BM25Index.build([a.analysis_id for a in analyses], [f"{a.analysis_id} {t}" for a, t in zip(analyses, texts)])
        ids = [a.analysis_id for a in analyses]
        for g in bench.routing:
            query = g.route_query or g.query
            routing.append(Query(
                dense=vectors @ embedder.embed_queries([query])[0],
                bm25=_bm25_all(index, query),
                relevant=np.array([i == g.analysis_id for i in ids]),
            ))
    return locked, routing


def _bm25_all(index: BM25Index, query: str) -> np.ndarray:
    scores = np.zeros(len(index))
    for item, score in index.search(query, len(index)):
        scores[index.ids.index(item)] = score
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default=",".join(SET_NAMES))
    parser.add_argument("--embedder", default="all-MiniLM-L6-v2", help="a model name or directory")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    root = shared_dir()
    if root is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR)")
    settings = Settings(_env_file=None)
    embedder = SentenceTransformerEmbedder(args.embedder)
    result: dict[str, dict[str, dict[str, float]]] = {}
    for name in args.sets.split(","):
        locked, routing = score_vectors(load_set(name, root), embedder, settings)
        for tier, queries, metric in (("locked", locked, "MRR@10"), ("routing", routing, "top1")):
            if not queries:
                continue
            rows = result.setdefault(f"{name} {tier} {metric}", {})
            for rule_name, rule in RULES.items():
                values = [
                    mrr(ranking(rule, q), q.relevant) if tier == "locked" else float(q.relevant[ranking(rule, q)[0]])
                    for q in queries
                ]
                rows[rule_name] = round(float(np.mean(values)), 4)
        print(f"{name}: done", file=sys.stderr)
    report = {"embedder": args.embedder, "results": result}
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    columns = list(result)
    print("| rule | " + " | ".join(columns) + " |\n|---|" + "---|" * len(columns), file=sys.stderr)
    for rule_name in RULES:
        print(f"| {rule_name} | " + " | ".join(f"{result[c][rule_name]:.3f}" for c in columns) + " |", file=sys.stderr)


if __name__ == "__main__":
    main()
