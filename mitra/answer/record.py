"""What an answer is, as every caller reads it: the text with its citations checked, the
numbered passages, the value a value question's answer states, and the time of each stage."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, computed_field

from mitra.answer.claims import Quote
from mitra.answer.grounding import QuestionCoverage, SentenceSupport, supported_share
from mitra.answer.multipart import PartAnswer
from mitra.answer.notes import Note, notes
from mitra.answer.prompts import CITATION, expand_citation
from mitra.core.types import Hit
from mitra.models.llm import ModelInfo


class Timings(BaseModel):
    """Milliseconds per stage. ``generate_ms`` is the whole model call, the server's prompt
    processing included; ``first_token_ms`` counts from the start of the request."""

    split_ms: float = 0.0  # the model splitting a multi-part question
    quote_ms: float | None = None  # the passage's own sentence for a value question, from the request's start
    choose_ms: float = 0.0  # the model choosing among a value question's candidate values
    retrieve_ms: float = 0.0
    rerank_ms: float = 0.0
    prompt_ms: float = 0.0
    generate_ms: float = 0.0
    first_token_ms: float | None = None
    total_ms: float = 0.0


class Answer(BaseModel):
    analysis_id: str
    question: str
    text: str
    sources: list[Hit]  # the numbered passages the model saw: sources[n - 1] is [n]
    cited: list[int]  # passage numbers the text cites, in order of first citation
    abstained: bool = False  # off-topic, or no passage cleared the relevance floor: the model was not called
    abstain_reason: Literal["off-topic", "no-relevant-passage"] | None = None
    coverage: QuestionCoverage | None = None  # how much of the question the analysis speaks of
    support: list[SentenceSupport] = []  # each sentence of the model's answer, checked against what it cites
    withheld: bool = False  # no cited sentence was supported: ``text`` says so, ``draft`` is the model's
    draft: str | None = None
    retrieved: int = 0  # passages retrieval returned, before the floor and the token budget
    model: ModelInfo | None = None  # None when the model was not called
    prompt_tokens: int | None = None  # as the server counted them
    prompt_cached_tokens: int | None = None  # of those, the ones the server had cached and did not read again
    completion_tokens: int | None = None
    ranking: str = ""  # which ranking chose the passages, in words ("fused ranking; no reranker model installed")
    parts: list[PartAnswer] = []  # a multi-part question's parts, each answered in turn; empty for one question
    quote: Quote | None = None  # a value question: the passage sentence stating it, shown before the model's prose
    value: Quote | None = None  # a value question: the value the model chose, which the answer states
    value_confidence: float | None = None  # the choice's probability, where the back end gives log-probabilities
    candidates: int = 0  # the candidate values the model chose among
    remarks: list[Note] = []  # what the answer says of itself beyond its sentences (a value not chosen surely)
    timings: Timings

    @computed_field
    @property
    def uncited(self) -> bool:
        """A generated answer that cites no passage: treat it as unsupported."""
        return not self.abstained and not self.cited

    @computed_field
    @property
    def supported_share(self) -> float | None:
        """Of the sentences that cite a passage, the share their passages support."""
        return supported_share(self.support)

    @property
    def notes(self) -> list[Note]:
        """What the checks changed in the model's answer, or found unsupported (``answer.notes``)."""
        return notes(self.support) + self.remarks

    @property
    def moved_citations(self) -> list[str]:
        """One line per sentence whose citation the support check changed after the model
        wrote it: what was streamed cited otherwise, so the answer says so."""
        return [note.text for note in self.notes if note.kind == "citation moved"]

    @property
    def cited_sources(self) -> list[tuple[int, Hit]]:
        return [(n, self.sources[n - 1]) for n in self.cited]

    def to_json(self) -> dict:
        """The one JSON shape of an answer: what `mitra ask --json` prints and the MCP `ask` tool returns."""
        return {
            "analysis_id": self.analysis_id,
            "question": self.question,
            "answer": self.text,
            "abstained": self.abstained,
            "abstain_reason": self.abstain_reason,
            "coverage": self.coverage.model_dump() if self.coverage else None,
            "withheld": self.withheld,
            "draft": self.draft,
            "uncited": self.uncited,
            "support": [s.model_dump() for s in self.support],
            "moved_citations": self.moved_citations,
            "notes": [note.model_dump() for note in self.notes],
            "quote": self.quote.model_dump() if self.quote else None,
            "value": self.value.model_dump() if self.value else None,
            "value_confidence": self.value_confidence,
            "candidates": self.candidates,
            "ranking": self.ranking,
            "supported_share": self.supported_share,
            "parts": [part.model_dump() for part in self.parts],
            "citations": [hit.to_json(rank=n) for n, hit in self.cited_sources],
            "sources": [hit.to_json(rank=n) for n, hit in enumerate(self.sources, start=1)],
            "retrieved": self.retrieved,
            "model": self.model.model_dump() if self.model else None,
            "completion_tokens": self.completion_tokens,
            "timings_ms": self.timings.model_dump(),
        }


def parse_citations(text: str, n_passages: int) -> tuple[str, list[int]]:
    """The text without the markers that point at no passage (a marker naming some
    existing passages keeps only those), and the passage numbers cited, in order of
    first citation."""
    cited: list[int] = []

    def replace(match: re.Match) -> str:
        valid, complete = expand_citation(match.group(2), n_passages)
        cited.extend(n for n in valid if n not in cited)
        if not valid:
            return ""
        return match.group(0) if complete else f"{match.group(1)}[{', '.join(map(str, valid))}]"

    return CITATION.sub(replace, text).strip(), cited


def ranking_note(system: str, cross_encoder_loaded: bool) -> str:
    """Which ranking chose the passages, as a member reads it."""
    if system == "rerank":
        return "fused ranking, reranked by the cross-encoder"
    if system == "adapted":
        return "fused ranking, reranked by the reranker adapted to this corpus"
    if system == "hybrid":
        return "fused ranking" + ("" if cross_encoder_loaded else "; no reranker model installed")
    return f"{system} ranking alone"
