"""``mitra eval-answers``: answer quality with a rubric judge, as in the muon-collider RAG
benchmark (seed paper 003, Appendix C): Good rate, Satisfactory-or-better rate, key-point
coverage, hallucination rate and abstention accuracy.

Every gold question is answered in its analysis (locked, as after the user's
confirmation), then graded by a judge model — configured apart from the answering model
(``judge_backend`` / ``judge_model`` / ``judge_base_url``) so a bigger model can judge a
small one. Its verdict is constrained to a JSON schema. An answer the system abstained
on before generation needs no judge: it covers no key point, claims nothing, and is good
exactly when the question is unanswerable.

Rates are over all graded questions (paper eq. 12-15); key-point coverage is the share
of all required key points covered (answerable questions with key points); abstention
accuracy is over the unanswerable ones (eq. 16). Questions whose answer or verdict failed
are listed and left out of the rates.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Literal

from pydantic import BaseModel, Field

from mitra.answer.answerer import Answer, Answerer
from mitra.core.errors import MitraError
from mitra.models.llm import ModelInfo, load_chat_model
from mitra.answer.judge_prompt import build_judge_prompt
from mitra.core.settings import Settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from mitra.store.knowledge_base import KnowledgeBase


class GoldAnswer(BaseModel):
    qid: str
    analysis_id: str
    question: str
    answerable: bool
    reference_answer: str | None = None
    key_points: list[str] = Field(default_factory=list)
    unsupported_claims: list[str] = Field(default_factory=list)  # claims that must not appear


class Verdict(BaseModel):
    """The judge's grading of one answer (its JSON schema constrains the judge's output)."""

    label: Literal["good", "satisfactory", "poor"]
    key_points_covered: list[int] = Field(description="numbers of the key points the answer states correctly")
    unsupported_claims: list[str] = Field(description="claims of the answer that nothing given supports")
    abstained: bool = Field(description="the answer declines, or says the documents do not cover the question")


class Graded(BaseModel):
    gold: GoldAnswer
    answer: str | None = None
    cited: list[int] = Field(default_factory=list)
    abstained_before_generation: bool = False
    verdict: Verdict | None = None
    error: str | None = None  # the answer or the verdict failed: left out of the rates
    answer_ms: float | None = None

    @property
    def abstained(self) -> bool:
        return self.abstained_before_generation or bool(self.verdict and self.verdict.abstained)

    @property
    def covered(self) -> int:
        return len({n for n in self.verdict.key_points_covered if 1 <= n <= len(self.gold.key_points)}) if self.verdict else 0


class AnswerMetrics(BaseModel):
    good_rate: float | None
    satisfactory_or_better_rate: float | None
    key_point_coverage: float | None
    hallucination_rate: float | None
    abstention_accuracy: float | None
    false_abstention_rate: float | None  # answerable questions the system declined


class AnswerReport(BaseModel):
    date: str
    gold: str
    answering_model: ModelInfo
    judge_model: ModelInfo
    questions: int
    answerable: int
    unanswerable: int
    failed: list[str]  # qids
    metrics: AnswerMetrics
    mean_answer_ms: float | None
    rows: list[Graded]


def judge_settings(settings: Settings) -> Settings:
    """The answering settings with the judge's backend, model and address swapped in."""
    backend = settings.judge_backend or settings.llm_backend
    update: dict = {"llm_backend": backend, "llm_temperature": 0.0}
    if settings.judge_model:
        if backend == "embedded":
            update["gguf_path"] = Path(settings.judge_model)
        else:  # "auto" tries Ollama with it first
            update["openai_model" if backend == "openai" else "ollama_model"] = settings.judge_model
    if settings.judge_base_url:
        update["openai_base_url" if backend == "openai" else "ollama_host"] = settings.judge_base_url
    return settings.model_copy(update=update)


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def metrics(rows: list[Graded]) -> AnswerMetrics:
    graded = [r for r in rows if r.error is None]
    answerable = [r for r in graded if r.gold.answerable]
    unanswerable = [r for r in graded if not r.gold.answerable]
    labels = [r.verdict.label if r.verdict else ("good" if not r.gold.answerable else "poor") for r in graded]
    return AnswerMetrics(
        good_rate=_ratio(labels.count("good"), len(graded)),
        satisfactory_or_better_rate=_ratio(labels.count("good") + labels.count("satisfactory"), len(graded)),
        key_point_coverage=_ratio(sum(r.covered for r in answerable), sum(len(r.gold.key_points) for r in answerable)),
        hallucination_rate=_ratio(sum(bool(r.verdict and r.verdict.unsupported_claims) for r in graded), len(graded)),
        abstention_accuracy=_ratio(sum(r.abstained for r in unanswerable), len(unanswerable)),
        false_abstention_rate=_ratio(sum(r.abstained for r in answerable), len(answerable)),
    )


