"""Questions beyond one passage and one analysis, measured as the agentic-RAG papers do
(key-point coverage, abstention per part, synthesis across papers), on the public LHCb
papers (``benchmarks/corpora/beyond_questions.py``) with the embedded model.

Types (``--types``):

* ``single``: each part of every multi-part question asked on its own in a locked session
  (multi-part splitting off): the reference row.
* ``multipart``: each multi-part question whole, in its paper's lock, split into parts
  (``multipart`` on); ``multipart-off``: the same questions answered as one (the baseline).
* ``across``: ``stream_across`` over the routed analyses (routing among the questions'
  papers and every other LHCb abstract).
* ``compare``: ``compare`` on the question's two papers.

Per type: key-point coverage (the share of a part's or an analysis's gold facts the
answer holds, averaged over parts/analyses), cited sentences the support check passes,
abstention on the parts the paper cannot answer (the part answered without a citation,
or the answer saying it is not covered), wrong-analysis citations (a cited passage of an
analysis the question is not about; in compare, of the other analysis), and time to first
token. Across also reports how many of the expected analyses routing chose.

    python benchmarks/answer_beyond.py [--types single,multipart,across,compare,multipart-off]
        [--limit N] [--gguf PATH] [--max-tokens 200] [--work-dir DIR] [--reuse]
        [--distractors N] [--out report.json] [--markdown table.md]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from statistics import mean, median
from typing import Callable, Iterator

from benchmarks.answer_quality import facts_present, locked_turn, support_counts, with_settings, write_report
from benchmarks.corpora import shared_dir
from benchmarks.corpora.beyond_questions import ACROSS, COMPARE, MULTIPART, analysis_id, beyond_set
from benchmarks.retrieval_quality import build
from mitra.answer.across import AcrossAnswer, compare, readable, stream_across
from mitra.answer.answerer import Answer, Answerer, build_answerer
from mitra.answer.multipart import build_parts_prompt, clause_split
from mitra.answer.prompts import build_answer_prompt
from mitra.chat.session import SwitchOffer
from mitra.core.errors import MitraError
from mitra.core.settings import Settings
from mitra.evaluation.metrics import bootstrap_interval
from mitra.models.llm import demo_gguf_path
from mitra.retrieval.pipeline import Pipeline

# multipart-off is not run right after multipart: an unsplit question would send the same
# prompt twice in a row, and llama.cpp's prompt cache would answer the second in ~0.1 s.
TYPES = ("single", "multipart", "across", "compare", "multipart-off")
# How an answer says the documents do not hold something (the abstention texts and the model's own words).
NOT_COVERED = re.compile(r"\b(?:do(?:es)? not (?:cover|say|mention|state|contain|provide|give|report|specify|include)"
                         r"|(?:not|never) (?:covered|mentioned|stated|given|provided|reported|specified)"
                         r"|no information|cannot answer|unable to answer)\b", re.I)


def unit(text: str, facts: tuple[str, ...], abstained: bool | None = None) -> dict:
    """One part or analysis of a question: its facts found in ``text``, or, for a part the
    paper cannot answer (no facts), whether the answer abstained on it."""
    if facts:
        return {"facts": facts_present(text, list(facts))}
    return {"facts": None, "abstained": bool(NOT_COVERED.search(text)) if abstained is None else abstained}


def wrong_citations(answer: Answer | AcrossAnswer, allowed: set[str]) -> int:
    """Citations of a passage from an analysis the answer may not draw on (``allowed``), or,
    in a sentence naming analyses, from one it does not name: the claim is pinned on the wrong
    analysis."""
    sources = answer.sources
    wrong = {n for n, hit in answer.cited_sources if hit.chunk.analysis_id not in allowed}
    for sentence in answer.support:
        named = {a for a in allowed if a in sentence.text}
        wrong |= {n for n in sentence.cited if named and sources[n - 1].chunk.analysis_id not in named}
    return len(wrong)


def graded(answer: Answer | AcrossAnswer, allowed: set[str]) -> dict:
    """What every type records of one generated (or abstained) answer."""
    return {"text": answer.draft or answer.text, "abstained": answer.abstained, "withheld": answer.withheld,
            **support_counts(answer.support), "wrong_analysis_citations": wrong_citations(answer, allowed),
            "first_token_ms": [answer.timings.first_token_ms] if answer.timings.first_token_ms else []}


def locked(pipeline: Pipeline, answerer: Answerer, arxiv_id: str, question: str) -> Answer | dict:
    """The question in the paper's lock: the answer, or a row saying why there is none."""
    turn = locked_turn(pipeline, answerer, analysis_id(arxiv_id), question)
    if isinstance(turn, SwitchOffer):
        return {"outcome": "switch", "offered": turn.suggested.analysis.id}
    return turn.answer if turn.answer is not None else {"outcome": "error", "error": turn.error}


