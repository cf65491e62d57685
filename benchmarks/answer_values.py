"""Value questions in plain words (issue 46): does the member get the asked value, and not
its sibling? The questions (``benchmarks/corpora/value_questions.jsonl``) were written and
frozen before any tuning; each names the value, the trap beside it (observed / expected,
stat / syst, another channel, data set or table row) and the sentence or row stating it.

Sets (``--sets``): ``pdfs`` (the 16 ATLAS/CMS PDFs, through the PDF reader), ``lhcb`` (the 8
longest LHCb papers, as text), ``fresh`` and ``fresh2`` (72 questions each on 12 more
LHCb papers: each held out once, development since), ``fresh3`` (72 on 12 further LHCb papers:
held out for two sessions, opened in the ninth), ``fresh4``, ``fresh5`` and ``fresh6`` (72 each
on the next 12, 12 and 12, each written blind while the sets before it were still held out: the
held-out sets, read only as totals; one ``fresh6`` question, wrong with no warning on its first
run, was read in the twelfth session), ``fresh7`` (72 on the next 12, written blind in the
thirteenth session: held out; one question, wrong with no warning on its first run, was read;
in the fifteenth, the 8 held-out answers that gave no value were read, and 4 held-out questions
seen while checking which questions the value path takes),
``qasper`` (QASPER questions whose gold answer is a number) and ``demo`` (the demo's answerable
questions whose gold fact is a number). Each question is asked in a session locked on its paper,
switch offers off, per model (``--models smollm2,qwen``; qwen is the demo GGUF and is skipped,
saying so, where it is not assembled).

Per question and model:

* answer: right (the final ``answer.text`` leads with the value: the first number of its
  own words beyond the question's is the value), listed (it states the value, but leads
  with another: a warned list whose first entry is not the value is no answer), wrong (it
  states the sibling, or another number, and not the value), none, judged on the answer's
  own words (quoted passage sentences “…” and the siblings after "Beside it:" are judged as
  the quote); **right and sure** = right with no "value uncertain" note (stated as the
  answer, not as the likeliest under a warning); **wrong with no warning** = wrong and
  ``answer.notes`` is empty (any note counts as a warning); **stated, to check** = stated as
  the answer with the note asking the member to check it (the ranking's first was not clearly
  ahead), a warning that still gives the value;
* shown first: ``answer.quote`` (the passage sentence shown before the model's prose), its
  marked number right / wrong / none; **bolds another quantity** = a quote whose number is
  not the value;
* **false decline**: ``answer.withheld`` while a shown passage (``answer.sources``) states the value;
* where the value was lost, the first stage that does not state it: retrieved (any passage
  shown or retrieved and left out for the token budget), in the prompt (the prompt's
  messages as the ``on_prompt`` hook hands them over: exact, not approximated), written
  (what the model streamed, or ``answer.draft``), shown (``answer.text`` or the quote). A
  passage "states" the value when the number occurs in it, for whatever quantity (2.5 is
  also a rapidity cut), so the early stages are upper bounds;
* ``answer.timings.quote_ms`` (quote on screen) and ``total_ms``, and the wall seconds.

"Another number" leaves out citation marks ([1]) and the numbers the question itself states
(its mass point, its data set). Numbers are compared as numbers (5.0 = 5, 80 353 = 80353,
20\\,600 = 20600, signs dropped) and a value written with another power-of-ten prefix of its
unit counts where the text writes that unit after it (120 MeV = 0.12 GeV):
``benchmarks.corpora.value_questions.states``. Shares come with 95 % bootstrap intervals,
overall and on the questions where a shown passage states the value.

    python benchmarks/answer_values.py [--sets pdfs,lhcb,qasper] [--limit N] [--sample N] [--models smollm2,qwen]
        [--set final_k=5] [--set value_choice=false] [--work-dir DIR] [--reuse] [--out report.json] [--markdown table.md]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path
from statistics import median

from benchmarks.answer_numbers import pdf_set
from benchmarks.answer_quality import with_settings, write_report
from benchmarks.corpora import BenchmarkSet, shared_dir
from benchmarks.corpora.demo_questions import ANSWERABLE
from benchmarks.corpora.lhcb import LHCbPaper
from benchmarks.corpora.qasper import qasper_set
from benchmarks.corpora.value_questions import (
    FRESH_SETS,
    ValueQuestion,
    load_value_questions,
    qasper_value_questions,
    readings,
    states,
    value_of,
)
from benchmarks.retrieval_quality import build
from mitra.chat.session import AnswerTurn, Session, load_answerer
from mitra.core.settings import Settings
from mitra.evaluation.metrics import bootstrap_interval
from mitra.models.llm import demo_gguf_path
from mitra.retrieval.pipeline import Pipeline

SETS = ("pdfs", "lhcb", *FRESH_SETS, "qasper", "demo")
STAGES = ("retrieved", "in prompt", "written", "shown")
_CITATION = re.compile(r"\[\d+(?:\s*[,–-]\s*\d+)*\]")
_QUOTED = re.compile(r"“[^”]*”")
_BESIDE = re.compile(r"\bBeside it: [^\n]*")
_NUMBER_FACT = re.compile(r"(\d[\d ,.]*\d|\d)\s*(.*)")


def share(values: list[bool]) -> dict:
    if not values:
        return {"n": 0}
    low, high = bootstrap_interval([float(v) for v in values])
    return {"n": len(values), "share": round(sum(values) / len(values), 3), "interval": [round(low, 3), round(high, 3)]}


# ------------------------------------------------------------------ the questions
def demo_value_questions() -> list[ValueQuestion]:
    """The demo's answerable questions whose one gold fact is a number ("61.9", "570 fb", "80 353")."""
    found = []
    for n, q in enumerate(ANSWERABLE, 1):
        if len(q.facts) != 1 or not _NUMBER_FACT.fullmatch(q.facts[0]) or value_of(q.facts[0]) is None:
            continue  # a name ("Z", "Crystal Ball"), or a name with its share: not a value question
        fact = q.facts[0]
        value, unit = _NUMBER_FACT.fullmatch(fact).groups()
        found.append(ValueQuestion(id=f"demo-{n:02d}", source=f"demo:{q.locked}", question=q.question,
                                   value=value, unit=unit, quantity=q.question, evidence=fact))
    return found


