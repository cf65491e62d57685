"""The brief's typed record: what ``build`` writes into a generation and every surface reads."""

from __future__ import annotations

from pydantic import BaseModel, Field

VERSION = 1  # of the record's shape: a brief of another version is rebuilt


class Place(BaseModel):
    """Where a line comes from: the passage, its document version, page or slide, and the words to highlight."""

    chunk_id: str
    doc_id: str
    version: str
    page: int | None = None
    unit: str = "page"  # what ``page`` counts: page or slide
    anchor: str = ""  # an HTML section's anchor
    highlight: str = ""  # the words of the passage to mark (the value's sentence)


class Value(BaseModel):
    """A headline value as its document states it."""

    written: str  # as its sentence writes it: "126.0 ± 0.4 (stat) ± 0.4 (sys) GeV", "5.9 σ"
    number: str  # the value, normalised ("126"), for comparing
    power: int | None = None  # "× 10⁻⁹"
    quantity: str  # the words of its clause that say what it is ("a measured mass")
    qualifiers: dict[str, list[str]] = Field(default_factory=dict)  # class -> values: {"measure": ["observed"]}
    label: str = ""  # the qualifiers in words: "observed local"
    sentence: str
    where: str  # abstract, conclusions, results
    place: Place | None = None
    changed_from: str = ""  # the value an older version of its document stated, where it differs


class Section(BaseModel):
    """One line of a document's section tree."""

    path: list[str]
    line: str  # its most central sentence, or its heading where it has no text
    place: Place | None = None


class DocumentTree(BaseModel):
    doc_id: str
    title: str
    version: str
    sections: list[Section] = Field(default_factory=list)


class Term(BaseModel):
    """An abbreviation or symbol a document defines, and where."""

    short: str  # "VBF", "p_T^miss"
    long: str  # "vector boson fusion"
    kind: str = "abbreviation"  # or symbol
    place: Place | None = None


class DocumentLine(BaseModel):
    doc_id: str
    title: str
    version: str
    kind: str  # note, talk, wiki page, slides, paper
    versions: list[str] = Field(default_factory=list)


class Brief(BaseModel):
    """An analysis at a glance."""

    version: int = VERSION
    fingerprint: str  # of the documents it was built from: rebuilt only when it changes
    analysis_id: str
    title: str
    abstract: str = ""
    documents: list[DocumentLine] = Field(default_factory=list)
    values: list[Value] = Field(default_factory=list)
    trees: list[DocumentTree] = Field(default_factory=list)
    vocabulary: list[Term] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)
    seconds: float = 0.0  # how long it took to build
