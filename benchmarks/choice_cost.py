"""Where a value choice's time goes (issue 46): reading its prompt, or writing its reply.

On the frozen value questions of the 16 ATLAS/CMS PDFs (every ``--every``-th), with the
embedded model: how fast the model reads a prompt (plain text of three lengths, one token
out), a choice as the answer path makes it (each question's prompt read for the first
time; the system message comes from llama.cpp's prompt cache from the second on), and,
with that prompt already cached, the reply alone: constrained by the JSON schema with
log-probabilities, by the schema alone, and 12 tokens of free text.

    python benchmarks/choice_cost.py [--models smollm2,qwen] [--every 7] [--work-dir DIR] [--out report.json]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from statistics import median

from langchain_core.messages import HumanMessage

from benchmarks.answer_quality import write_report
from benchmarks.answer_values import analysis_id, bench_of
from benchmarks.corpora import shared_dir
from benchmarks.corpora.value_questions import load_value_questions
from benchmarks.retrieval_quality import build
from mitra.answer.asked import Asked
from mitra.answer.candidates import candidates
from mitra.answer.choose import choice_messages, choice_schema, choose, written
from mitra.core.settings import Settings
from mitra.models.llm import demo_gguf_path, load_chat_model

_WORDS = "signal mass GeV observed limit the of expected background channel".split()


def _timed(call) -> tuple[float, object]:
    start = time.perf_counter()
    out = call()
    return time.perf_counter() - start, out


def reading(model) -> list[dict]:
    """Plain text of three lengths, one token out: the model's reading speed."""
    draw = random.Random(46)
    rows = []
    for words in (100, 400, 800):
        text = " ".join(draw.choice(_WORDS) for _ in range(words))
        seconds, reply = _timed(lambda: model.bind(max_tokens=1).invoke([HumanMessage(text)]))
        tokens = (reply.usage_metadata or {}).get("input_tokens")
        rows.append({"tokens": tokens, "seconds": round(seconds, 2),
                     "tokens_per_second": round(tokens / seconds) if tokens else None})
    return rows


def choices(model, work: list) -> dict:
    """Each choice as the answer path makes it, then its reply alone with the prompt cached."""
    first, constrained, schema_only, free, tokens = [], [], [], [], []
    for asked, ranked in work:
        values = [written(c) for c in ranked]
        messages = choice_messages(asked, ranked)
        seconds, made = _timed(lambda: choose(model, asked, ranked))
        first.append(seconds)
        tokens.append(made.usage.get("input_tokens") or 0)
        schema = choice_schema(values)
        constrained.append(_timed(lambda: model.bind(response_format=schema, logprobs=True,
                                                     top_logprobs=10).invoke(messages))[0])
        schema_only.append(_timed(lambda: model.bind(response_format=schema).invoke(messages))[0])
        free.append(_timed(lambda: model.bind(max_tokens=12).invoke(messages))[0])
    return {"n": len(work), "prompt_tokens_p50": median(tokens), "choice_p50_s": round(median(first), 2),
            "cached_prompt": {"schema_and_logprobs_p50_s": round(median(constrained), 2),
                              "schema_p50_s": round(median(schema_only), 2),
                              "free_12_tokens_p50_s": round(median(free), 2)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="smollm2")
    parser.add_argument("--every", type=int, default=7, help="every N-th PDF value question")
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/mitra-answer-values"))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    root = shared_dir()
    if root is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR)")
    every = [q for q in load_value_questions() if q.set == "pdfs"]
    questions = every[::args.every]
    bench = bench_of("pdfs", root, every)  # all 16 papers: the knowledge base answer_values.py builds
    pipeline, _, _ = build(bench, args.work_dir / f"pdfs-{len(bench.records)}", True, {"reranker": "none"})
    work = []
    for q in questions:
        analysis = pipeline.kb.get_analysis(analysis_id(q))
        asked = Asked.read(q.question, analysis.title)
        hits = pipeline.retriever.search(analysis.id, q.question, k=pipeline.settings.value_passages).hits
        ranked = candidates(asked, hits)[:pipeline.settings.value_candidates]
        if ranked:
            work.append((asked, ranked))
    report: dict = {"benchmark": "choice_cost", "questions": len(work), "models": {}}
    for name in args.models.split(","):
        gguf = demo_gguf_path(Settings(_env_file=None)).resolve() if name == "qwen" else None
        model, _ = load_chat_model(pipeline.settings.model_copy(update={"llm_backend": "embedded",
                                                                         "gguf_path": gguf}))
        model.bind(max_tokens=1).invoke(choice_messages(*work[0]))  # the system message into the cache
        report["models"][name] = {"reading": reading(model), "choice": choices(model, work[1:])}
    write_report(report, "", args.out, None)


if __name__ == "__main__":
    main()