def run_single(pipeline: Pipeline, answerer: Answerer, limit: int | None) -> Iterator[dict]:
    for q in MULTIPART[:limit]:
        for part in q.parts:
            answer = locked(pipeline, answerer, q.arxiv_id, part.question)
            row = {"question": part.question, "analyses": [q.arxiv_id]}
            if isinstance(answer, dict):
                yield {**row, **answer, "units": []}
                continue
            text = answer.draft or answer.text
            yield {**row, **graded(answer, {analysis_id(q.arxiv_id)}),
                   "units": [unit(text, part.facts, answer.abstained or None)]}


def run_multipart(pipeline: Pipeline, answerer: Answerer, limit: int | None) -> Iterator[dict]:
    """Whole questions; a part the model's split lines up with (same count) is judged
    abstained by its own ``answered``, else by the answer's words."""
    for q in MULTIPART[:limit]:
        answer = locked(pipeline, answerer, q.arxiv_id, q.question)
        row = {"question": q.question, "analyses": [q.arxiv_id]}
        if isinstance(answer, dict):
            yield {**row, **answer, "units": []}
            continue
        split = getattr(answer, "parts", [])
        aligned = len(split) == len(q.parts)
        text = answer.draft or answer.text
        yield {**row, **graded(answer, {analysis_id(q.arxiv_id)}), "split_into": len(split),
               "split_parts": [p.question for p in split],
               "units": [unit(text, part.facts, (not split[i].answered) if aligned else None)
                         for i, part in enumerate(q.parts)]}


def run_across(pipeline: Pipeline, answerer: Answerer, limit: int | None) -> Iterator[dict]:
    for q in ACROSS[:limit]:
        row: dict = {"question": q.question, "analyses": q.arxiv_ids}
        try:
            *_, answer = stream_across(pipeline, answerer, q.question)
        except MitraError as error:
            yield {**row, "outcome": "error", "error": str(error), "units": []}
            continue
        expected = {analysis_id(a) for a in q.arxiv_ids}
        chosen = [p.analysis_id for p in answer.parts]
        lines = {p.analysis_id: p for p in answer.parts}
        # Each analysis's key points are looked for in its own line: a fact credited to another
        # analysis's line is not coverage of this one.
        credit_errors = sum(1 for p in answer.parts for n in p.cited
                            if answer.sources[n - 1].chunk.analysis_id != p.analysis_id)
        holding = [a for a in expected if a in lines and not lines[a].skipped]
        yield {**row, **graded(answer, set(chosen)), "chosen": chosen, "expected_chosen": len(expected & set(chosen)),
               "expected_named_and_cited": len([a for a in holding if lines[a].cited]),
               "credit_errors": credit_errors, "missing": answer.missing,
               "first_line_s": min((p.seconds for p in answer.parts if not p.skipped), default=None),
               "whole_s": round(answer.timings.total_ms / 1000, 2),
               "units": [unit(lines[analysis_id(a)].line if analysis_id(a) in lines else "", facts)
                         for a, facts in q.facts.items()]}


def run_compare(pipeline: Pipeline, answerer: Answerer, limit: int | None) -> Iterator[dict]:
    """Each answer is graded on its own analysis's facts; a citation of the other is wrong."""
    for q in COMPARE[:limit]:
        row: dict = {"question": q.question, "analyses": q.arxiv_ids}
        try:
            answers = compare(pipeline, answerer, readable(pipeline, [analysis_id(a) for a in q.arxiv_ids]),
                              q.question).answers
        except MitraError as error:
            yield {**row, "outcome": "error", "error": str(error), "units": []}
            continue
        each = [graded(a, {a.analysis_id}) for a in answers]
        yield {**row, "answers": each, "units": [unit(g["text"], facts) for g, facts in zip(each, q.facts.values())],
               **{key: sum(g[key] for g in each) for key in ("cited_sentences", "supported_sentences",
                                                             "wrong_analysis_citations")},
               "first_token_ms": [t for g in each for t in g["first_token_ms"]]}


