"""Loader for the real LHCb corpus and expert questions in ``../shared/data/lhcb``
(used by benchmarks and slow tests; the data is never copied into the repository).

The corpus has no titles: the first sentence of the abstract stands in for one.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Iterator

from pydantic import BaseModel

from mitra.evaluation import GoldQuery
from mitra.indexing import JsonlAnalysis, JsonlDocument
from mitra.text import clean_latex, split_sentences


def shared_dir() -> Path | None:
    """``$MITRA_SHARED_DIR``, else ``../shared`` beside the repository, if present."""
    named = os.environ.get("MITRA_SHARED_DIR")
    candidate = Path(named) if named else Path(__file__).resolve().parents[2] / "shared"
    return candidate if (candidate / "data").is_dir() else None


class LHCbPaper(BaseModel):
    arxiv_id: str
    abstract: str
    text: str

    @property
    def title(self) -> str:
        first = split_sentences(clean_latex(self.abstract))
        title = first[0] if first else self.arxiv_id
        return title if len(title) <= 160 else title[:157].rsplit(" ", 1)[0] + "…"

    def record(self, full_text: bool) -> JsonlAnalysis:
        documents = [JsonlDocument(doc_id="paper", version="1", title=self.title, text=self.text)] if full_text else []
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


def gold_queries(questions: list[ExpertQuestion], titles: dict[str, str]) -> list[GoldQuery]:
    """Retrieval runs inside the question's paper (the locked tier); routing is asked
    the question prefixed with the paper's title, since the bare questions are generic."""
    return [
        GoldQuery(
            qid=f"lhcb-{i:02d}",
            query=q.question,
            analysis_id=f"LHCb-{q.arxiv_id}",
            route_query=f"{titles[q.arxiv_id]} {q.question}",
            evidence=q.evidence_text,
            set="LHCb expert",
        )
        for i, q in enumerate(questions, start=1)
    ]