def analysis_id(q: ValueQuestion) -> str:
    kind, _, name = q.source.partition(":")
    if q.set == "pdfs":
        return f"PDF-{Path(q.source).stem}"
    return {"lhcb": f"LHCb-{name}", "qasper": f"QASPER-{name}", "demo": name}[kind]


def questions_of(sets: list[str], root: Path, limit: int | None) -> list[ValueQuestion]:
    frozen = load_value_questions()
    by_set = {"pdfs": [q for q in frozen if q.set == "pdfs"], "lhcb": [q for q in frozen if q.set == "lhcb"],
              **{name: load_value_questions(path) if name in sets else [] for name, path in FRESH_SETS.items()},
              "qasper": list(qasper_value_questions(root)) if "qasper" in sets else [],
              "demo": demo_value_questions() if "demo" in sets else []}
    return [q for name in sets for q in by_set[name][:limit]]


# ------------------------------------------------------------------ the knowledge bases
def bench_of(name: str, root: Path, questions: list[ValueQuestion]) -> BenchmarkSet:
    if name == "pdfs":  # only the papers asked about: a locked question sees its own paper only
        wanted = {Path(q.source).name for q in questions if q.set == "pdfs"}
        files = [f for f in pdf_set(root).files if f.path.name in wanted]
        return BenchmarkSet("values-pdfs", records=[f.analysis for f in files], files=files)
    if name == "lhcb" or name in FRESH_SETS:
        wanted = {q.source.split(":", 1)[1] for q in questions if q.set == name}
        records = []
        with gzip.open(root / "data/lhcb/lhcb_papers.jsonl.gz", "rt", encoding="utf-8") as handle:
            for line in handle:
                paper = LHCbPaper.model_validate_json(line)
                if paper.arxiv_id in wanted:
                    records.append(paper.record(full_text=True))
        return BenchmarkSet(f"values-{name}", records=records)
    if name == "qasper":
        return qasper_set(root)
    from demo.records import demo_records

    return BenchmarkSet("values-demo", records=demo_records())


# ------------------------------------------------------------------ asking
class PromptCapture:
    """The answerer, keeping the prompt its ``on_prompt`` hook hands over (what the model read)."""

    def __init__(self, inner):
        self.inner = inner
        self.prompt = None

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def stream(self, analysis, question, history, on_prompt=None):
        def keep(prompt, model):
            self.prompt = prompt
            if on_prompt is not None:
                on_prompt(prompt, model)

        self.prompt = None
        return self.inner.stream(analysis, question, history, on_prompt=keep)


