"""The load generator of benchmarks/concurrency.py: which question session i asks, one
retrieval or answering session timed stage by stage, and N sessions run at once in threads."""

from __future__ import annotations

import sys
import threading
import time
from typing import Callable

from benchmarks.corpora.demo_questions import ANSWERABLE
from mitra.chat.session import AnswerTurn, Candidates, Session
from mitra.retrieval.pipeline import Pipeline

SessionWork = Callable[[int, str, str], dict]  # (member thread, analysis, question) -> the session's row


def pick(i: int) -> tuple[str, str]:
    """Session i's (analysis, question): the analyses round-robin, each with its demo questions in turn."""
    analyses = list(dict.fromkeys(q.locked for q in ANSWERABLE))
    analysis_id = analyses[i % len(analyses)]
    questions = [q.question for q in ANSWERABLE if q.locked == analysis_id]
    return analysis_id, questions[(i // len(analyses)) % len(questions)]


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


def answer_session(session: Session, analysis_id: str, question: str) -> dict:
    """One question answered in a fresh ``session``: its stages, and ``save_ms``, what the
    turn's end costs (its conversation turn and audit row, where the session keeps them)."""
    row: dict = {"analysis": analysis_id}
    start = time.perf_counter()
    events = route_and_lock(session, analysis_id, question, row)
    turn = next(e for e in events if isinstance(e, AnswerTurn))
    mark = time.perf_counter()
    tokens = sum(1 for _ in turn.tokens())
    turn_ms = (time.perf_counter() - mark) * 1000
    row["end_to_end_ms"] = (time.perf_counter() - start) * 1000
    if turn.answer is None:
        raise RuntimeError(turn.error or "no answer")
    if session.conversations is not None and session.conversation_id is None:
        raise RuntimeError("the turn was not saved")
    t = turn.answer.timings
    reranked = session.pipeline.retriever.default_system in ("rerank", "adapted")
    row.update(retrieve_ms=t.retrieve_ms, rerank_ms=t.rerank_ms if reranked else None, generate_ms=t.generate_ms,
               first_token_ms=t.first_token_ms, save_ms=turn_ms - t.total_ms, streamed_pieces=tokens,
               abstained=turn.answer.abstained, withheld=turn.answer.withheld, passages=len(turn.answer.sources),
               bleed=sum(h.chunk.analysis_id != analysis_id for h in turn.answer.sources))
    return row


def run_concurrently(n: int, work: SessionWork, seconds: float | None = None, first: int = 0,
                     step: int = 1) -> dict:
    """``n`` threads released together by a barrier. Each runs one session, or with
    ``seconds`` session after session until that long has passed; the k-th session started
    overall asks ``pick(first + step * k)``, so processes given other ``first`` share the plan."""
    rows: list[dict] = []
    errors: list[str] = []
    barrier = threading.Barrier(n)
    counter = iter(range(sys.maxsize))  # next() is atomic under the GIL
    started_at, start = time.time(), time.perf_counter()
    deadline = time.monotonic() + (seconds or 0)

    def member(t: int) -> None:
        barrier.wait()
        while True:
            try:
                rows.append(work(t, *pick(first + step * next(counter))))
            except Exception as error:  # counted, not fatal: errors under load are a result
                errors.append(f"{type(error).__name__}: {error}"[:300])
            if seconds is None or time.monotonic() >= deadline:
                return

    threads = [threading.Thread(target=member, args=(t,)) for t in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall_s = time.perf_counter() - start
    return {"sessions": n, "wall_s": round(wall_s, 2), "sessions_per_s": round(len(rows) / wall_s, 2),
            "completed": len(rows), "errors": len(errors), "error_samples": sorted(set(errors))[:3],
            "passages": sum(r["passages"] for r in rows), "bleed": sum(r["bleed"] for r in rows),
            "window": [started_at, started_at + wall_s], "rows": rows}


def warm(work: SessionWork) -> None:
    """One session per analysis first: the first read of an analysis loads its BM25 index."""
    for i in range(len({q.locked for q in ANSWERABLE})):
        work(0, *pick(i))
