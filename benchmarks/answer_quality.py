"""Answers you can trust: abstention, switch offers, citation support and gold facts.

Part 1, the signals (no model, every set): each question is asked in a session locked on
an analysis, and what the session does before any model runs is recorded: abstain
(``min_question_coverage``: the analysis does not use most of the question's words),
offer a switch (``switch_margin``: another analysis routes clearly first), or go on to
answer. Question kinds:

* answerable: the demo questions (``benchmarks/corpora/demo_questions.py``), the LHCb
  expert questions and the QASPER questions, each locked on its own analysis;
* off-topic: ten everyday questions, locked on each analysis that has questions;
* other-analysis: the demo's, and each LHCb or QASPER question locked on the next paper
  of its set (the one it is not about);
* not-in-lock (demo): on the locked analysis's topic, but its documents do not say.

For answerable questions the rate reported is the share wrongly stopped; for the others,
the share stopped. The coverage of every answerable and off-topic question is kept, so
the threshold's trade-off can be read off (``thresholds``).

Part 2, the answers (the embedded model, demo corpus): the same sessions run to the end,
once with the grounding off ("before": no coverage floor, no switch offers, unsupported
answers shown) and once with the defaults ("after"). Per kind: answered, abstained or
offered a switch; over all generated answers: the share of cited sentences the support
check passes; on answerable questions: the share of gold facts present, and time to
first token.

    python benchmarks/answer_quality.py [--sets demo,lhcb,qasper] [--work-dir DIR] [--reuse]
        [--gguf PATH] [--no-answers] [--runs before,after] [--out report.json] [--markdown table.md]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from benchmarks.corpora import BenchmarkSet, load_set, shared_dir
from benchmarks.corpora.demo_questions import DEMO_QUESTIONS, OFF_TOPIC_QUESTIONS, DemoQuestion
from benchmarks.retrieval_quality import build
from demo.records import demo_records
from mitra.answer.grounding import SentenceSupport, analysis_coverage, numbers
from mitra.chat.session import AnswererLike, AnswerTurn, Session, SwitchOffer, load_answerer
from mitra.core.settings import Settings
from mitra.core.text import tokenize
from mitra.models.llm import demo_gguf_path
from mitra.retrieval.pipeline import Pipeline

KINDS = ("answerable", "off-topic", "other-analysis", "not-in-lock")
GROUNDING_OFF = {"min_question_coverage": None, "switch_margin": None, "withhold_unsupported": False}


def set_questions(bench: BenchmarkSet) -> list[DemoQuestion]:
    """A public set's questions by kind: answerable in their own paper, other-analysis in
    the next paper of the set, and the off-topic ones in every paper with questions."""
    papers = sorted({q.analysis_id for q in bench.locked})
    following = {a: papers[(i + 1) % len(papers)] for i, a in enumerate(papers)}
    out = [DemoQuestion(kind="answerable", locked=q.analysis_id, question=q.query) for q in bench.locked]
    out += [DemoQuestion(kind="other-analysis", locked=following[q.analysis_id], question=q.query,
                         expected=q.analysis_id) for q in bench.locked if len(papers) > 1]
    out += [DemoQuestion(kind="off-topic", locked=a, question=q) for a in papers for q in OFF_TOPIC_QUESTIONS]
    return out


def signal(pipeline: Pipeline, q: DemoQuestion) -> dict:
    """What a session locked on ``q.locked`` does with ``q`` before any model runs."""
    session = Session(pipeline, answerer=None)
    session.lock(q.locked)
    coverage = analysis_coverage(pipeline.kb, session.analysis, q.question)
    floor = pipeline.settings.min_question_coverage
    offer = next((e for e in session.submit(q.question) if isinstance(e, SwitchOffer)), None)
    if offer is not None:
        outcome = "switch"
    elif floor is not None and coverage.share < floor:
        outcome = "abstain"
    else:
        outcome = "answer"
    return {"kind": q.kind, "locked": q.locked, "question": q.question, "coverage": coverage.share,
            "outcome": outcome, "offered": offer.suggested.analysis.id if offer else None}


def rates(rows: list[dict], stopped: set[str]) -> dict:
    out = {}
    for kind in KINDS:
        mine = [r for r in rows if r["kind"] == kind]
        if mine:
            share = sum(r["outcome"] in stopped for r in mine) / len(mine)
            out[kind] = {"questions": len(mine), "stopped": round(share, 3)}
    return out


def thresholds(rows: list[dict]) -> list[dict]:
    """The coverage floor's trade-off: answerable questions wrongly stopped vs off-topic ones stopped."""
    answerable = [r["coverage"] for r in rows if r["kind"] == "answerable"]
    off = [r["coverage"] for r in rows if r["kind"] == "off-topic"]
    return [{"floor": t, "answerable_stopped": round(sum(c < t for c in answerable) / len(answerable), 3),
             "off_topic_stopped": round(sum(c < t for c in off) / len(off), 3)}
            for t in (0.3, 0.4, 0.5, 0.6, 0.7) if answerable and off]


