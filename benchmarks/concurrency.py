"""N simultaneous chat sessions in one process (threads, as Streamlit serves its sessions),
on the embedded Chroma store and on a real ``chroma run`` server on 127.0.0.1.

Each session is a ``mitra.chat.session.Session`` that routes a question (route), locks
on an analysis (lock), then retrieves (retrieve) and reranks (rerank) in the lock.
Session i locks on the i-th analysis of the demo corpus, round-robin, and asks one of
that analysis's demo questions (benchmarks/corpora/demo_questions.py); every passage it
gets must belong to its locked analysis: "bleed" counts those that do not. The reranker
is the configured cross-encoder where its weights are here, else the retriever's
default system without one (hybrid): the output names which. A smaller number of
sessions also answer, on the embedded llama.cpp model (the packaged GGUF, as
benchmarks/answer_latency.py), all sent at once to the one model server.

The knowledge base is the ORION demo corpus (demo/records.py: the latest version of
every document, as Markdown), indexed with the packaged MiniLM once per backend; the
server backend indexes it into the Chroma server (vectors there, catalog and BM25 in
its data dir). JSON on stdout (p50/p95 ms per stage and end to end, errors, bleed),
a Markdown table on stderr.

    python benchmarks/concurrency.py [--sessions 1,10,50] [--answer-sessions 1,4]
        [--backends embedded,server] [--max-tokens 64] [--gguf PATH] [--work-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager, nullcontext
from functools import partial
from pathlib import Path
from typing import Callable, Iterator

import httpx
import numpy as np

from benchmarks.corpora.demo_questions import ANSWERABLE
from demo.records import demo_records
from ingest.sources.jsonl import index_records
from mitra.answer.answerer import build_answerer
from mitra.chat.session import AnswerTurn, Candidates, Session
from mitra.core.settings import Settings
from mitra.models.embedders import SentenceTransformerEmbedder
from mitra.models.llm import resolve_gguf
from mitra.retrieval.pipeline import Pipeline, build_pipeline

BACKENDS = ("embedded", "server")
RETRIEVAL_STAGES = ("route_ms", "lock_ms", "retrieve_ms", "rerank_ms", "end_to_end_ms")
ANSWER_STAGES = ("route_ms", "lock_ms", "retrieve_ms", "rerank_ms", "first_token_ms", "generate_ms", "end_to_end_ms")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def chroma_server(path: Path) -> Iterator[int]:
    """``chroma run`` (the venv's, the command of docker-compose.yml's chroma service) on a
    free port of 127.0.0.1; yields the port once its heartbeat answers."""
    port = free_port()
    chroma = Path(sys.executable).with_name("chroma")
    log = path.with_suffix(".log")
    with log.open("w") as out:
        server = subprocess.Popen([str(chroma), "run", "--host", "127.0.0.1", "--port", str(port), "--path", str(path)],
                                  stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"chroma run did not come up: {log.read_text()[-2000:]}")
            time.sleep(0.2)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


def percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p95": None}
    return {"p50": round(float(np.percentile(values, 50)), 1), "p95": round(float(np.percentile(values, 95)), 1)}


def plan(n: int) -> list[tuple[str, str]]:
    """(analysis, question) per session: the analyses round-robin, each with its demo questions in turn."""
    analyses = list(dict.fromkeys(q.locked for q in ANSWERABLE))
    per = {a: [q.question for q in ANSWERABLE if q.locked == a] for a in analyses}
    sessions = []
    for i in range(n):
        analysis_id = analyses[i % len(analyses)]
        questions = per[analysis_id]
        sessions.append((analysis_id, questions[(i // len(analyses)) % len(questions)]))
    return sessions


def route_and_lock(session: Session, analysis_id: str, question: str, row: dict) -> list:
    """Route the question, then lock on ``analysis_id`` (the user's pick); the confirm's events."""
    mark = time.perf_counter()
    events = session.submit(question)
    row["route_ms"] = (time.perf_counter() - mark) * 1000
    if not any(isinstance(e, Candidates) for e in events):
        raise RuntimeError("routing proposed no analysis")
    mark = time.perf_counter()
    confirmed = session.confirm(analysis_id)
    row["lock_ms"] = (time.perf_counter() - mark) * 1000
    if session.analysis is None or session.analysis.id != analysis_id:
        raise RuntimeError(f"the session is not locked on {analysis_id}")
    return confirmed


def retrieval_session(pipeline: Pipeline, analysis_id: str, question: str) -> dict:
    row: dict = {"analysis": analysis_id}
    start = time.perf_counter()
    route_and_lock(Session(pipeline, answerer=None), analysis_id, question, row)
    mark = time.perf_counter()
    result = pipeline.retriever.search(analysis_id, question)
    searched_ms = (time.perf_counter() - mark) * 1000
    row["rerank_ms"] = result.timings_ms.get("rerank", 0.0) if result.reranked else None  # None: no reranker ran
    row["retrieve_ms"] = searched_ms - (row["rerank_ms"] or 0.0)
    row["end_to_end_ms"] = (time.perf_counter() - start) * 1000
    row["passages"] = len(result.hits)
    row["bleed"] = sum(h.chunk.analysis_id != analysis_id for h in result.hits)
    return row


def answer_session(pipeline: Pipeline, answerer, analysis_id: str, question: str) -> dict:
    row: dict = {"analysis": analysis_id}
    start = time.perf_counter()
    events = route_and_lock(Session(pipeline, answerer), analysis_id, question, row)
    turn = next(e for e in events if isinstance(e, AnswerTurn))
    tokens = sum(1 for _ in turn.tokens())
    row["end_to_end_ms"] = (time.perf_counter() - start) * 1000
    if turn.answer is None:
        raise RuntimeError(turn.error or "no answer")
    t = turn.answer.timings
    reranked = pipeline.retriever.default_system in ("rerank", "adapted")
    row.update(retrieve_ms=t.retrieve_ms, rerank_ms=t.rerank_ms if reranked else None, generate_ms=t.generate_ms,
               first_token_ms=t.first_token_ms, streamed_pieces=tokens, abstained=turn.answer.abstained,
               withheld=turn.answer.withheld, passages=len(turn.answer.sources),
               bleed=sum(h.chunk.analysis_id != analysis_id for h in turn.answer.sources))
    return row


def run_concurrently(n: int, work: Callable[[str, str], dict]) -> dict:
    """``n`` threads released together by a barrier, each one session of ``plan(n)``."""
    rows: list[dict | None] = [None] * n
    errors: list[str] = []
    barrier = threading.Barrier(n)

    def one(i: int, analysis_id: str, question: str) -> None:
        barrier.wait()
        try:
            rows[i] = work(analysis_id, question)
        except Exception as error:  # counted, not fatal: errors under load are a result
            errors.append(f"{type(error).__name__}: {error}"[:300])

    threads = [threading.Thread(target=one, args=(i, a, q)) for i, (a, q) in enumerate(plan(n))]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall_s = time.perf_counter() - start
    done = [r for r in rows if r is not None]
    return {"sessions": n, "wall_s": round(wall_s, 2), "sessions_per_s": round(len(done) / wall_s, 2),
            "completed": len(done), "errors": len(errors), "error_samples": sorted(set(errors))[:3],
            "passages": sum(r["passages"] for r in done), "bleed": sum(r["bleed"] for r in done), "rows": done}


def summarise(result: dict, stages: tuple[str, ...]) -> dict:
    rows = result.pop("rows")
    result["stages_ms"] = {s.removesuffix("_ms"): percentiles([r[s] for r in rows if r.get(s) is not None])
                           for s in stages}
    if rows and "abstained" in rows[0]:
        result["abstained"] = sum(r["abstained"] for r in rows)
        result["withheld"] = sum(r["withheld"] for r in rows)
    return result


def markdown(report: dict) -> str:
    head = ("| backend | sessions | kind | route p50/p95 | lock p50/p95 | retrieve p50/p95 | rerank p50/p95 "
            "| first token p50/p95 | end to end p50/p95 | errors | bleed |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]

    def cell(stages: dict, name: str) -> str:
        s = stages.get(name)
        return "–" if not s or s["p50"] is None else f"{s['p50']:.0f} / {s['p95']:.0f}"

    for backend, runs in report["backends"].items():
        for kind in ("retrieval", "answer"):
            for n, r in runs.get(kind, {}).items():
                st = r["stages_ms"]
                lines.append(f"| {backend} | {n} | {kind} | {cell(st, 'route')} | {cell(st, 'lock')} | "
                             f"{cell(st, 'retrieve')} | {cell(st, 'rerank')} | {cell(st, 'first_token')} | "
                             f"{cell(st, 'end_to_end')} | {r['errors']} | {r['bleed']} of {r['passages']} |")
    return "\n".join(lines) + "\n\n(ms; bleed: passages from another analysis than the session's lock, of all served)"


def warm(pipeline: Pipeline) -> None:
    """One session per analysis first: the first read of an analysis loads its BM25 index."""
    for analysis_id, question in plan(len({q.locked for q in ANSWERABLE})):
        retrieval_session(pipeline, analysis_id, question)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", default="1,10,50", help="concurrent retrieval sessions, comma-separated")
    parser.add_argument("--answer-sessions", default="1,4", help="concurrent answering sessions ('' for none)")
    parser.add_argument("--backends", default="embedded,server", help="embedded (PersistentClient), server (chroma run)")
    parser.add_argument("--max-tokens", type=int, default=64, help="longest answer")
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--gguf", type=Path, help="a GGUF chat model (default: demo model if assembled, else SmolLM2)")
    parser.add_argument("--work-dir", type=Path, help="where the knowledge bases go (default: a temporary directory)")
    args = parser.parse_args()
    sessions = [int(n) for n in args.sessions.split(",") if n]
    answer_sessions = [int(n) for n in args.answer_sessions.split(",") if n]
    backends = [b for b in args.backends.split(",") if b]
    if unknown := set(backends) - set(BACKENDS):
        parser.error(f"unknown backends {sorted(unknown)}: choose from {', '.join(BACKENDS)}")

    work = args.work_dir or Path(tempfile.mkdtemp(prefix="mitra-concurrency-"))
    work.mkdir(parents=True, exist_ok=True)
    embedder = SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    base = Settings(llm_backend="embedded", llm_max_tokens=args.max_tokens, llm_context_tokens=args.context,
                    llm_temperature=0.0, gguf_path=args.gguf)
    report: dict = {
        "machine": {"cpu_cores": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "gpu": "none used"},
        "corpus": "ORION demo corpus (demo/records.py)", "backends": {},
    }
    answerer = None
    for backend in backends:
        with (chroma_server(work / "chroma-server") if backend == "server" else nullcontext()) as port:
            server = {"chroma_host": "127.0.0.1", "chroma_port": port} if backend == "server" else {}
            settings = base.model_copy(update={"data_dir": work / backend, **server})
            pipeline = build_pipeline(settings, embedder=embedder)
            start = time.perf_counter()
            index_records(pipeline.kb, demo_records())
            report.setdefault("index_s", {})[backend] = round(time.perf_counter() - start, 1)
            report["reranker"] = pipeline.reranker_note
            report["retrieval_system"] = pipeline.retriever.default_system
            print(f"{backend}: indexed; {pipeline.reranker_note}; system {pipeline.retriever.default_system}",
                  file=sys.stderr)
            warm(pipeline)
            runs: dict = {"retrieval": {}, "answer": {}}
            for n in sessions:
                runs["retrieval"][str(n)] = summarise(
                    run_concurrently(n, partial(retrieval_session, pipeline)), RETRIEVAL_STAGES)
                print(f"{backend}: {n} retrieval sessions done", file=sys.stderr)
            if answer_sessions:
                answerer = build_answerer(pipeline) if answerer is None else answerer.for_pipeline(pipeline)
                report.setdefault("model", {**answerer.model_info.model_dump(), "gguf": str(resolve_gguf(settings)),
                                            "max_tokens": args.max_tokens, "context_tokens": args.context})
                if "warmup_s" not in report["model"]:
                    # The model server's one-off costs: the first request, and the first time it
                    # serves k requests at once (tens of seconds here), both paid before measuring.
                    answer_session(pipeline, answerer, *plan(1)[0])
                    warmup = run_concurrently(max(answer_sessions), partial(answer_session, pipeline, answerer))
                    report["model"]["warmup_s"] = warmup["wall_s"]
                for n in answer_sessions:
                    runs["answer"][str(n)] = summarise(
                        run_concurrently(n, partial(answer_session, pipeline, answerer)), ANSWER_STAGES)
                    print(f"{backend}: {n} answering sessions done", file=sys.stderr)
            report["backends"][backend] = runs
    print(json.dumps(report, indent=2))
    print(markdown(report), file=sys.stderr)


if __name__ == "__main__":
    main()
