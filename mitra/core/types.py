"""Typed records passed between pipeline stages."""

from __future__ import annotations

import hashlib
import re
from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field

from mitra.core.text import math_to_words, sentence_windows


class ChunkKind(str, Enum):
    body = "body"
    caption = "caption"
    table = "table"
    equation = "equation"


class Analysis(BaseModel):
    """One analysis: the unit a conversation locks on (tier 1 entry)."""

    id: str
    title: str
    abstract: str = ""
    experiment: str | None = None
    metadata: dict[str, str] = Field(default_factory=dict)

    @property
    def routing_text(self) -> str:
        return f"{self.title}\n{self.abstract}".strip()


class Document(BaseModel):
    """One version of one document of an analysis."""

    analysis_id: str
    doc_id: str
    version: str = "1"
    title: str = ""
    source: str = ""  # URL or path the text came from
    kept: str = ""  # this machine's copy of a downloaded source (the crawler's PDF), where one is kept
    sha256: str = ""
    pages: int | None = None
    format: str = ""  # how its text was read: pdf, markdown, latex or text
    coverage: float | None = None  # share of its words that reached a chunk
    dropped: dict[str, int] = Field(default_factory=dict)  # words left out on purpose, by kind (references, ...)
    # per kind of block read (body, table, equation, caption, heading): {"words": n, "coverage": share}
    coverage_by_kind: dict[str, dict[str, float]] = Field(default_factory=dict)

    @property
    def extent(self) -> str:
        """Its length in its own unit ("34 pages", "50 slides"); "" for one that has none
        (a web page, a Word file, text)."""
        if not self.pages:
            return ""
        unit = "slide" if self.format in ("pptx", "pdf-slides") else "page"
        return f"{self.pages} {unit}{'s' if self.pages != 1 else ''}"


class Chunk(BaseModel):
    """A retrievable passage with its provenance."""

    id: str
    analysis_id: str
    doc_id: str
    version: str
    position: int
    section: list[str] = Field(default_factory=list)
    page_start: int | None = None
    page_end: int | None = None
    kind: ChunkKind = ChunkKind.body
    text: str
    superseded: bool = False
    unit: Literal["page", "slide"] = "page"  # what page_start and page_end count
    anchor: str = ""  # the section's anchor in an HTML source ("event-selection"), where it has one

    @property
    def section_path(self) -> str:
        return " > ".join(self.section)

    @property
    def citation_label(self) -> str:
        """How the passage is named everywhere: "AN-2024-001 v3 · Backgrounds > Fakes · p. 12";
        a talk's passage says "slide 3", a web page's names its section anchor ("#fakes")."""
        return " · ".join(p for p in (f"{self.doc_id} {version_label(self.version)}", self.section_path,
                                      f"#{self.anchor}" if self.anchor else "", self.page_label) if p)

    @property
    def page_label(self) -> str:
        if self.page_start is None:
            return ""
        one, many = ("slide", "slides") if self.unit == "slide" else ("p.", "pp.")
        if self.page_end in (None, self.page_start):
            return f"{one} {self.page_start}"
        return f"{many} {self.page_start}-{self.page_end}"

    @property
    def index_text(self) -> str:
        """What the embedder and BM25 see: the section path gives a paragraph its context
        ("Systematic uncertainties > ..."), which generic questions lean on; maths kept
        for display as $...$ is read as words."""
        text = math_to_words(self.text)
        return f"{self.section_path}\n{text}" if self.section else text

    def index_windows(self, words: int) -> list[str]:
        """``index_text`` cut into sentence runs of at most ``words`` words, each under the
        section path; none when the paragraph is one run already (its window would be
        ``index_text`` itself)."""
        runs = sentence_windows(math_to_words(self.text), words)
        if len(runs) < 2:
            return []
        return [f"{self.section_path}\n{run}" if self.section else run for run in runs]


def version_label(version: str) -> str:
    """"2" -> "v2", "v2" stays "v2": for display next to a document id."""
    return version if version[:1].lower() == "v" else f"v{version}"


def chunk_id(doc_id: str, version: str, position: int, text: str) -> str:
    """Deterministic: the same paragraph of the same version always gets the same id,
    so re-running ingestion upserts instead of duplicating."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:10]
    return f"{doc_id}@{version}#{position:05d}-{digest}"


_CHUNK_ID = re.compile(r"(?P<version>.+)#(?P<position>\d+)-[0-9a-f]+")


def chunk_place(item: str) -> tuple[str, int] | None:
    """("<doc>@<version>", position) of an id made by ``chunk_id``; None for any other id."""
    match = _CHUNK_ID.fullmatch(item)
    return (match["version"], int(match["position"])) if match else None


class Hit(BaseModel):
    """A chunk as returned by retrieval, with the score and rank of every stage it went through."""

    chunk: Chunk
    rank: int = 0
    scores: dict[str, float] = Field(default_factory=dict)

    @property
    def score(self) -> float:
        for stage in ("rerank", "fused", "dense", "bm25"):
            if stage in self.scores:
                return self.scores[stage]
        return 0.0

    def to_json(self, rank: int | None = None) -> dict:
        """The one JSON shape of a hit (`mitra search --json`, `mitra ask --json`, the app's
        exports); ``rank`` overrides the retrieval rank, e.g. with an answer's source number."""
        c = self.chunk
        return {"rank": self.rank if rank is None else rank, "chunk_id": c.id, "doc_id": c.doc_id,
                "version": c.version, "section": c.section_path, "page": c.page_label, "kind": c.kind.value,
                "label": c.citation_label, "text": c.text, "scores": self.scores}


class RoutedAnalysis(BaseModel):
    analysis: Analysis
    score: float
    scores: dict[str, float] = Field(default_factory=dict)
    # "strong": first by at least two of the routing signals (abstract words, abstract
    # meaning, full-text evidence), or named by its id; the fused score is no probability.
    # Measured on the public routing sets, a strong first candidate is right 69 % (rivet)
    # and 52 % (route-ft) of the time, a weak one 32 % and 30 % (README, Routing).
    confidence: Literal["strong", "weak"] = "weak"
    matched: list[str] = Field(default_factory=list)  # the question's words its title or abstract holds


class RoutingResult(BaseModel):
    """Tier 1 output: the most likely analyses for a question."""

    question: str
    candidates: list[RoutedAnalysis]

    @property
    def top(self) -> RoutedAnalysis | None:
        return self.candidates[0] if self.candidates else None

    @property
    def stands_out(self) -> bool:
        """Whether the first candidate is a strong match: otherwise the member is told that
        no analysis stands out and is asked to choose."""
        return self.top is not None and self.top.confidence == "strong"

    @property
    def margin(self) -> float:
        """Score gap between first and second candidate: small means ask the user."""
        if len(self.candidates) < 2:
            return self.candidates[0].score if self.candidates else 0.0
        return self.candidates[0].score - self.candidates[1].score
