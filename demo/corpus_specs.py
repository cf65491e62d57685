"""The demo corpus's content schema: one YAML file per analysis in ``demo/corpus/``, loaded
and validated, and each document resolved once per version (``only:`` filtered,
``{{values}}`` filled)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Annotated, Any, Literal, Union

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

CONTENT_DIR = Path(__file__).resolve().parent / "corpus"
COLLABORATION = "ORION"


# --------------------------------------------------------------------------- content schema


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Component(_Strict):
    """One histogram component; ``norm`` is the expected count per bin at the reference point."""

    label: str
    color: str
    shape: Literal["exp", "gauss", "flat", "power"]
    norm: float
    slope: float = 0.0  # exp: per x unit, from the range start
    mean: float = 0.0  # gauss
    sigma: float = 1.0  # gauss
    index: float = 0.0  # power: (x / x_lo) ** -index

    def expected(self, x: np.ndarray, x_lo: float) -> np.ndarray:
        if self.shape == "exp":
            return self.norm * np.exp(-self.slope * (x - x_lo))
        if self.shape == "gauss":
            return self.norm * np.exp(-0.5 * ((x - self.mean) / self.sigma) ** 2)
        if self.shape == "power":
            return self.norm * (x / x_lo) ** -self.index
        return np.full_like(x, self.norm)


class StackPlot(_Strict):
    kind: Literal["stack"]
    x_label: str
    y_label: str = "Events / bin"
    x_range: tuple[float, float]
    bins: int = 20
    logy: bool = False
    backgrounds: list[Component]
    signal: Component | None = None
    signal_scale: float = 1.0  # drawn signal is scaled up for visibility; pseudo-data is not
    data: bool = True
    seed: int = 1
    tag: str = ""  # upper-right label, e.g. "61.9 fb⁻¹ (13.6 TeV)"


class BandPlot(_Strict):
    """Expected/observed limits with ±1σ and ±2σ bands (the "Brazil" plot)."""

    kind: Literal["band"]
    x_label: str
    y_label: str
    x: list[float]
    expected: list[float]
    observed: list[float]
    band1: float = 0.3  # relative half-widths of the bands
    band2: float = 0.65
    reference: float | None = 1.0
    tag: str = ""


class BarPlot(_Strict):
    kind: Literal["bars"]
    x_label: str
    labels: list[str]
    values: list[float]
    tag: str = ""


class ScanPlot(_Strict):
    """A profile likelihood scan: -2ΔlnL parabolas, observed and expected."""

    kind: Literal["scan"]
    x_label: str
    center: float
    sigma: float
    expected_sigma: float
    x_range: tuple[float, float]
    tag: str = ""


Plot = Annotated[Union[StackPlot, BandPlot, BarPlot, ScanPlot], Field(discriminator="kind")]


class Para(_Strict):
    text: str

    @model_validator(mode="before")
    @classmethod
    def _plain(cls, value: Any) -> Any:
        return {"text": value} if isinstance(value, str) else value  # a bare YAML string is a paragraph


class Equation(_Strict):
    equation: str
    label: str | None = None


class FigureBlock(_Strict):
    figure: Plot
    caption: str
    label: str | None = None


class TableSpec(_Strict):
    header: list[str]
    rows: list[list[str]]


class TableBlock(_Strict):
    table: TableSpec
    caption: str
    label: str | None = None


Block = Union[Para, Equation, FigureBlock, TableBlock]


class Section(_Strict):
    title: str
    label: str | None = None
    blocks: list[Block] = []
    subsections: list["Section"] = []


class Version(_Strict):
    label: str
    date: dt.date
    values: dict[str, str] = {}


class DocumentSpec(_Strict):
    """One document as resolved for one version (``only:`` filtered, ``{{values}}`` filled)."""

    doc_id: str
    kind: str
    title: str
    header: str  # running header; {analysis} {doc_id} {version} are filled in
    columns: Literal[1, 2] = 1
    scanned: bool = False
    authors: list[str]
    abstract: str
    sections: list[Section]
    references: list[str] = []
    version: Version


class WikiSpec(_Strict):
    """The analysis's wiki topic: paragraphs and tables under headings (no figures or equations)."""

    topic: str = Field(pattern=r"^[A-Za-z0-9]+$")  # a TWiki WikiWord: the page's URL
    title: str
    revision: str
    date: dt.date
    author: str
    sections: list[Section]


class SlideSpec(_Strict):
    title: str
    bullets: list[str] = []
    table: TableSpec | None = None
    notes: str = ""


class TalkSpec(_Strict):
    """A talk attached to the wiki topic; the first slide is its title slide."""

    file: str = Field(pattern=r"^[A-Za-z0-9._-]+\.pptx$")
    title: str
    date: dt.date
    version: str
    slides: list[SlideSpec] = Field(min_length=1)


class AnalysisSpec(_Strict):
    id: str
    title: str
    abstract: str
    documents: list[dict[str, Any]]  # raw: resolved per version by ``resolve_versions``
    wiki: WikiSpec | None = None
    talk: TalkSpec | None = None  # attached to the wiki topic

    @model_validator(mode="after")
    def _talk_needs_a_wiki(self) -> "AnalysisSpec":
        if self.talk and not self.wiki:
            raise ValueError(f"{self.id}: a talk is attached to the wiki topic, but there is no `wiki`")
        return self


def load_specs(content_dir: Path = CONTENT_DIR) -> list[AnalysisSpec]:
    files = sorted(content_dir.glob("*.yaml"))
    if not files:
        raise FileNotFoundError(f"no analysis YAML files in {content_dir}")
    return [AnalysisSpec.model_validate(yaml.safe_load(f.read_text())) for f in files]


def _resolve(node: Any, version: str, values: dict[str, str], where: str) -> Any:
    """Drop nodes whose ``only:`` excludes ``version``; fill ``{{name}}`` from ``values``."""
    if isinstance(node, dict):
        if "only" in node and version not in node["only"]:
            return None
        return {k: _resolve(v, version, values, where) for k, v in node.items() if k != "only"}
    if isinstance(node, list):
        items = (_resolve(item, version, values, where) for item in node)
        return [item for item in items if item is not None]
    if isinstance(node, str):
        def fill(match: re.Match[str]) -> str:
            if match[1] not in values:
                raise KeyError(f"{where} {version}: no value for {{{{{match[1]}}}}}")
            return values[match[1]]

        return re.sub(r"\{\{(\w+)\}\}", fill, node)
    return node


def resolve_versions(raw: dict[str, Any]) -> list[DocumentSpec]:
    versions = [Version.model_validate(v) for v in raw.get("versions", [])]
    if not versions:
        raise ValueError(f"document {raw.get('doc_id')!r} lists no versions")
    body = {k: v for k, v in raw.items() if k != "versions"}
    return [
        DocumentSpec.model_validate(
            _resolve(body, v.label, v.values, str(raw.get("doc_id"))) | {"version": v}
        )
        for v in versions
    ]