def context_recall(pipeline: Pipeline) -> dict:
    """Model-free: the share of the answerable parts' gold facts in the passages the model
    would read, for each part asked alone, the whole question retrieved once, and the whole
    question split into parts (the gold parts, as a perfect split gives; and cut at its
    clauses, the fallback), each part retrieved on its own."""
    kb, settings = pipeline.kb, pipeline.settings

    def hits(analysis, question):
        return pipeline.retriever.search(analysis.id, question).hits

    def read(prompt) -> str:
        return " ".join(p.text for p in prompt.passages)

    found: dict[str, list[float]] = {"alone": [], "whole": [], "split (gold parts)": [], "split (clauses)": []}
    for q in MULTIPART:
        analysis = kb.get_analysis(analysis_id(q.arxiv_id))
        whole = read(build_answer_prompt(analysis, q.question, hits(analysis, q.question), [], settings))
        splits = {}
        for name, parts in (("split (gold parts)", [p.question for p in q.parts]),
                            ("split (clauses)", clause_split(q.question))):
            prompt, _ = build_parts_prompt(analysis, [(n, part, hits(analysis, part))
                                                      for n, part in enumerate(parts, start=1)], [], settings)
            splits[name] = read(prompt)
        for part in (p for p in q.parts if p.answerable):
            alone = read(build_answer_prompt(analysis, part.question, hits(analysis, part.question), [], settings))
            for name, text in (("alone", alone), ("whole", whole), *splits.items()):
                found[name].append(facts_present(text, list(part.facts)))
    return {name: round(mean(values), 3) for name, values in found.items()} | {"parts": len(found["alone"])}


def summary(rows: list[dict]) -> dict:
    units = [u for r in rows for u in r["units"]]
    covered = [u["facts"] for u in units if u["facts"] is not None]
    unanswerable = [u["abstained"] for u in units if u["facts"] is None]
    cited = sum(r.get("cited_sentences", 0) for r in rows)
    first = [t for r in rows for t in r.get("first_token_ms", [])]
    out = {
        "questions": len(rows),
        "key_point_coverage": round(mean(covered), 3) if covered else None,
        "parts_or_analyses": len(covered),
        "supported_citations": round(sum(r.get("supported_sentences", 0) for r in rows) / cited, 3) if cited else None,
        "cited_sentences": cited,
        "abstention_unanswerable": round(mean(unanswerable), 3) if unanswerable else None,
        "unanswerable_parts": len(unanswerable),
        "wrong_analysis_citations": sum(r.get("wrong_analysis_citations", 0) for r in rows),
        "abstained_or_withheld": sum(bool(r.get("abstained") or r.get("withheld")) for r in rows),
        "not_answered": sum(r.get("outcome") in ("switch", "error") for r in rows),
        "first_token_ms_mean": round(mean(first)) if first else None,
        "first_token_ms_p50": round(median(first)) if first else None,
    }
    if any("expected_chosen" in r for r in rows):
        expected = sum(len(r["analyses"]) for r in rows)
        out["expected_analyses_chosen"] = round(sum(r["expected_chosen"] for r in rows) / expected, 3)
        named = [float(r.get("expected_named_and_cited", 0)) / len(r["analyses"]) for r in rows if r["analyses"]]
        low, high = bootstrap_interval(named) if named else (0.0, 0.0)
        out["expected_analyses_named_and_cited"] = {"share": round(sum(r.get("expected_named_and_cited", 0)
                                                                       for r in rows) / expected, 3),
                                                    "interval": [round(low, 3), round(high, 3)]}
        out["credit_errors"] = sum(r.get("credit_errors", 0) for r in rows)
        first_lines = [r["first_line_s"] for r in rows if r.get("first_line_s") is not None]
        out["first_line_s_p50"] = round(median(first_lines), 1) if first_lines else None
        out["whole_s_p50"] = round(median(r["whole_s"] for r in rows if "whole_s" in r), 1) if rows else None
    return out