def prompt_text(prompt) -> str:
    return "\n".join(str(getattr(m, "content", m)) for m in prompt.messages) if prompt is not None else ""


def own_words(text: str) -> str:
    """The answer's own claim: citation marks and quoted passage sentences (“…”) left out,
    as those are judged as the quote, and the sibling values listed after "Beside it:", each
    labelled with what it is stated for (observed 5.0 σ · expected 5.8 σ), which state the
    siblings as siblings, not as the answer."""
    return _CITATION.sub(" ", _QUOTED.sub(" ", _BESIDE.sub(" ", text)))


def leads_with(text: str, q: ValueQuestion) -> bool:
    """The first number of the answer's own claim, beyond those the question states, is the value."""
    asked = readings(q.question)
    for match in re.finditer(r"\d[\d,. ]*\d|\d", own_words(text)):
        got = readings(match.group()) - asked
        if got:
            return value_of(q.value) in got
    return False


def verdict(text: str, q: ValueQuestion) -> str:
    """right / wrong / both / none for what a text says about the question's value."""
    text = own_words(text)
    right = states(text, q.value, q.unit)
    trap = q.sibling is not None and states(text, q.sibling, q.unit)
    if right:
        return "both" if trap else "right"
    asked = readings(q.question)
    other = readings(text) - asked
    return "wrong" if trap or other else "none"


def scored(text: str, q: ValueQuestion, declined: bool) -> str:
    """right (leads with the value) / listed (states it after another) / wrong / none. A
    withheld or abstained answer states no value: its text names the analysis
    ("PDF-1207.7214v2"), not a figure."""
    if declined:
        return "none"
    found = verdict(text, q)
    if found in ("right", "both"):
        return "right" if leads_with(text, q) else "listed"
    return found


def quote_verdict(quote, q: ValueQuestion) -> str | None:
    if quote is None:
        return None
    number = value_of(quote.number)
    if number is not None and number == value_of(q.value):
        return "right"
    return "wrong"


def ask(pipeline: Pipeline, answerer: PromptCapture, q: ValueQuestion) -> dict:
    session = Session(pipeline, answerer)
    session.lock(analysis_id(q))
    start = time.perf_counter()
    events = session.submit(q.question)
    turn = next((e for e in events if isinstance(e, AnswerTurn)), None)
    row: dict = {"id": q.id, "set": q.set, "form": q.form, "question": q.question, "value": q.value,
                 "sibling": q.sibling}
    if turn is None:
        return {**row, "error": "switch offered"}
    written = "".join(turn.tokens())
    row["seconds"] = round(time.perf_counter() - start, 1)
    answer = turn.answer
    if answer is None:
        return {**row, "error": turn.error}
    prompt = answerer.prompt
    shown_passages = [h.chunk.text for h in answer.sources]
    left_out = [h.chunk.text for h in (prompt.left_out if prompt is not None else [])]
    draft = answer.draft or written
    quote = answer.quote
    reached = {
        "retrieved": any(states(t, q.value, q.unit) for t in shown_passages + left_out),
        # the prompt's messages when the model was called; otherwise the passages it would have read
        "in prompt": states(prompt_text(prompt), q.value, q.unit) if prompt is not None
        else any(states(t, q.value, q.unit) for t in shown_passages),
        "written": states(_CITATION.sub(" ", draft), q.value, q.unit),
        "shown": (not answer.withheld and states(_CITATION.sub(" ", answer.text), q.value, q.unit))
        or quote_verdict(quote, q) == "right",
    }
    lost = next((stage for stage in STAGES if not reached[stage]), None)
    answer_verdict = scored(answer.text, q, answer.withheld or answer.abstained)
    leads = leads_with(answer.text, q)
    shown_states = any(states(t, q.value, q.unit) for t in shown_passages)
    return {
        **row,
        "answer": answer_verdict,
        "leads_with_value": leads,
        "sure": answer_verdict == "right" and not any(n.kind == "value uncertain" for n in answer.notes),
        "wrong_no_warning": answer_verdict == "wrong" and not answer.notes,
        # stated as the answer with a note to check it (the ranking's first, not clearly ahead)
        "to_check": any(n.kind == "value unconfirmed" for n in answer.notes),
        "quote": quote_verdict(quote, q),
        "quote_number": quote.number if quote is not None else None,
        "quote_siblings": len(getattr(quote, "siblings", []) or []) if quote is not None else 0,
        # the value box once the model has chosen (the app shows the chosen value in the quote's place)
        "chosen": quote_verdict(getattr(answer, "value", None) or quote, q),
        "confidence": getattr(answer, "value_confidence", None),
        "withheld": answer.withheld,
        "abstained": answer.abstained,
        "false_decline": answer.withheld and shown_states,
        "shown_passage_states_value": shown_states,
        "reached": reached,
        "lost_at": lost,
        "quote_ms": round(answer.timings.quote_ms) if answer.timings.quote_ms is not None else None,
        "total_ms": round(answer.timings.total_ms),
        "text": answer.text,
        "notes": [n.text for n in answer.notes],
    }


