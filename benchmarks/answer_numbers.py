"""Numbers you can trust: a question asks for one of two values a passage states side by
side (observed / expected, statistical / systematic, one data set / another); the other is
the trap (``benchmarks/corpora/sibling_numbers.py`` finds them mechanically in the public
papers' passages).

Part 1, the claim check alone (no model): for every question, template claims against the
passage that states both values (cited as [1], the only passage shown), the question as
context: the true claim (must be kept), the sibling value swapped in, the other qualifier
swapped in, and the sibling value with the qualifier left to the question (each must be
flagged). Reported: flagged share per kind, true claims kept, with 95 % bootstrap intervals.

Part 2, the models: each question asked in a session locked on its paper (switch offers
off: this measures numbers, not routing), per model (``--models smollm2,qwen``):

* right / wrong / both / none: whether what the model wrote states the asked value, the
  trap, both or neither;
* **wrong shown as supported**: a sentence the model wrote that states the trap and not the
  asked value, which the check passed and the member sees as the model wrote it (the goal: 0);
* shown right / shown wrong: what the member sees after the checks (a quoted passage
  sentence counts as right when its marked number is the asked value);
* quote first: the passage sentence shown before the model's prose for a value question,
  its marked number right / wrong / none, and when it was on screen against the first token.

    python benchmarks/answer_numbers.py [--papers 40] [--per-source 30] [--models smollm2,qwen]
        [--temperatures 0,0.1] [--work-dir DIR] [--reuse] [--no-answers] [--out report.json] [--markdown table.md]
"""

from __future__ import annotations

import argparse
import gzip
import random
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from statistics import median

from benchmarks.answer_quality import with_settings, write_report
from benchmarks.corpora import BenchmarkSet, SetFile, shared_dir
from benchmarks.corpora.lhcb import LHCbPaper
from benchmarks.corpora.qasper import qasper_set
from benchmarks.corpora.sibling_numbers import SiblingItem, find
from benchmarks.retrieval_quality import build
from ingest.extract.pdf import extract_pdf
from ingest.sources.jsonl import JsonlAnalysis
from mitra.answer.grounding import check_support, numbers
from mitra.chat.session import AnswerTurn, Session, load_answerer
from mitra.core.settings import Settings
from mitra.core.text import math_to_words, readable_latex
from mitra.core.types import Hit
from mitra.evaluation.metrics import bootstrap_interval
from mitra.models.llm import demo_gguf_path
from mitra.retrieval.pipeline import Pipeline

CLAIMS = ("true", "value swapped", "qualifier swapped", "value swapped, qualifier left to the question")


def share(values: list[bool]) -> dict:
    if not values:
        return {"n": 0}
    low, high = bootstrap_interval([float(v) for v in values])
    return {"n": len(values), "share": round(sum(values) / len(values), 3), "interval": [round(low, 3), round(high, 3)]}