def markdown(report: dict) -> str:
    def cell(value, fmt: str = "{:.0%}") -> str:
        return "–" if value is None else fmt.format(value)

    lines = ["| type | questions | key-point coverage | supported citations | abstention on unanswerable parts "
             "| wrong-analysis citations | first token mean / p50 |", "|---|---|---|---|---|---|---|"]
    for name, run in report["types"].items():
        s = run["summary"]
        first = f"{cell(s['first_token_ms_mean'], '{:,}')} / {cell(s['first_token_ms_p50'], '{:,}')} ms"
        lines.append(f"| {name} | {s['questions']} | {cell(s['key_point_coverage'])} of {s['parts_or_analyses']} "
                     f"| {cell(s['supported_citations'])} of {s['cited_sentences']} "
                     f"| {cell(s['abstention_unanswerable'])} of {s['unanswerable_parts']} "
                     f"| {s['wrong_analysis_citations']} | {first} |")
    if context := report.get("context"):
        lines += ["", f"Gold facts in the passages the model reads ({context['parts']} answerable parts, no model): "
                  + "; ".join(f"{name} {share:.0%}" for name, share in context.items() if name != "parts")]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--types", default=",".join(TYPES))
    parser.add_argument("--limit", type=int, help="the first N questions of each type (a smoke run)")
    parser.add_argument("--gguf", type=Path, help="the answering model (default: the demo model)")
    parser.add_argument("--max-tokens", type=int, default=200, help="longest answer (as the demo quality runs)")
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/mitra-answer-beyond"))
    parser.add_argument("--reuse", action="store_true", help="keep the knowledge base already built there")
    parser.add_argument("--distractors", type=int, help="other LHCb abstracts to route among (default: all)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    types = args.types.split(",")
    if unknown := set(types) - set(TYPES):
        sys.exit(f"unknown types {sorted(unknown)}: choose from {', '.join(TYPES)}")
    root = shared_dir()
    if root is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR)")
    gguf = args.gguf or demo_gguf_path(Settings(_env_file=None))
    if not gguf.is_file():
        sys.exit(f"no model at {gguf}: pass --gguf")
    overrides = {"reranker": "none", "llm_backend": "embedded", "final_k": 5, "gguf_path": str(gguf.resolve()),
                 "llm_max_tokens": args.max_tokens,
                 # greedy decoding: at the default 0.1 two runs of the same code differed by 9 points of coverage
                 "llm_temperature": 0.0}

    bench = beyond_set(root, args.distractors)
    pipeline, seconds, _ = build(bench, args.work_dir, args.reuse, overrides)
    print(f"knowledge base: {len(bench.records)} analyses, built in {seconds} s", file=sys.stderr)
    report_context = context_recall(pipeline)
    print(f"context: {report_context}", file=sys.stderr)
    base = build_answerer(pipeline)
    # Across answers each analysis in its lock as members get it, multi-part split on (the default).
    runs: dict[str, tuple[Callable, bool]] = {"single": (run_single, False), "multipart": (run_multipart, True),
                                              "multipart-off": (run_multipart, False),
                                              "across": (run_across, True), "compare": (run_compare, False)}
    report: dict = {"benchmark": "answer_beyond", "model": gguf.name, "max_tokens": args.max_tokens,
                    "analyses": len(bench.records), "build_s": seconds, "context": report_context, "types": {}}
    for name in types:
        run, split = runs[name]
        variant = with_settings(pipeline, {"multipart": split})
        answerer = Answerer(variant.retriever, base.chat_model, base.model_info, variant.settings)
        start = time.perf_counter()
        rows = []
        for row in run(variant, answerer, args.limit):
            rows.append(row)
            print(f"  {name}: {row['question'][:70]} -> {[u.get('facts', u.get('abstained')) for u in row['units']]}",
                  file=sys.stderr)
        report["types"][name] = {"summary": summary(rows), "seconds": round(time.perf_counter() - start),
                                 "per_question": rows}
    write_report(report, markdown(report), args.out, args.markdown)


if __name__ == "__main__":
    main()