def summarise(rows: list[dict]) -> dict:
    done = [r for r in rows if "answer" in r]

    def shares(part: list[dict]) -> dict:
        quoted = [r for r in part if r["quote"] is not None]
        return {
            "questions": len(part),
            "answer": {k: share([r["answer"] == k for r in part]) for k in ("right", "listed", "wrong", "none")},
            "right_sure": share([r["sure"] for r in part]),
            "leads_with_value": share([r["leads_with_value"] for r in part]),
            "wrong_no_warning": share([r["wrong_no_warning"] for r in part]),
            "to_check": share([r.get("to_check", False) for r in part]),
            "quote_offered": share([r["quote"] is not None for r in part]),
            "quote": {k: share([r["quote"] == k for r in quoted]) for k in ("right", "wrong")},
            "bolds_another_quantity": share([r["quote"] == "wrong" for r in part]),
            "chosen": {k: share([r["chosen"] == k for r in part]) for k in ("right", "wrong")},
            "withheld": share([r["withheld"] for r in part]),
            "false_decline": share([r["false_decline"] for r in part]),
            "reached": {s: share([r["reached"][s] for r in part]) for s in STAGES},
            "lost_at": dict(Counter(r["lost_at"] or "not lost" for r in part)),
        }

    quote_ms = [r["quote_ms"] for r in done if r["quote_ms"] is not None]
    total_ms = [r["total_ms"] for r in done]
    return {
        "questions": len(rows), "errors": len(rows) - len(done),
        "all": shares(done),
        "shown_passage_states_value": shares([r for r in done if r["shown_passage_states_value"]]),
        "by_set": {s: shares([r for r in done if r["set"] == s]) for s in sorted({r["set"] for r in done})},
        "by_form": {f: shares([r for r in done if r["form"] == f]) for f in sorted({r["form"] for r in done})},
        "quote_ms_p50": round(median(quote_ms)) if quote_ms else None,
        "total_ms_p50": round(median(total_ms)) if total_ms else None,
        "seconds_per_question": round(sum(r["seconds"] for r in done) / len(done), 1) if done else None,
    }


def model_run(pipelines: dict[str, Pipeline], questions: list[ValueQuestion], gguf: Path | None,
              overrides: dict | None = None) -> dict:
    update = {"switch_margin": None, "llm_backend": "embedded", "gguf_path": gguf, **(overrides or {})}
    rows, answerer = [], None
    for q in questions:
        pipeline = with_settings(pipelines[q.set], update)
        inner = answerer.inner.for_pipeline(pipeline) if answerer is not None else load_answerer(pipeline)
        answerer = PromptCapture(inner)
        rows.append(ask(pipeline, answerer, q))
        r = rows[-1]
        print(f"  {q.id}: " + (f"error {r['error']}" if "error" in r else
              f"answer {r['answer']}, quote {r['quote']}, lost at {r['lost_at']}, {r['seconds']} s"), file=sys.stderr)
    return {"summary": summarise(rows), "per_question": rows}


# ------------------------------------------------------------------ report
def pct(r: dict) -> str:
    return f"{r['share']:.0%} ({r['interval'][0]:.0%}–{r['interval'][1]:.0%})" if r.get("n") else "–"


