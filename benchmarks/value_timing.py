"""When the asked value is on screen (issue 46): a first value question, a follow-up that
stands alone, and one that points back, idle and with a second job on the cores.

Each pair runs in a session locked on a demo analysis (the demo knowledge base, `final_k`
5): the first question, then a stand-alone follow-up (retrieved as asked, no rewrite), then
one that points back ("And in the VBF category?"), which the model rewrites with the
conversation before retrieval (or, where it only swaps a qualifier, code does). Per turn:
when the value is on screen (the value box shown before any model, else the answer that
states or leads with it: ``timings.quote_ms`` or ``total_ms``, plus the rewrite before it),
the whole answer, and whether the question was rewritten. ``--load busy`` runs the same
with a second process spinning one core (a test run, an indexing job). Run each load in its
own process: llama.cpp's prompt cache would answer a repeated question from memory.

    python benchmarks/value_timing.py [--models smollm2,qwen] [--load idle|busy] [--work-dir DIR] [--reuse]
        [--out report.json]
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path
from statistics import median

from benchmarks.answer_quality import with_settings, write_report
from benchmarks.answer_values import bench_of
from benchmarks.corpora import shared_dir
from benchmarks.retrieval_quality import build
from mitra.chat.session import AnswerTurn, Session, load_answerer
from mitra.core.settings import Settings
from mitra.models.llm import demo_gguf_path

# (analysis, first question, stand-alone follow-up, follow-up that points back)
TURNS = [
    ("HIG-24-001", "What integrated luminosity does the search use?",
     "How many signal events does the VBF category expect with the first 2024 data?",
     "And how many in the ggF category?"),
    ("EXO-24-003", "What pTmiss threshold does the signal region require?",
     "Up to what mass is the vector mediator excluded?",
     "And the axial-vector one?"),
    ("SMP-24-002", "How many events does the selected sample contain?",
     "What does the global electroweak fit predict for the W boson mass?",
     "How precise is it?"),
    ("BPH-24-005", "What transverse momentum must the triggered muons have?",
     "What does the standard model predict for the Bs to mumu branching fraction?",
     "And for the B0?"),
]
KINDS = ("first", "follow-up, stand-alone", "follow-up, points back")


def _spin(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def turn(session: Session, question: str) -> dict:
    start = time.perf_counter()
    events = session.submit(question)
    answer_turn = next((e for e in events if isinstance(e, AnswerTurn)), None)
    if answer_turn is None:
        return {"question": question, "error": "switch offered"}
    "".join(answer_turn.tokens())
    answer = answer_turn.answer
    wall = (time.perf_counter() - start) * 1000
    if answer is None:
        return {"question": question, "error": answer_turn.error}
    t = answer.timings
    before = max(0.0, wall - t.total_ms)  # the rewrite (and the session's own steps) before the answer starts
    on_screen = before + (t.quote_ms if t.quote_ms is not None else t.total_ms)
    return {"question": question, "asked": answer.question, "rewritten": answer.question != question,
            "value_on_screen_ms": round(on_screen), "answer_ms": round(t.total_ms), "wall_ms": round(wall),
            "before_answer_ms": round(before),
            "value": answer.value.number if answer.value else None, "text": answer.text[:160]}


def run(pipeline, answerer) -> list[dict]:
    rows = []
    for analysis, *questions in TURNS:
        session = Session(pipeline, answerer)
        session.lock(analysis)
        for kind, question in zip(KINDS, questions):
            rows.append({"analysis": analysis, "kind": kind, **turn(session, question)})
            print(f"  {analysis} {kind}: {rows[-1].get('value_on_screen_ms')} ms", file=sys.stderr)
    return rows


def summary(rows: list[dict]) -> dict:
    out = {}
    for kind in KINDS:
        done = [r for r in rows if r["kind"] == kind and "error" not in r]
        out[kind] = {"n": len(done),
                     "value_on_screen_p50_ms": round(median(r["value_on_screen_ms"] for r in done)) if done else None,
                     "answer_p50_ms": round(median(r["answer_ms"] for r in done)) if done else None,
                     "wall_p50_ms": round(median(r["wall_ms"] for r in done)) if done else None,
                     "rewritten": sum(r["rewritten"] for r in done)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="smollm2,qwen")
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/mitra-answer-values"))
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--load", choices=("idle", "busy"), default="idle")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    root = shared_dir()
    if root is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR)")
    bench = bench_of("demo", root, [])
    pipeline, _, _ = build(bench, args.work_dir / f"demo-{len(bench.records)}", args.reuse, {"reranker": "none"})
    report: dict = {"benchmark": "value_timing", "cores": multiprocessing.cpu_count(), "models": {}}
    for model in args.models.split(","):
        update = {"switch_margin": None, "llm_backend": "embedded", "final_k": 5,
                  "gguf_path": demo_gguf_path(Settings(_env_file=None)).resolve() if model == "qwen" else None}
        answerer = load_answerer(with_settings(pipeline, update))
        stop = multiprocessing.Event()
        spinner = multiprocessing.Process(target=_spin, args=(stop,)) if args.load == "busy" else None
        if spinner is not None:
            spinner.start()
        try:
            rows = run(with_settings(pipeline, update), answerer)
        finally:
            if spinner is not None:
                stop.set()
                spinner.join()
        report["models"][f"{model}, {args.load}"] = {"summary": summary(rows), "turns": rows}
    write_report(report, "", args.out, None)


if __name__ == "__main__":
    main()
