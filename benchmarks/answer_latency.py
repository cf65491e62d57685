"""End-to-end answer latency on the embedded llama.cpp model, split by stage (ms):
route, retrieve, rerank, prompt, time to first token, generate, total; plus decode
speed (tokens/s after the first token) and prompt size. JSON on stdout.

The knowledge base is the ORION demo corpus (demo/corpus/*.yaml, the latest version of
every document, as Markdown text), indexed with the packaged MiniLM into a temporary
directory. The reranker is the configured one when its weights are here, else a randomly
initialised cross-encoder of the same architecture (benchmarks/retrieval_latency.py):
same runtime, meaningless scores, so no relevance floor is applied.

The model reads the sentences of each passage that bear on the question under
``context_tokens`` (``--context-tokens``), or whole passages (``--whole-passages``, as
before), so the two can be timed back to back. A question the answerer abstains on
(off-topic: the model is not called) is listed, not timed.

Questions asking for a value (``VALUES``) report when the passage sentence stating it was
on screen (``quote_ms``) beside the first token: the first useful thing is the earlier.
``--busy N`` keeps N other processes spinning on the cores while the questions are timed
(a second job on the machine).

Questions the answerer splits into parts (``multipart``: the split is one more model call
before retrieval) are summarised apart from single ones, so the two waits can be compared.

    python benchmarks/answer_latency.py [--gguf PATH | --demo-model] [--max-tokens 128]
                                        [--context 4096] [--threads N] [--repeat 1]
                                        [--whole-passages | --context-tokens N] [--busy N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import mean, median

from benchmarks.retrieval_latency import minilm_cross_encoder
from demo.records import demo_records
from mitra.answer.answerer import Answer, Answerer
from ingest.sources.jsonl import index_records
from mitra.models.llm import demo_gguf_path, load_chat_model, resolve_gguf
from mitra.retrieval.pipeline import build_pipeline
from mitra.core.settings import Settings, get_settings

# (analysis, question): generic questions whose answer differs per analysis, and one off-topic.
QUESTIONS = [
    ("EXO-24-003", "What is the dominant background and how is it estimated?"),
    ("EXO-24-003", "Which mediator masses are excluded?"),
    ("HIG-24-001", "What is the largest systematic uncertainty?"),
    ("SMP-24-002", "What integrated luminosity is used?"),
    ("BPH-24-005", "How is the signal yield extracted?"),
    ("EXO-24-003", "How many Higgs bosons were discovered in this search?"),
]
# Questions asking for a value: the passage sentence stating it is shown before the model's prose.
VALUES = [
    ("EXO-24-003", "Up to what mass is the vector mediator excluded in the dark matter search with an energetic jet?"),
    ("HIG-24-001", "How many signal events does the VBF category expect with the first 2024 data?"),
    ("SMP-24-002", "How large is the muon momentum scale uncertainty on the W boson mass?"),
]
# Several questions in one: the answerer splits them.
MULTIPART = [
    ("EXO-24-003", "Which mediator masses are excluded, and what is the largest systematic uncertainty?"),
    ("HIG-24-001", "What integrated luminosity is used, and how is the signal yield extracted?"),
    ("SMP-24-002", "What is the dominant background, how is it estimated, and how large is its uncertainty?"),
]


def summary(values: list[float]) -> dict[str, float]:
    return {"mean": round(mean(values), 1), "p50": round(median(values), 1), "max": round(max(values), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gguf", type=Path, help="a GGUF chat model (default: demo model if assembled, else SmolLM2)")
    parser.add_argument("--demo-model", action="store_true", help="the assembled Qwen2.5-Coder-1.5B demo model")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--threads", type=int)
    parser.add_argument("--repeat", type=int, default=1, help="times each question is asked")
    parser.add_argument("--busy", type=int, default=0, help="other processes spinning while the questions are timed")
    context = parser.add_mutually_exclusive_group()
    context.add_argument("--whole-passages", action="store_true", help="the model reads whole passages")
    context.add_argument("--context-tokens", type=int, help="budget of the passages' sentences (default: the setting)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="mitra-answer-latency-"))
    settings = Settings(
        data_dir=work / "kb", llm_backend="embedded", llm_max_tokens=args.max_tokens, llm_context_tokens=args.context,
        llm_threads=args.threads, llm_temperature=0.0, gguf_path=args.gguf, context_sentences=not args.whole_passages,
        **({"context_tokens": args.context_tokens} if args.context_tokens else {}),
    )
    if args.demo_model:
        settings = settings.model_copy(update={"gguf_path": demo_gguf_path(get_settings())})
    pipeline = build_pipeline(settings)
    reranker = pipeline.reranker_note
    if pipeline.retriever.reranker is None:
        pipeline.retriever.reranker = minilm_cross_encoder(work / "cross-encoder")
        reranker = "random-weights cross-encoder with the architecture of ms-marco-MiniLM-L-6-v2"
    index_records(pipeline.kb, demo_records())

    start = time.perf_counter()
    chat_model, info = load_chat_model(settings)
    startup_ms = (time.perf_counter() - start) * 1000
    answerer = Answerer(pipeline.retriever, chat_model, info, settings)
    answerer.answer(pipeline.kb.get_analysis(QUESTIONS[0][0]), "Which data are used?")  # pays one-off costs

    rows, abstained = [], []
    spinning = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    for analysis_id, question in (QUESTIONS + VALUES + MULTIPART) * args.repeat:
        mark = time.perf_counter()
        pipeline.router.route(question)
        route_ms = (time.perf_counter() - mark) * 1000
        answer: Answer = answerer.answer(pipeline.kb.get_analysis(analysis_id), question)
        if answer.abstained:
            abstained.append({"analysis_id": analysis_id, "question": question, "reason": answer.abstain_reason})
            continue
        t = answer.timings
        decode_s = (t.total_ms - t.first_token_ms) / 1000
        rows.append({
            "analysis_id": analysis_id, "question": question, "route_ms": round(route_ms, 1),
            **{k: round(v, 1) if v is not None else None for k, v in t.model_dump().items()},
            "prompt_tokens": answer.prompt_tokens, "completion_tokens": answer.completion_tokens,
            "decode_tokens_per_s": round((answer.completion_tokens - 1) / decode_s, 2) if decode_s > 0 else None,
            "passages": len(answer.sources), "parts": len(answer.parts), "answer": answer.text,
            "value": (analysis_id, question) in VALUES, "quote": answer.quote.sentence if answer.quote else None,
        })
    for process in spinning:
        process.kill()

    stages = ("route_ms", "retrieve_ms", "rerank_ms", "prompt_ms", "first_token_ms", "generate_ms", "total_ms")
    print(json.dumps({
        "model": info.model_dump(),
        "gguf": str(resolve_gguf(settings)),
        "threads": settings.llm_threads or "all cores",
        "context_tokens": settings.llm_context_tokens,
        "max_tokens": settings.llm_max_tokens,
        "passages_read": f"sentences under {settings.context_tokens} tokens" if settings.context_sentences else "whole",
        "server_startup_ms": round(startup_ms, 1),
        "reranker": reranker,
        "questions": len(rows),
        "stages_ms": {s: summary([r[s] for r in rows]) for s in stages},
        "prompt_tokens": summary([r["prompt_tokens"] for r in rows]),
        **{kind: {"questions": len(mine), "first_token_ms": summary([r["first_token_ms"] for r in mine]),
                  "split_ms": summary([r["split_ms"] for r in mine]),
                  "prompt_tokens": summary([r["prompt_tokens"] for r in mine])}
           for kind, mine in (("single", [r for r in rows if not r["parts"]]), ("multipart", [r for r in rows if r["parts"]]))
           if mine},
        "value_questions": {
            "quote_ms": summary([r["quote_ms"] for r in rows if r["value"] and r["quote_ms"] is not None] or [0]),
            "first_token_ms": summary([r["first_token_ms"] for r in rows if r["value"]]),
            "first_useful_ms": summary([min(r["quote_ms"] or r["first_token_ms"], r["first_token_ms"])
                                        for r in rows if r["value"]]),
            "quoted": sum(r["quote"] is not None for r in rows if r["value"]),
        },
        "busy_processes": args.busy,
        "decode_tokens_per_s": summary([r["decode_tokens_per_s"] for r in rows if r["decode_tokens_per_s"]]),
        "per_question": rows,
        "abstained": abstained,
    }, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