def markdown(report: dict) -> str:
    lines = []
    for name, run in report.get("models", {}).items():
        s = run["summary"]
        lines += [f"**{name}** ({s['questions']} questions, {s['errors']} errors; quote on screen p50 "
                  f"{s['quote_ms_p50']} ms, answer p50 {s['total_ms_p50']} ms)", "",
                  "| questions | n | right | right and sure | stated, to check | listed, not first | wrong | "
                  "wrong, no warning | "
                  "shown first: right | bolds another | value box right | false decline | retrieved | in prompt | "
                  "written | shown |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for label, part in [("all", s["all"]), ("a shown passage states it", s["shown_passage_states_value"])] + [
                (f"set {k}", v) for k, v in s["by_set"].items()] + [(f"{k}", v) for k, v in s["by_form"].items()]:
            lines.append(f"| {label} | {part['questions']} | {pct(part['answer']['right'])} | "
                         f"{pct(part['right_sure'])} | {pct(part['to_check'])} | {pct(part['answer']['listed'])} | "
                         f"{pct(part['answer']['wrong'])} | {pct(part['wrong_no_warning'])} | "
                         f"{pct(part['quote']['right'])} | {pct(part['bolds_another_quantity'])} | "
                         f"{pct(part['chosen']['right'])} | "
                         f"{pct(part['false_decline'])} | "
                         + " | ".join(pct(part["reached"][st]) for st in STAGES) + " |")
        lines.append("")
    return "\n".join(lines)


def parse_overrides(items: list[str]) -> dict:
    """``--set KEY=VALUE`` items as settings (numbers, lists, booleans and null read as JSON)."""
    return {key: json.loads(value) if value[:1] in "0123456789-[{tfn\"" else value
            for key, value in (item.split("=", 1) for item in items)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="pdfs,lhcb,qasper", help=f"any of {','.join(SETS)}")
    parser.add_argument("--limit", type=int, help="the first N questions of each set")
    parser.add_argument("--models", default="smollm2,qwen")
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/mitra-answer-values"))
    parser.add_argument("--reuse", action="store_true", help="keep knowledge bases already built there")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting for the answers, e.g. final_k=5 (the demo's), value_choice=false (the "
                             "model writes prose, as before issue 46); repeatable")
    parser.add_argument("--sample", type=int, help="N questions of each set, drawn with a fixed seed (after --limit)")
    args = parser.parse_args()
    overrides = parse_overrides(args.set)
    sets = [s for s in args.sets.split(",") if s]
    if unknown := set(sets) - set(SETS):
        sys.exit(f"unknown set(s): {', '.join(sorted(unknown))} (choose from {', '.join(SETS)})")
    root = shared_dir()
    if root is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR)")
    questions = questions_of(sets, root, args.limit)
    if args.sample:
        draw = random.Random(46)
        questions = [q for name in sets for q in sorted(draw.sample(
            [q for q in questions if q.set == name], min(args.sample, sum(q.set == name for q in questions))),
            key=questions.index)]
    pipelines: dict[str, Pipeline] = {}
    report: dict = {"benchmark": "answer_values", "settings": overrides,
                    "questions": dict(Counter(q.set for q in questions)),
                    "with_sibling": sum(q.sibling is not None for q in questions), "builds": {}, "skipped": []}
    for name in sets:
        asked = [q for q in questions if q.set == name]
        if not asked:
            continue
        bench = bench_of(name, root, asked)  # one knowledge base per set and number of papers, for --reuse
        pipeline, seconds, failed = build(bench, args.work_dir / f"{name}-{len(bench.records)}", args.reuse,
                                          {"reranker": "none"})
        report["builds"][name] = {"seconds": seconds, "failed": [f"{f}: {why}" for f, why in failed]}
        print(f"{name}: built in {seconds} s, {len(failed)} failed", file=sys.stderr)
        pipelines[name] = pipeline
    report["models"] = {}
    for model in args.models.split(","):
        gguf = None
        if model == "qwen":
            gguf = demo_gguf_path(Settings(_env_file=None)).resolve()
            if not gguf.exists():
                report["skipped"].append(f"qwen: the demo GGUF {gguf} is not assembled")
                print(f"qwen skipped: {gguf} is absent", file=sys.stderr)
                continue
        report["models"][model] = model_run(pipelines, [q for q in questions if q.set in pipelines], gguf, overrides)
    write_report(report, markdown(report), args.out, args.markdown)


if __name__ == "__main__":
    main()