# ------------------------------------------------------------------ the sources
def lhcb_records(root: Path, papers: int) -> list[JsonlAnalysis]:
    """The first ``papers`` LHCb papers (archive order) whose text has a sibling pair."""
    chosen = []
    with gzip.open(root / "data/lhcb/lhcb_papers.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            paper = LHCbPaper.model_validate_json(line)
            if next(find("lhcb", "", "", math_to_words(readable_latex(paper.text))), None) is not None:
                chosen.append(paper.record(full_text=True))
            if len(chosen) == papers:
                break
    return chosen


def pdf_set(root: Path) -> BenchmarkSet:
    """The 16 ATLAS/CMS PDFs, each an analysis titled as its first page is (what an admin gives
    `mitra ingest pdf --title`): the title says what a paper's numbers are about."""
    files = []
    settings = Settings(_env_file=None)
    for path in sorted((root / "data/hep_pdfs").glob("*.pdf")):
        title = extract_pdf(path, settings, pages=[1]).title or path.stem
        record = JsonlAnalysis(analysis_id=f"PDF-{path.stem}", title=title, abstract="", documents=[])
        files.append(SetFile(analysis=record, path=path, format="pdf"))
    return BenchmarkSet("numbers-pdf", records=[f.analysis for f in files], files=files)


def items_of(pipeline: Pipeline, source: str) -> list[SiblingItem]:
    """Every sibling question in the indexed passages, once per (passage, asked value)."""
    found: dict[tuple, SiblingItem] = {}
    for analysis in pipeline.kb.analyses():
        for chunk in pipeline.kb.chunks(analysis.id):
            for item in find(source, analysis.id, chunk.id, chunk.text, chunk.section[-1] if chunk.section else ""):
                found.setdefault((chunk.id, item.asked, item.right, item.trap), item)
    return list(found.values())


# ------------------------------------------------------------------ part 1
def check_alone(pipelines: dict[str, Pipeline], items: list[SiblingItem]) -> dict:
    by_kind: dict[str, dict[str, list[bool]]] = {kind: {} for kind in CLAIMS}
    failures: dict[str, list[dict]] = {kind: [] for kind in CLAIMS}
    for item in items:
        pipeline = pipelines[item.source]
        chunk = pipeline.kb.get_chunks(item.analysis_id, [item.chunk_id])[item.chunk_id]
        title = pipeline.kb.get_analysis(item.analysis_id).title
        for kind, claim in item.claims.items():
            (sentence,) = check_support(claim + " [1]", [Hit(chunk=chunk)], pipeline.settings.support_min_overlap,
                                        None, question=item.question, title=title)
            kept = bool(sentence.supported)
            by_kind[kind].setdefault(item.source, []).append(kept if kind == "true" else not kept)
            if (kind == "true") != kept and len(failures[kind]) < 10:
                failures[kind].append({"claim": claim, "question": item.question, "passage": item.sentence,
                                       "problem": sentence.problem})
    return {
        "claims": {kind: share([v for values in per.values() for v in values]) for kind, per in by_kind.items()},
        "by_source": {kind: {source: share(values) for source, values in per.items()} for kind, per in by_kind.items()},
        "failures": failures,
    }


# ------------------------------------------------------------------ part 2
def _states(text: str, value: str) -> bool:
    return bool(numbers(value) & numbers(text))


def verdict(text: str, item: SiblingItem) -> str:
    right, trap = _states(text, item.right), _states(text, item.trap)
    return "both" if right and trap else "right" if right else "wrong" if trap else "none"


def ask(pipeline: Pipeline, answerer, item: SiblingItem) -> dict:
    session = Session(pipeline, answerer)
    session.lock(item.analysis_id)
    turn = next(e for e in session.submit(item.question) if isinstance(e, AnswerTurn))
    start = time.perf_counter()
    written = "".join(turn.tokens())
    row: dict = {"source": item.source, "shape": item.shape, "question": item.question, "right": item.right,
                 "trap": item.trap, "written": written, "seconds": round(time.perf_counter() - start, 1)}
    answer = turn.answer
    if answer is None:
        return {**row, "error": turn.error}
    # A warned answer ("Not sure which value is asked. The likeliest is …", with its note) shows
    # no value as supported: any note counts as a warning, as in answer_values.py.
    wrong_supported = [] if answer.notes else [s.text for s in answer.support
                                               if s.supported and verdict(s.text, item) == "wrong"]
    quotes = [s.quote for s in answer.support if s.wrong_figure and s.quote is not None]
    shown = answer.text
    for q in quotes:  # a quoted passage sentence: its marked number is what it answers
        shown = shown.replace(f"“{q.sentence}”", f" {q.number} ")
    quote = answer.quote
    return {**row, "model": verdict(written, item), "shown": verdict(shown, item) if not answer.withheld else "withheld",
            "wrong_shown_as_supported": wrong_supported, "abstained": answer.abstained,
            "quote": None if quote is None else verdict(quote.number, item),
            "quote_ms": answer.timings.quote_ms, "first_token_ms": answer.timings.first_token_ms,
            "text": answer.text, "notes": [n.text for n in answer.notes]}


def summarise(rows: list[dict]) -> dict:
    done = [r for r in rows if "model" in r]
    count = Counter(r["model"] for r in done)
    quoted = [r for r in done if r["quote"] is not None]
    first = [r["first_token_ms"] for r in done if r.get("first_token_ms")]
    quote_ms = [r["quote_ms"] for r in done if r.get("quote_ms")]
    return {
        "questions": len(rows), "errors": len(rows) - len(done),
        "model": {k: share([r["model"] == k for r in done]) for k in ("right", "wrong", "both", "none")},
        "wrong_shown_as_supported": sum(bool(r["wrong_shown_as_supported"]) for r in done),
        "wrong_written": count["wrong"] + count["both"],
        "shown": {k: share([r["shown"] == k for r in done]) for k in ("right", "wrong", "both", "none", "withheld")},
        "quote_first": {"offered": share([r["quote"] is not None for r in done]),
                        **{k: share([r["quote"] == k for r in quoted]) for k in ("right", "wrong", "both", "none")}},
        "quote_ms_p50": round(median(quote_ms)) if quote_ms else None,
        "first_token_ms_p50": round(median(first)) if first else None,
    }


def model_run(pipelines: dict[str, Pipeline], items: list[SiblingItem], gguf: Path | None, temperature: float) -> dict:
    update = {"switch_margin": None, "llm_backend": "embedded", "gguf_path": gguf,
              "llm_temperature": temperature}
    rows = []
    answerer = None
    for item in items:
        pipeline = with_settings(pipelines[item.source], update)
        answerer = answerer.for_pipeline(pipeline) if answerer is not None else load_answerer(pipeline)
        rows.append(ask(pipeline, answerer, item))
        r = rows[-1]
        print(f"  {item.source} {item.shape}: " + (f"error {r['error']}" if "error" in r else
              f"model {r['model']}, shown {r['shown']}, quote {r['quote']}"), file=sys.stderr)
    return {"summary": summarise(rows), "per_question": rows}


# ------------------------------------------------------------------ report
def pct(r: dict) -> str:
    return f"{r['share']:.0%}" if r["n"] else "–"


def markdown(report: dict) -> str:
    lines = ["| claim | n | flagged (true: kept) | 95 % interval |", "|---|---|---|---|"]
    for kind, r in report["check_alone"]["claims"].items():
        if r["n"]:
            lines.append(f"| {kind} | {r['n']} | {r['share']:.1%} | {r['interval'][0]:.1%}–{r['interval'][1]:.1%} |")
    for name, run in report.get("models", {}).items():
        s = run["summary"]
        m, shown, quote = s["model"], s["shown"], s["quote_first"]
        lines += ["", f"**{name}** ({s['questions']} questions, {s['errors']} errors)", "",
                  "| | right | wrong | both | none |", "|---|---|---|---|---|",
                  "| the model wrote | " + " | ".join(pct(m[k]) for k in ("right", "wrong", "both", "none"))
                  + " |",
                  "| the member sees | " + " | ".join(pct(shown[k]) for k in ("right", "wrong", "both", "none"))
                  + " |",
                  "| quote first | " + " | ".join(pct(quote[k]) for k in ("right", "wrong", "both", "none")) + " |", "",
                  f"wrong values written: {s['wrong_written']}; **shown as supported: {s['wrong_shown_as_supported']}**; "
                  f"quote offered {pct(quote['offered'])}; quote on screen p50 {s['quote_ms_p50']} ms, "
                  f"first token p50 {s['first_token_ms_p50']} ms"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=40, help="LHCb papers with a sibling pair to index in full")
    parser.add_argument("--per-source", type=int, default=30, help="questions per source asked of each model")
    parser.add_argument("--models", default="smollm2,qwen")
    parser.add_argument("--temperatures", default="0.1", help="sampling temperatures to compare (0 = greedy)")
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/mitra-answer-numbers"))
    parser.add_argument("--reuse", action="store_true", help="keep knowledge bases already built there")
    parser.add_argument("--no-answers", action="store_true", help="part 1 only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    root = shared_dir()
    if root is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR)")
    overrides = {"reranker": "none"}
    text = BenchmarkSet("numbers-text", records=lhcb_records(root, args.papers) + qasper_set(root).records)
    pipelines: dict[str, Pipeline] = {}
    items: list[SiblingItem] = []
    for name, bench in (("text", text), ("pdf", pdf_set(root))):
        pipeline, seconds, failed = build(bench, args.work_dir / name, args.reuse, overrides)
        print(f"{name}: built in {seconds} s, {len(failed)} failed", file=sys.stderr)
        for item in items_of(pipeline, name):
            source = "pdf" if name == "pdf" else "qasper" if item.analysis_id.startswith("QASPER") else "lhcb"
            items.append(replace(item, source=source))
            pipelines[source] = pipeline
    report: dict = {"benchmark": "answer_numbers", "items": dict(Counter(i.source for i in items)),
                    "shapes": dict(Counter(i.shape for i in items)), "check_alone": check_alone(pipelines, items)}
    if not args.no_answers:
        rng = random.Random(args.seed)
        asked = []
        for source in ("lhcb", "pdf", "qasper"):
            pool = [i for i in items if i.source == source]
            asked += rng.sample(pool, min(args.per_source, len(pool)))
        report["models"] = {}
        for model in args.models.split(","):
            gguf = demo_gguf_path(Settings(_env_file=None)).resolve() if model == "qwen" else None
            for temperature in map(float, args.temperatures.split(",")):
                report["models"][f"{model} at temperature {temperature:g}"] = model_run(pipelines, asked, gguf,
                                                                                         temperature)
    write_report(report, markdown(report), args.out, args.markdown)


if __name__ == "__main__":
    main()
