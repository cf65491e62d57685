"""The ``mitra`` command line.

Core retrieval commands live here; other stages add theirs through a
``register(app)`` function in their own module (listed in ``_COMMAND_MODULES``),
so each stage keeps its CLI next to its code. Heavy imports stay inside the
commands so that ``mitra --help`` is instant.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Callable, Optional

import typer
from rich.console import Console
from typer.exceptions import TyperException
from rich.table import Table

from mitra.errors import MitraError
from mitra.settings import SYSTEMS
from mitra.types import version_label

SystemChoice = Enum("SystemChoice", {name: name for name in SYSTEMS}, type=str)
EnableChoice = Enum("EnableChoice", {name: name for name in ("auto", "always", "never")}, type=str)

app = typer.Typer(
    name="mitra",
    help="MITRA: private question answering over a collaboration's analysis documents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = Console(stderr=True)
_COMMAND_MODULES: list[str] = ["ingest.cli", "mitra.chat_cli", "mitra.answer_cli"]

JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON on stdout.")]


_debug = {"on": os.environ.get("MITRA_DEBUG", "") not in ("", "0")}


@app.callback()
def _options(
    debug: Annotated[bool, typer.Option("--debug", help="Show the traceback of an unexpected error.")] = False,
) -> None:
    if debug:
        _debug["on"] = True


def user_errors(command: Callable) -> Callable:
    """The CLI boundary: a MitraError (bad input, a failure the user can fix) is one red
    line and exit 2; anything else is one line and exit 1, its traceback shown only with
    ``--debug`` or ``MITRA_DEBUG=1``."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except MitraError as error:
            if _debug["on"]:
                raise
            console.print(f"[bold red]error:[/] {error}", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except (typer.Exit, typer.Abort, TyperException, KeyboardInterrupt):
            raise  # exit codes and usage errors: typer reports them itself
        except Exception as error:
            if _debug["on"]:
                raise
            console.print(
                f"[bold red]internal error:[/] {type(error).__name__}: {error} "
                "(run again with --debug or MITRA_DEBUG=1 for the traceback)",
                highlight=False, soft_wrap=True,
            )
            raise typer.Exit(1) from None

    return wrapper


def print_json(data) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def pipeline(with_reranker: bool = True):
    from mitra.retrieval import build_pipeline

    with console.status("loading models and stores…"):
        return build_pipeline(with_reranker=with_reranker)


AllowLowCoverage = Annotated[
    bool,
    typer.Option("--allow-low-coverage", help="Index documents even when their chunks lose text (see min_coverage)."),
]


@app.command("index-jsonl")
@user_errors
def index_jsonl_command(
    file: Annotated[Path, typer.Argument(help="JSONL: one analysis per line with its documents' text.")],
    allow_low_coverage: AllowLowCoverage = False,
    as_json: JsonOption = False,
) -> None:
    """Index analyses (abstract tier + full-text tier) from a JSONL file; each analysis is replaced atomically.

    Each document's text is read as Markdown, LaTeX or plain text ("format", default auto). A document
    that yields no chunks, or whose chunks hold less than min_coverage of its words, stops the run
    before anything is written."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from mitra.indexing import index_records, load_analyses

    records = load_analyses(file)  # a malformed file fails before any model loads
    p = pipeline(with_reranker=False)
    with Progress(  # on stderr, so it shows under --json too
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console,
    ) as progress:

        def on_analysis(analysis_id: str, n_chunks: int):
            task = progress.add_task(f"embedding {analysis_id}", total=n_chunks)
            return lambda n: progress.advance(task, n)

        done = index_records(p.kb, records, on_analysis, allow_low_coverage=allow_low_coverage)
    documents = [d for a in done for d in a.documents]
    coverages = [d["coverage"] for d in documents if d["coverage"] is not None]
    lowest = min(coverages, default=1.0)
    if as_json:
        print_json({
            "indexed": [{"analysis_id": a.analysis_id, "chunks": a.chunks, "documents": a.documents} for a in done],
            "coverage": {"min": lowest, "mean": round(sum(coverages) / len(coverages), 4) if coverages else None},
            "stats": p.kb.stats(),
        })
    else:
        console.print(
            f"indexed {len(done)} analyses, {len(documents)} documents, {sum(a.chunks for a in done)} chunks; "
            f"coverage: lowest {lowest:.1%} (the share of a document's words that reach a chunk)"
        )


@app.command()
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
        print_json(
            {
                "question": question,
                "margin": result.margin,
                "candidates": [
                    {"analysis_id": c.analysis.id, "title": c.analysis.title, "score": c.score, "scores": c.scores}
                    for c in result.candidates
                ],
            }
        )
        return
    table = Table("#", "analysis", "title", "score")
    for i, c in enumerate(result.candidates, start=1):
        table.add_row(str(i), c.analysis.id, c.analysis.title, f"{c.score:.3f}")
    Console().print(table)
    console.print(f"margin between first and second: {result.margin:.3f}")


@app.command()
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
    from mitra.search import SearchRequest, load_queries, run_search

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
        from mitra.jsonl import write_jsonl

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
        where = " · ".join(x for x in (f"{hit['doc_id']} {version_label(hit['version'])}", hit["section"], hit["page"]) if x)
        scores = ", ".join(f"{k}={v:.3f}" for k, v in hit["scores"].items() if not k.endswith("_rank"))
        out.rule(f"[{hit['rank']}] {where}", align="left")
        out.print(hit["text"], highlight=False)
        out.print(f"[dim]{scores}[/]")


@app.command("eval")
@user_errors
def eval_command(
    gold: Annotated[Path, typer.Option(help='Gold JSONL: {"qid","query","analysis_id","relevant_chunk_ids"|"evidence",...}.')],
    systems: Annotated[str, typer.Option(help="Comma-separated systems to compare.")] = "bm25,dense,hybrid,rerank",
    out: Annotated[Optional[Path], typer.Option(help="Also write the JSON report here.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Retrieval quality per system: P@k, R@k, MRR@10, NDCG@3/5 and routing accuracy."""
    from mitra.evaluation import GoldQuery, evaluate, save_report, to_markdown
    from mitra.jsonl import read_jsonl

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


@app.command()
@user_errors
def adapt(
    minutes: Annotated[Optional[float], typer.Option(min=0.1, help="Time budget for the whole run (default 10).")] = None,
    llm_share: Annotated[Optional[float], typer.Option(
        min=0, max=1, help="Share of the budget for LLM-written questions (0: headings only) (default 0.5).")] = None,
    llm_questions: Annotated[Optional[int], typer.Option(min=0, help="At most this many LLM-written questions (default 400).")] = None,
    max_steps: Annotated[Optional[int], typer.Option(min=1, help="Stop training after this many steps.")] = None,
    enable: Annotated[Optional[EnableChoice], typer.Option(
        help="auto: switch on only where it beats fusion on held-out questions (default auto).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Train a reranker on this knowledge base's own text (no labels, nothing downloaded).

    Questions come from the indexed passages (section headings, and questions the configured
    LLM writes about passages); the model is validated on held-out questions and used by
    default only where it beats the fused ranking there. A killed run resumes where it stopped."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from mitra.adapt import AdaptOptions, run_adaptation

    given = {"minutes": minutes, "llm_share": llm_share, "llm_questions": llm_questions, "max_steps": max_steps,
             "enable": enable.value if enable else None}
    options = AdaptOptions(**{name: value for name, value in given.items() if value is not None})
    p = pipeline(with_reranker=False)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console) as bars:
        tasks: dict[str, int] = {}

        def report(stage: str, done: int, total: int | None) -> None:
            if stage not in tasks:
                tasks[stage] = bars.add_task(stage, total=total)
            bars.update(tasks[stage], completed=done, total=total)

        manifest = run_adaptation(p, options, progress=report)
    if as_json:
        print_json(manifest.model_dump())
    else:
        console.print(manifest.summary())
        console.print(f"{manifest.reason}; {manifest.steps} training steps, {manifest.seconds['total']:.0f} s")


@app.command()
@user_errors
def stats(as_json: JsonOption = False) -> None:
    """What the knowledge base holds."""
    from mitra.settings import get_settings
    from mitra.store import KnowledgeBase

    from mitra.adapt import current_manifest

    kb = KnowledgeBase(get_settings())
    data = kb.stats()
    manifest = current_manifest(kb.settings)
    data["adapted"] = manifest.model_dump() if manifest else None
    data["per_analysis"] = [
        {
            "analysis_id": a.id,
            "title": a.title,
            "documents": [
                {"doc_id": d.document.doc_id, "version": d.document.version, "chunks": d.n_chunks,
                 "superseded": d.superseded, "format": d.document.format, "coverage": d.document.coverage}
                for d in kb.documents(a.id)
            ],
        }
        for a in kb.analyses()
    ]
    if as_json:
        print_json(data)
        return
    table = Table("analysis", "title", "documents (version: chunks)")
    for row in data["per_analysis"]:
        docs = ", ".join(
            f"{d['doc_id']} {version_label(d['version'])}: {d['chunks']}"
            + (f" ({d['coverage']:.0%} of words)" if d["coverage"] is not None else "")
            + (" (superseded)" if d["superseded"] else "")
            for d in row["documents"]
        )
        table.add_row(row["analysis_id"], row["title"][:60], docs)
    out = Console()
    out.print(table)
    out.print({k: v for k, v in data.items() if k not in ("per_analysis", "adapted")})
    out.print(manifest.summary() if manifest else "no adapted reranker (mitra adapt trains one)")


@functools.cache
def register_commands() -> typer.Typer:
    """The app with every stage's commands added (once per process)."""
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(app)
    return app


def main() -> None:
    register_commands()()