def facts_present(text: str, facts: list[str]) -> float | None:
    """The share of gold facts whose words and numbers all occur in the answer."""
    if not facts:
        return None
    have_words, have_numbers = set(tokenize(text)), numbers(text)
    found = [set(tokenize(f)) <= have_words and numbers(f) <= have_numbers for f in facts]
    return sum(found) / len(found)


def locked_turn(pipeline: Pipeline, answerer: AnswererLike, analysis_id: str, question: str) -> AnswerTurn | SwitchOffer:
    """``question`` in a session locked on ``analysis_id``: its turn run to the end, or the switch offered."""
    session = Session(pipeline, answerer)
    session.lock(analysis_id)
    events = session.submit(question)
    turn = next((e for e in events if isinstance(e, AnswerTurn)), None)
    if turn is None:
        return session.offer
    for _ in turn.tokens():
        pass
    return turn


def support_counts(support: list[SentenceSupport]) -> dict:
    """The answer's sentences that cite a passage, and of those the ones it supports."""
    checked = [s.supported for s in support if s.supported is not None]
    return {"cited_sentences": len(checked), "supported_sentences": sum(checked)}


def with_settings(pipeline: Pipeline, update: dict) -> Pipeline:
    """The same knowledge base and models under changed settings."""
    settings = pipeline.settings.model_copy(update=update)
    changed = Pipeline(**{**pipeline.__dict__, "settings": settings})
    changed.retriever.settings = settings
    return changed


def answer_run(pipeline: Pipeline, questions: list[DemoQuestion]) -> dict:
    """Every question through a real session and the embedded model."""
    answerer = load_answerer(pipeline)
    rows = []
    for q in questions:
        turn = locked_turn(pipeline, answerer, q.locked, q.question)
        row: dict = {"kind": q.kind, "locked": q.locked, "question": q.question}
        if isinstance(turn, SwitchOffer):
            row.update(outcome="switch", offered=turn.suggested.analysis.id)
        else:
            answer = turn.answer
            if answer is None:
                row.update(outcome="error", error=turn.error)
            else:
                row.update(
                    outcome="abstain" if answer.abstained or answer.withheld else "answer",
                    text=answer.draft or answer.text, withheld=answer.withheld, abstained=answer.abstained,
                    **support_counts(answer.support),
                    facts=facts_present(answer.draft or answer.text, q.facts),
                    first_token_ms=answer.timings.first_token_ms,
                )
        rows.append(row)
        print(f"  {q.kind}: {row['outcome']}", file=sys.stderr)
    cited = sum(r.get("cited_sentences", 0) for r in rows)
    answerable = [r for r in rows if r["kind"] == "answerable"]
    first = [r["first_token_ms"] for r in rows if r.get("first_token_ms")]
    return {
        "rates": rates(rows, {"abstain", "switch"}),
        "supported_sentences": round(sum(r.get("supported_sentences", 0) for r in rows) / cited, 3) if cited else None,
        "cited_sentences": cited,
        "gold_facts": round(sum(r.get("facts") or 0 for r in answerable) / len(answerable), 3) if answerable else None,
        "first_token_ms_p50": round(median(first)) if first else None,
        "per_question": rows,
    }


