"""The real LHCb corpus and expert questions in ``../shared/data/lhcb``.

The corpus has no titles: the first sentence of the abstract stands in for one.
Routing is asked "<that sentence> <question>", since the bare questions are generic.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Iterator

from pydantic import BaseModel

from benchmarks.corpora import BenchmarkSet
from benchmarks.corpora.latex_markdown import latex_to_markdown
from mitra.evaluation.retrieval import GoldQuery
from ingest.sources.jsonl import JsonlAnalysis, JsonlDocument
from mitra.core.text import clean_latex, split_sentences


class LHCbPaper(BaseModel):
    arxiv_id: str
    abstract: str
    text: str

    @property
    def title(self) -> str:
        first = split_sentences(clean_latex(self.abstract))
        title = first[0] if first else self.arxiv_id
        return title if len(title) <= 160 else title[:157].rsplit(" ", 1)[0] + "…"

    def record(self, full_text: bool, markdown: bool = False, converter: bool = False) -> JsonlAnalysis:
        """``markdown``: the text as Markdown with LaTeX maths; ``converter``: as a
        PDF-to-Markdown converter writes it (``latex_markdown``)."""
        text = latex_to_markdown(self.text, converter, self.title) if markdown or converter else self.text
        documents = [JsonlDocument(doc_id="paper", version="1", title=self.title, text=text)] if full_text else []
        return JsonlAnalysis(
            analysis_id=f"LHCb-{self.arxiv_id}",
            title=self.title,
            abstract=clean_latex(self.abstract),
            experiment="LHCb",
            documents=documents,
        )


class ExpertQuestion(BaseModel):
    arxiv_id: str
    question: str
    evidence_text: list[str]
    answerable: bool


def iter_papers(root: Path) -> Iterator[LHCbPaper]:
    with gzip.open(root / "data/lhcb/lhcb_papers.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            yield LHCbPaper.model_validate_json(line)


def expert_questions(root: Path) -> list[ExpertQuestion]:
    data = json.loads((root / "data/lhcb/lhcb_expert_qa.json").read_text())
    return [ExpertQuestion.model_validate(q) for q in data]


def gold_queries(questions: list[ExpertQuestion], titles: dict[str, str], set_name: str = "LHCb expert") -> list[GoldQuery]:
    """Retrieval runs inside the question's paper (the locked tier); routing is asked
    the question prefixed with the paper's title."""
    return [
        GoldQuery(
            qid=f"lhcb-{i:02d}",
            query=q.question,
            analysis_id=f"LHCb-{q.arxiv_id}",
            route_query=f"{titles[q.arxiv_id]} {q.question}",
            evidence=q.evidence_text,
            set=set_name,
        )
        for i, q in enumerate(questions, start=1)
    ]


def _set(root: Path, name: str, markdown: bool, converter: bool = False) -> BenchmarkSet:
    questions = expert_questions(root)
    needed = {q.arxiv_id for q in questions}
    papers = list(iter_papers(root))
    gold = gold_queries(questions, {p.arxiv_id: p.title for p in papers}, name)
    return BenchmarkSet(
        name=name,
        records=[p.record(full_text=p.arxiv_id in needed, markdown=markdown, converter=converter) for p in papers],
        locked=[g for g in gold if g.has_gold],
        routing=gold,
    )


def lhcb_set(root: Path) -> BenchmarkSet:
    return _set(root, "lhcb", markdown=False)


def _locked_only(bench: BenchmarkSet) -> BenchmarkSet:
    """Routing is the same as ``lhcb`` (same abstracts), so it is not asked again, and the
    other papers' abstracts, which only routing reads, are not indexed."""
    bench.routing = []
    bench.records = [r for r in bench.records if r.documents]
    return bench


def lhcb_markdown_set(root: Path) -> BenchmarkSet:
    """The same papers and questions, the full texts as Markdown with LaTeX maths."""
    return _locked_only(_set(root, "lhcb-md", markdown=True))


def lhcb_converter_set(root: Path) -> BenchmarkSet:
    """The same papers and questions, the full texts as a PDF-to-Markdown converter
    writes them: numbered "## 3.2." headings, image lines, an affiliation block, and a
    reference list with no heading (``latex_markdown``, ``converter=True``)."""
    return _locked_only(_set(root, "lhcb-conv", markdown=True, converter=True))
