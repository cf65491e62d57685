"""Retrieval commands: ``route`` (tier 1), ``search`` (tier 2), ``eval`` and ``stats``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Column, Table

from mitra.cli.common import JsonOption, SystemChoice, console, knowledge, pipeline, print_json, user_errors
from mitra.core.settings import SYSTEMS
from mitra.core.types import version_label


@user_errors
def route(
    question: Annotated[str, typer.Argument(help="A question; the analyses it is most likely about are listed.")],
    top: Annotated[int, typer.Option(min=1, help="How many candidate analyses.")] = 3,
    as_json: JsonOption = False,
) -> None:
    """Tier 1: which analyses is this question about?"""
    if not question.strip():
        raise typer.BadParameter("the question is empty", param_hint="QUESTION")
    result = pipeline(with_reranker=False).router.route(question, top_n=top)
    if as_json:
        from mitra.retrieval.search import routing_json

        print_json(routing_json(result))
        return
    table = Table("#", "analysis", "title", "match", "words it holds")
    for i, c in enumerate(result.candidates, start=1):
        table.add_row(str(i), c.analysis.id, c.analysis.title, c.confidence, ", ".join(c.matched) or "-")
    Console().print(table)
    if not result.stands_out:
        console.print("No analysis stands out for this question: name the analysis, or choose one above.")


@user_errors
def search(
    question: Annotated[Optional[str], typer.Argument(help="The question (omit with --queries).")] = None,
    analysis: Annotated[Optional[str], typer.Option(help="Analysis id; without it the question is routed first.")] = None,
    queries: Annotated[Optional[Path], typer.Option(help='Batch: JSONL lines {"qid", "query", "analysis_id"?}.')] = None,
    out: Annotated[Optional[Path], typer.Option(help="Batch output JSONL.")] = None,
    system: Annotated[
        Optional[SystemChoice], typer.Option(help="The retrieval system (default: settings.retrieval_system).")
    ] = None,
    k: Annotated[Optional[int], typer.Option(min=1, help="Passages to return (default: settings.final_k).")] = None,
    version: Annotated[Optional[str], typer.Option(help="Search this document version, superseded or not.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Tier 2: retrieve passages of one analysis (routing first when no analysis is given)."""
    from mitra.retrieval.search import SearchRequest, load_queries, run_search

    if (question is None) == (queries is None):
        raise typer.BadParameter("give either a QUESTION or --queries FILE")
    if queries is not None and out is None:
        raise typer.BadParameter("--queries needs --out")
    if question is not None and not question.strip():
        raise typer.BadParameter("the query is empty", param_hint="QUESTION")
    requests = load_queries(queries) if queries else [SearchRequest(qid="q1", query=question, analysis_id=analysis)]
    name = system.value if system else None
    p = pipeline(with_reranker=name in (None, "rerank", "adapted"))
    rows = [run_search(p, r, system=name, k=k, version=version) for r in requests]
    if queries is not None:
        from mitra.core.jsonl import write_jsonl

        write_jsonl(out, rows)
        console.print(f"wrote {len(rows)} results to {out}")
    elif as_json:
        print_json(rows[0])
    else:
        _print_hits(rows[0])


def _print_hits(row: dict) -> None:
    if row["routed"]:
        top = row["routed"][0]
        console.print(f"routed to [bold]{top['analysis_id']}[/] (score {top['score']:.3f})")
    out = Console()
    for hit in row["hits"]:
        scores = ", ".join(f"{k}={v:.3f}" for k, v in hit["scores"].items() if not k.endswith("_rank"))
        out.rule(f"[{hit['rank']}] {hit['label']}", align="left")
        out.print(hit["text"], highlight=False)
        out.print(f"[dim]{scores}[/]")