class AnswerEvaluator:
    def __init__(self, kb: KnowledgeBase, answerer: Answerer, judge_model: BaseChatModel, judge_info: ModelInfo,
                 settings: Settings):
        self.kb = kb
        self.answerer = answerer
        self.judge = judge_model.with_structured_output(Verdict, method="json_schema")
        self.judge_info = judge_info
        self.settings = settings

    def grade(self, gold: GoldAnswer) -> Graded:
        row = Graded(gold=gold)
        analysis = self.kb.get_analysis(gold.analysis_id)
        if analysis is None:
            return row.model_copy(update={"error": f"no analysis '{gold.analysis_id}' in the knowledge base"})
        start = time.perf_counter()
        try:
            answer: Answer = self.answerer.answer(analysis, gold.question)
        except MitraError as error:
            return row.model_copy(update={"error": f"answer failed: {error}"})
        row = row.model_copy(update={"answer": answer.text, "cited": answer.cited, "abstained_before_generation": answer.abstained,
                                     "answer_ms": round((time.perf_counter() - start) * 1000, 1)})
        if answer.abstained:
            return row
        prompt = build_judge_prompt(gold.question, gold.answerable, gold.reference_answer, gold.key_points,
                                    gold.unsupported_claims, answer.sources, answer.text, self.settings)
        try:
            verdict = self.judge.invoke(prompt)
        except Exception as error:  # a judge that cannot be parsed or reached fails this row only
            return row.model_copy(update={"error": f"judge failed: {type(error).__name__}: {error}"})
        return row.model_copy(update={"verdict": verdict})

    def evaluate(self, gold: list[GoldAnswer], gold_name: str = "",
                 on_row: Callable[[Graded], None] | None = None) -> AnswerReport:
        rows = []
        for item in gold:
            rows.append(self.grade(item))
            if on_row:
                on_row(rows[-1])
        timed = [r.answer_ms for r in rows if r.answer_ms is not None]
        return AnswerReport(
            date=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            gold=gold_name,
            answering_model=self.answerer.model_info,
            judge_model=self.judge_info,
            questions=len(rows),
            answerable=sum(r.gold.answerable for r in rows),
            unanswerable=sum(not r.gold.answerable for r in rows),
            failed=[r.gold.qid for r in rows if r.error],
            metrics=metrics(rows),
            mean_answer_ms=round(sum(timed) / len(timed), 1) if timed else None,
            rows=rows,
        )


def build_evaluator(kb: KnowledgeBase, answerer: Answerer, settings: Settings) -> AnswerEvaluator:
    return AnswerEvaluator(kb, answerer, *load_chat_model(judge_settings(settings)), settings)


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def to_markdown(report: AnswerReport) -> str:
    m = report.metrics
    header = ("| Answering model | Judge | Good [%] | Satisfactory+ [%] | Key points [%] | "
              "Hallucination [%] ↓ | Abstention [%] | False abstention [%] ↓ |")
    row = (f"| {report.answering_model.model} | {report.judge_model.model} | {_percent(m.good_rate)} | "
           f"{_percent(m.satisfactory_or_better_rate)} | {_percent(m.key_point_coverage)} | "
           f"{_percent(m.hallucination_rate)} | {_percent(m.abstention_accuracy)} | {_percent(m.false_abstention_rate)} |")
    failed = f"; failed (left out): {', '.join(report.failed)}" if report.failed else ""
    return "\n".join([
        f"Gold: {report.gold} — {report.questions} questions ({report.answerable} answerable, "
        f"{report.unanswerable} unanswerable){failed}; {report.date}",
        "",
        header,
        "|---|---|" + "---|" * 6,
        row,
    ])


def save_report(report: AnswerReport, path: Path) -> None:
    path.write_text(json.dumps(report.model_dump(), indent=2, ensure_ascii=False))