def markdown(report: dict) -> str:
    lines = ["| set | kind | questions | stopped before the model |", "|---|---|---|---|"]
    for name, part in report["signals"].items():
        for kind, r in part["rates"].items():
            lines.append(f"| {name} | {kind} | {r['questions']} | {r['stopped']:.0%} |")
    for label in ("before", "after"):
        run = report.get("answers", {}).get(label)
        if not run:
            continue
        lines += ["", f"Demo corpus, {label} ({report['answers']['model']}):", "",
                  "| kind | questions | abstained or offered a switch |", "|---|---|---|"]
        lines += [f"| {k} | {r['questions']} | {r['stopped']:.0%} |" for k, r in run["rates"].items()]
        lines += ["", f"cited sentences supported: {run['supported_sentences']} of {run['cited_sentences']}; "
                  f"gold facts present: {run['gold_facts']}; first token p50: {run['first_token_ms_p50']} ms"]
    return "\n".join(lines)


def write_report(report: dict, table: str, out: Path | None, table_path: Path | None) -> None:
    """The JSON on stdout (and ``out``), the table on stderr (and ``table_path``)."""
    if out:
        out.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    if table_path:
        table_path.write_text(table + "\n")
    print(json.dumps(report, indent=2, ensure_ascii=False))
    print(table, file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="demo,lhcb,qasper")
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/mitra-retrieval-quality"),
                        help="where the public sets' knowledge bases are built (shared with retrieval_quality.py)")
    parser.add_argument("--reuse", action="store_true", help="keep knowledge bases already built there")
    parser.add_argument("--gguf", type=Path, help="the answering model (default: the demo model if assembled)")
    parser.add_argument("--no-answers", action="store_true", help="part 1 only (no model)")
    parser.add_argument("--runs", default="before,after", help="part 2: grounding off (before), the defaults (after)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    overrides: dict = {"reranker": "none"}
    gguf = args.gguf or demo_gguf_path(Settings(_env_file=None))
    if gguf.is_file():
        overrides["gguf_path"] = str(gguf.resolve())

    report: dict = {"benchmark": "answer_quality", "signals": {}, "answers": {}}
    pipelines: dict[str, Pipeline] = {}
    for name in args.sets.split(","):
        if name == "demo":
            bench = BenchmarkSet("demo", records=demo_records())
            data_dir = Path(tempfile.mkdtemp(prefix="mitra-answer-quality-")) / "demo"
            pipeline, _, _ = build(bench, data_dir, False, {**overrides, "llm_backend": "embedded", "final_k": 5})
            questions = DEMO_QUESTIONS
        else:
            root = shared_dir()
            if root is None:
                sys.exit("../shared/data not found (set MITRA_SHARED_DIR)")
            bench = load_set(name, root)
            pipeline, _, _ = build(bench, args.work_dir / name, args.reuse, overrides)
            questions = set_questions(bench)
        pipelines[name] = pipeline
        rows = [signal(pipeline, q) for q in questions]
        report["signals"][name] = {"rates": rates(rows, {"abstain", "switch"}), "thresholds": thresholds(rows),
                                   "per_question": rows}
        print(f"{name}: signals done", file=sys.stderr)

    if not args.no_answers and "demo" in pipelines:
        demo = pipelines["demo"]
        start = time.perf_counter()
        for label, update in (("before", GROUNDING_OFF), ("after", {})):
            if label not in args.runs.split(","):
                continue
            report["answers"][label] = answer_run(with_settings(demo, update), DEMO_QUESTIONS)
        report["answers"]["model"] = Path(overrides.get("gguf_path", "packaged SmolLM2")).name
        report["answers"]["seconds"] = round(time.perf_counter() - start)
    write_report(report, markdown(report), args.out, args.markdown)


if __name__ == "__main__":
    main()