@user_errors
def eval_command(
    gold: Annotated[Path, typer.Option(help='Gold JSONL: {"qid","query","analysis_id","relevant_chunk_ids"|"evidence",...}.')],
    systems: Annotated[str, typer.Option(help="Comma-separated systems to compare.")] = "bm25,dense,hybrid,rerank",
    out: Annotated[Optional[Path], typer.Option(help="Also write the JSON report here.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Retrieval quality per system: P@k, R@k, MRR@10, NDCG@3/5 and routing accuracy."""
    from mitra.evaluation.retrieval import GoldQuery, evaluate, save_report, to_markdown
    from mitra.core.jsonl import read_jsonl

    names = [s.strip() for s in systems.split(",") if s.strip()]
    unknown = sorted(set(names) - set(SYSTEMS))
    if unknown:
        raise typer.BadParameter(f"unknown systems {unknown}; choose from {', '.join(SYSTEMS)}")
    queries = read_jsonl(gold, GoldQuery)
    report = evaluate(pipeline(with_reranker=bool({"rerank", "adapted"} & set(names))), queries, names, gold_name=str(gold))
    if out:
        save_report(report, out)
    if as_json:
        print_json(report.model_dump())
    else:
        Console().print(to_markdown(report), highlight=False)


@user_errors
def stats(as_json: JsonOption = False) -> None:
    """What the knowledge base holds."""
    from mitra.models.adapted import current_manifest
    from mitra.store.index_files import published_model

    kb = knowledge()
    data = kb.stats()
    manifest = current_manifest(published_model(kb.settings))
    data["adapted"] = manifest.model_dump() if manifest else None
    floor = kb.settings.min_coverage
    data["per_analysis"] = [
        {
            "analysis_id": a.id,
            "title": a.title,
            "documents": [
                {"doc_id": d.document.doc_id, "version": d.document.version, "chunks": d.n_chunks,
                 "superseded": d.superseded, "format": d.document.format, "coverage": d.document.coverage,
                 "low_coverage": d.document.coverage is not None and d.document.coverage < floor,
                 "coverage_by_kind": d.document.coverage_by_kind, "dropped": d.document.dropped}
                for d in kb.documents(a.id)
            ],
        }
        for a in kb.analyses()
    ]
    # what the admin should look at: documents indexed below the coverage floor (min_coverage)
    data["low_coverage"] = [{"analysis_id": row["analysis_id"], "doc_id": d["doc_id"], "version": d["version"],
                             "coverage": d["coverage"], "coverage_by_kind": d["coverage_by_kind"]}
                            for row in data["per_analysis"] for d in row["documents"] if d["low_coverage"]]
    if as_json:
        print_json(data)
        return
    # Words wrap within their column, never cut: a long title takes more lines.
    table = Table("analysis", Column("title", ratio=2, overflow="fold"), Column("documents (version: chunks)", ratio=3))
    for row in data["per_analysis"]:
        docs = ", ".join(
            f"{d['doc_id']} {version_label(d['version'])}: {d['chunks']}"
            + (f" ({d['coverage']:.0%} of words{', below min_coverage' if d['low_coverage'] else ''})"
               if d["coverage"] is not None else "")
            + (" (superseded)" if d["superseded"] else "")
            for d in row["documents"]
        )
        table.add_row(row["analysis_id"], row["title"], docs)
    out = Console()
    out.print(table)
    totals = Table.grid(padding=(0, 2))
    for key, value in data.items():
        if key not in ("per_analysis", "adapted", "low_coverage"):
            totals.add_row(key.replace("_", " "), str(value))
    out.print(totals)
    if data["low_coverage"]:
        out.print(f"{len(data['low_coverage'])} documents below min_coverage ({floor:.0%}): `mitra stats --json` "
                  "gives their coverage by kind of block")
    out.print(manifest.summary() if manifest else "no adapted reranker (mitra adapt trains one)")


def register(app: typer.Typer) -> None:
    app.command()(route)
    app.command()(search)
    app.command("eval")(eval_command)
    app.command()(stats)
