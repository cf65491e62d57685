"""Render the fictional ORION demo corpus: PDF notes, an analysis wiki topic and a talk.

The content is data: one YAML file per analysis in ``demo/corpus/``. Each document is
rendered like a collaboration note (title page with authors and abstract, numbered
sections, figures, tables, equations, line numbers in the margin, a running header and
page numbers), optionally in two columns, optionally "scanned" (rasterised with noise
and a slight rotation, no text layer), and once per version listed in the YAML. An
analysis may also have a wiki topic (its body as an HTML fragment: the portal wraps it in
its navigation chrome) with a talk attached to it (a PowerPoint file, python-pptx).

Usage: ``python demo/make_corpus.py OUT_DIR`` (or ``build_corpus(out_dir)``).
The output is byte-for-byte deterministic: fixed dates, ``invariant`` PDFs, seeded noise.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import io
import math
import re
import sys
import zipfile
import zlib
from pathlib import Path
from typing import Annotated, Any, Literal, Union

import numpy as np
import pypdfium2 as pdfium
import yaml
from pptx import Presentation
from pptx.util import Emu, Inches, Pt
from PIL import Image, ImageFilter
from pydantic import BaseModel, ConfigDict, Field, model_validator
from reportlab.graphics.shapes import Drawing, Group, Line, PolyLine, Polygon, Rect, String
from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_JUSTIFY
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import cm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    Flowable,
    Frame,
    KeepTogether,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from demo.portal.corpus import CorpusDocument, CorpusIndex, WikiAttachment, WikiTopic
from mitra.core.types import Analysis

CONTENT_DIR = Path(__file__).resolve().parent / "corpus"
COLLABORATION = "ORION"
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")  # Debian fonts-dejavu-core: Greek and math glyphs
SCAN_DPI = 200

PAGE_W, PAGE_H = A4
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 2.6 * cm, 2.0 * cm, 2.4 * cm, 2.2 * cm
GUTTER = 0.8 * cm


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


# --------------------------------------------------------------------------- fonts and styles


def _register_fonts() -> None:
    faces = {
        "Serif": "DejaVuSerif.ttf",
        "Serif-Bold": "DejaVuSerif-Bold.ttf",
        "Serif-Italic": "DejaVuSerif-Italic.ttf",
        "Serif-BoldItalic": "DejaVuSerif-BoldItalic.ttf",
        "Sans": "DejaVuSans.ttf",
        "Sans-Bold": "DejaVuSans-Bold.ttf",
        "Sans-Oblique": "DejaVuSans-Oblique.ttf",
        "Sans-BoldOblique": "DejaVuSans-BoldOblique.ttf",
    }
    if "Serif" in pdfmetrics.getRegisteredFontNames():
        return
    missing = [f for f in faces.values() if not (FONT_DIR / f).is_file()]
    if missing:
        raise FileNotFoundError(f"DejaVu fonts missing in {FONT_DIR}: {missing} (apt install fonts-dejavu-core)")
    for name, file in faces.items():
        pdfmetrics.registerFont(TTFont(name, str(FONT_DIR / file)))
    for family in ("Serif", "Sans"):
        italic = "Italic" if family == "Serif" else "Oblique"
        pdfmetrics.registerFontFamily(
            family, normal=family, bold=f"{family}-Bold", italic=f"{family}-{italic}",
            boldItalic=f"{family}-Bold{italic}",
        )


def _styles() -> dict[str, ParagraphStyle]:
    body = ParagraphStyle("body", fontName="Serif", fontSize=9.5, leading=12.5, alignment=TA_JUSTIFY, spaceAfter=5)
    return {
        "body": body,
        "h1": ParagraphStyle("h1", fontName="Sans-Bold", fontSize=12, leading=15, spaceBefore=9, spaceAfter=5, keepWithNext=1),
        "h2": ParagraphStyle("h2", fontName="Sans-Bold", fontSize=10.5, leading=13, spaceBefore=6, spaceAfter=4, keepWithNext=1),
        "caption": ParagraphStyle("caption", parent=body, fontSize=8.5, leading=10.5, spaceBefore=3, spaceAfter=8),
        "equation": ParagraphStyle("equation", parent=body, alignment=TA_CENTER, spaceAfter=0),
        "reference": ParagraphStyle("reference", parent=body, fontSize=8.5, leading=10.5, leftIndent=16, firstLineIndent=-16, alignment=0),
        "banner": ParagraphStyle("banner", fontName="Sans-Bold", fontSize=11, leading=14, alignment=TA_CENTER),
        "title": ParagraphStyle("title", fontName="Sans-Bold", fontSize=16, leading=20, alignment=TA_CENTER, spaceBefore=14, spaceAfter=14),
        "authors": ParagraphStyle("authors", fontName="Serif", fontSize=10, leading=13, alignment=TA_CENTER),
        "small": ParagraphStyle("small", fontName="Serif-Italic", fontSize=8.5, leading=11, alignment=TA_CENTER),
        "cell": ParagraphStyle("cell", fontName="Serif", fontSize=8.5, leading=10.5),
        "head": ParagraphStyle("head", fontName="Serif-Bold", fontSize=8.5, leading=10.5),
    }


_ALLOWED_TAGS = r"(?:i|b|sub|super|br)\b"


def markup(text: str) -> str:
    """Content is written with a few reportlab tags (<i>, <sub>, <super>) and plain ``<``/``&``.
    DejaVu Serif has no ℓ (reportlab would draw .notdef, mapped to U+0000): it is set in Sans."""
    text = re.sub(r"&(?!(?:[a-zA-Z]+|#\d+);)", "&amp;", text)
    text = re.sub(rf"<(?!/?{_ALLOWED_TAGS})", "&lt;", " ".join(text.split()))
    return text.replace("ℓ", '<font name="Sans">ℓ</font>')


# --------------------------------------------------------------------------- page furniture


class NumberedParagraph(Paragraph):
    """A paragraph that prints running line numbers in the margin, like LaTeX ``lineno``."""

    def drawOn(self, canvas: Canvas, x: float, y: float, _sW: float = 0) -> None:
        super().drawOn(canvas, x, y, _sW)
        # One counter per document: the canvas is the one object all pages share.
        first = getattr(canvas, "line_number", 0) + 1
        lines = len(self.blPara.lines)
        canvas.line_number = first + lines - 1
        ascent = getattr(self.blPara, "ascent", self.style.fontSize)
        right_column = x > PAGE_W / 2
        canvas.saveState()
        canvas.setFont("Sans", 6.5)
        canvas.setFillColor(colors.grey)
        for i in range(lines):
            baseline = y + self.height - ascent - i * self.style.leading
            if right_column:
                canvas.drawString(x + self.width + 0.35 * cm, baseline, str(first + i))
            else:
                canvas.drawRightString(x - 0.35 * cm, baseline, str(first + i))
        canvas.restoreState()


def _page_furniture(header: str):
    def draw(canvas: Canvas, doc: BaseDocTemplate) -> None:
        canvas.saveState()
        canvas.setFont("Sans-Oblique", 8)
        top = PAGE_H - MARGIN_T + 0.9 * cm
        canvas.drawString(MARGIN_L, top, header)
        canvas.drawRightString(PAGE_W - MARGIN_R, top, f"{COLLABORATION} Collaboration")
        canvas.setLineWidth(0.4)
        canvas.line(MARGIN_L, top - 4, PAGE_W - MARGIN_R, top - 4)
        canvas.setFont("Sans", 9)
        canvas.drawCentredString(PAGE_W / 2, MARGIN_B - 1.1 * cm, f"– {doc.page} –")
        canvas.restoreState()

    return draw


# --------------------------------------------------------------------------- plots


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    raw = (hi - lo) / n
    step = min((m * 10 ** math.floor(math.log10(raw)) for m in (1, 2, 2.5, 5, 10)), key=lambda s: abs(s - raw))
    first = math.ceil(lo / step - 1e-9) * step
    return [round(first + i * step, 10) for i in range(int((hi - first) / step + 1e-9) + 1)]


def _fmt(v: float) -> str:
    return f"{v:g}" if abs(v) < 1e5 else f"{v:.0e}"


class _Axes:
    """Maps data to drawing coordinates and draws the frame, ticks and labels."""

    def __init__(self, drawing: Drawing, x_range: tuple[float, float], y_range: tuple[float, float], logy: bool = False, left: float = 42):
        self.d, self.logy = drawing, logy
        self.x0, self.y0 = left, 30
        self.w, self.h = drawing.width - left - 10, drawing.height - 30 - 18
        self.xr, self.yr = x_range, y_range

    def px(self, x: float) -> float:
        lo, hi = self.xr
        return self.x0 + (x - lo) / (hi - lo) * self.w

    def py(self, y: float) -> float:
        lo, hi = self.yr
        if self.logy:
            y, lo, hi = (math.log10(max(v, 1e-12)) for v in (y, lo, hi))
        return self.y0 + (min(max(y, lo), hi) - lo) / (hi - lo) * self.h

    def text(self, x: float, y: float, s: str, size: float = 7, anchor: str = "start", font: str = "Sans") -> None:
        self.d.add(String(x, y, s, fontName=font, fontSize=size, textAnchor=anchor))

    def frame(self, x_label: str, y_label: str, tag: str, y_ticks: bool = True) -> None:
        self.d.add(Rect(self.x0, self.y0, self.w, self.h, fillColor=None, strokeWidth=0.6))
        for t in _ticks(*self.xr):
            self.d.add(Line(self.px(t), self.y0, self.px(t), self.y0 + 4, strokeWidth=0.5))
            self.text(self.px(t), self.y0 - 9, _fmt(t), anchor="middle")
        if y_ticks:
            if self.logy:
                lo, hi = (math.floor(math.log10(v)) for v in self.yr)
                ticks = [10.0**e for e in range(lo, hi + 1) if self.yr[0] <= 10.0**e <= self.yr[1]]
            else:
                ticks = _ticks(*self.yr)
            for t in ticks:
                self.d.add(Line(self.x0, self.py(t), self.x0 + 4, self.py(t), strokeWidth=0.5))
                self.text(self.x0 - 3, self.py(t) - 2.5, _fmt(t), anchor="end")
        self.text(self.x0 + self.w, 8, x_label, size=7.5, anchor="end")
        label = Group(String(0, 0, y_label, fontName="Sans", fontSize=7.5, textAnchor="end"))
        label.transform = (0, 1, -1, 0, 9, self.y0 + self.h)  # rotated 90°
        self.d.add(label)
        self.text(self.x0, self.y0 + self.h + 5, f"{COLLABORATION} Preliminary", size=7.5, font="Sans-BoldOblique")
        self.text(self.x0 + self.w, self.y0 + self.h + 5, tag, size=7, anchor="end")

    def legend(self, entries: list[tuple[str, colors.Color, str]]) -> None:
        """``entries``: (label, colour, "box" | "line" | "dot"), stacked from the top right."""
        x, y = self.x0 + self.w - 92, self.y0 + self.h - 11
        for label, color, kind in entries:
            if kind == "box":
                self.d.add(Rect(x, y, 9, 6, fillColor=color, strokeWidth=0.3))
            elif kind == "line":
                self.d.add(Line(x, y + 3, x + 9, y + 3, strokeColor=color, strokeWidth=1.2))
            else:
                self.d.add(Rect(x + 3, y + 1.5, 3, 3, fillColor=color, strokeColor=color))
            self.text(x + 13, y, label, size=6.5)
            y -= 9


def _stack(spec: StackPlot, d: Drawing) -> None:
    lo, hi = spec.x_range
    edges = np.linspace(lo, hi, spec.bins + 1)
    centers = (edges[:-1] + edges[1:]) / 2
    parts = [c.expected(centers, lo) for c in spec.backgrounds]
    total = np.sum(parts, axis=0)
    signal = spec.signal.expected(centers, lo) if spec.signal else np.zeros_like(total)
    data = np.random.default_rng(spec.seed).poisson(total + signal) if spec.data else None
    peak = max((total + signal * spec.signal_scale).max(), data.max() if data is not None else 0)
    y_range = (max(total.min() * 0.3, 0.1), peak * 30) if spec.logy else (0.0, peak * 1.35)
    ax = _Axes(d, (lo, hi), y_range, spec.logy)
    base = np.full_like(total, y_range[0])
    for comp, part in zip(spec.backgrounds, parts):
        top = base + part
        for i in range(spec.bins):
            y_a, y_b = ax.py(base[i]), ax.py(top[i])
            d.add(Rect(ax.px(edges[i]), y_a, ax.px(edges[i + 1]) - ax.px(edges[i]), y_b - y_a,
                       fillColor=colors.HexColor(comp.color), strokeWidth=0))
        base = top
    if spec.signal:
        points = []
        for i in range(spec.bins):
            y = ax.py(base[i] + signal[i] * spec.signal_scale)
            points += [ax.px(edges[i]), y, ax.px(edges[i + 1]), y]
        d.add(PolyLine(points, strokeColor=colors.HexColor(spec.signal.color), strokeWidth=1.2, strokeDashArray=[3, 2]))
    if data is not None:
        for c, n in zip(centers, data):
            err = math.sqrt(max(n, 1))
            d.add(Line(ax.px(c), ax.py(max(n - err, y_range[0])), ax.px(c), ax.py(n + err), strokeWidth=0.6))
            d.add(Rect(ax.px(c) - 1.3, ax.py(n) - 1.3, 2.6, 2.6, fillColor=colors.black, strokeWidth=0))
    ax.frame(spec.x_label, spec.y_label, spec.tag)
    legend = [("Data", colors.black, "dot")] if data is not None else []
    legend += [(c.label, colors.HexColor(c.color), "box") for c in reversed(spec.backgrounds)]
    if spec.signal:
        legend.append((spec.signal.label, colors.HexColor(spec.signal.color), "line"))
    ax.legend(legend)


def _band(spec: BandPlot, d: Drawing) -> None:
    xs, exp, obs = spec.x, np.array(spec.expected), np.array(spec.observed)
    top = max(exp.max() * (1 + spec.band2), obs.max(), spec.reference or 0) * 1.3
    ax = _Axes(d, (xs[0], xs[-1]), (0.0, top))
    for width, color in ((spec.band2, "#f5d800"), (spec.band1, "#2fa84f")):
        upper = [p for x, e in zip(xs, exp) for p in (ax.px(x), ax.py(e * (1 + width)))]
        lower = [p for x, e in reversed(list(zip(xs, exp))) for p in (ax.px(x), ax.py(e * (1 - width)))]
        d.add(Polygon(upper + lower, fillColor=colors.HexColor(color), strokeWidth=0))
    d.add(PolyLine([p for x, e in zip(xs, exp) for p in (ax.px(x), ax.py(e))], strokeWidth=1, strokeDashArray=[3, 2]))
    d.add(PolyLine([p for x, o in zip(xs, obs) for p in (ax.px(x), ax.py(o))], strokeWidth=1.2))
    for x, o in zip(xs, obs):
        d.add(Rect(ax.px(x) - 1.3, ax.py(o) - 1.3, 2.6, 2.6, fillColor=colors.black, strokeWidth=0))
    if spec.reference is not None:
        d.add(Line(ax.x0, ax.py(spec.reference), ax.x0 + ax.w, ax.py(spec.reference), strokeColor=colors.red, strokeWidth=0.8))
    ax.frame(spec.x_label, spec.y_label, spec.tag)
    ax.legend([("Observed", colors.black, "line"), ("Median expected", colors.black, "line"),
               ("68% expected", colors.HexColor("#2fa84f"), "box"), ("95% expected", colors.HexColor("#f5d800"), "box")])


def _bars(spec: BarPlot, d: Drawing) -> None:
    ax = _Axes(d, (0.0, max(spec.values) * 1.15), (0.0, len(spec.labels)), left=118)
    for i, (label, value) in enumerate(zip(spec.labels, spec.values)):
        y = len(spec.labels) - i - 1
        d.add(Rect(ax.x0, ax.py(y + 0.2), ax.px(value) - ax.x0, ax.py(y + 0.8) - ax.py(y + 0.2),
                   fillColor=colors.HexColor("#4a78c2"), strokeWidth=0))
        ax.text(ax.x0 - 4, ax.py(y + 0.5) - 2.5, label, anchor="end")
    ax.frame(spec.x_label, "", spec.tag, y_ticks=False)


def _scan(spec: ScanPlot, d: Drawing) -> None:
    lo, hi = spec.x_range
    ax = _Axes(d, (lo, hi), (0.0, 6.0))
    xs = np.linspace(lo, hi, 81)
    for sigma, dash in ((spec.expected_sigma, [3, 2]), (spec.sigma, None)):
        points = [p for x in xs for p in (ax.px(x), ax.py(((x - spec.center) / sigma) ** 2))]
        d.add(PolyLine(points, strokeWidth=1.1, strokeDashArray=dash))
    for level, name in ((1.0, "68% CL"), (4.0, "95% CL")):
        d.add(Line(ax.x0, ax.py(level), ax.x0 + ax.w, ax.py(level), strokeColor=colors.grey, strokeWidth=0.5))
        ax.text(ax.x0 + 3, ax.py(level) + 2, name, size=6)
    ax.frame(spec.x_label, "−2 Δln L", spec.tag)
    ax.legend([("Observed", colors.black, "line"), ("Expected", colors.black, "line")])


def _figure(spec: StackPlot | BandPlot | BarPlot | ScanPlot, width: float) -> Drawing:
    width = min(width, 13 * cm)
    d = Drawing(width, width * (0.5 if isinstance(spec, BarPlot) else 0.62))
    {"stack": _stack, "band": _band, "bars": _bars, "scan": _scan}[spec.kind](spec, d)
    return d


# --------------------------------------------------------------------------- document rendering


def _numbering(doc: DocumentSpec) -> dict[str, str]:
    """Numbers for sections, figures, tables and equations, keyed by label, in reading order."""
    numbers: dict[str, str] = {}
    counters = {FigureBlock: 0, TableBlock: 0, Equation: 0}

    def walk(sections: list[Section], prefix: str) -> None:
        for i, section in enumerate(sections, 1):
            number = f"{prefix}{i}"
            if section.label:
                numbers[section.label] = number
            for block in section.blocks:
                if type(block) in counters:
                    counters[type(block)] += 1
                    if block.label:
                        numbers[block.label] = str(counters[type(block)])
            walk(section.subsections, f"{number}.")

    walk(doc.sections, "")
    return numbers


class _Renderer:
    def __init__(self, analysis: AnalysisSpec, doc: DocumentSpec) -> None:
        self.analysis, self.doc = analysis, doc
        self.styles = _styles()
        self.numbers = _numbering(doc)
        self.counters = {"figure": 0, "table": 0, "equation": 0}
        self.width = (PAGE_W - MARGIN_L - MARGIN_R - (GUTTER if doc.columns == 2 else 0)) / doc.columns

    def text(self, text: str) -> str:
        def ref(match: re.Match[str]) -> str:
            if match[1] not in self.numbers:
                raise KeyError(f"{self.doc.doc_id} {self.doc.version.label}: unknown reference [[{match[1]}]]")
            return self.numbers[match[1]]

        return markup(re.sub(r"\[\[([\w-]+)\]\]", ref, text))

    def title_page(self) -> list[Flowable]:
        s, doc = self.styles, self.doc
        return [
            Paragraph(f"{COLLABORATION} {doc.kind}", s["banner"]),
            Paragraph(f"{doc.doc_id} — version {doc.version.label} — {doc.version.date:%d %B %Y}", s["small"]),
            Paragraph(f"Analysis {self.analysis.id}", s["small"]),
            Spacer(1, 1.2 * cm),
            Paragraph(self.text(doc.title), s["title"]),
            Paragraph(self.text(", ".join(doc.authors)), s["authors"]),
            Spacer(1, 4),
            Paragraph(f"for the {COLLABORATION} Collaboration", s["small"]),
            Spacer(1, 1.0 * cm),
            Paragraph("Abstract", s["h2"]),
            NumberedParagraph(self.text(doc.abstract), s["body"]),
            Spacer(1, 1.5 * cm),
            Paragraph(
                f"This note is intended for {COLLABORATION} internal distribution only. "
                "All results are preliminary.", s["small"],
            ),
        ]

    def block(self, block: Block) -> Flowable:
        s = self.styles
        if isinstance(block, Para):
            return NumberedParagraph(self.text(block.text), s["body"])
        if isinstance(block, Equation):
            self.counters["equation"] += 1
            eq = Table(
                [[Paragraph(self.text(block.equation), s["equation"]), Paragraph(f"({self.counters['equation']})", s["body"])]],
                colWidths=[self.width - 1.2 * cm, 1.2 * cm],
            )
            eq.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE"), ("ALIGN", (1, 0), (1, 0), "RIGHT")]))
            return eq
        if isinstance(block, FigureBlock):
            self.counters["figure"] += 1
            caption = Paragraph(f"<b>Figure {self.counters['figure']}:</b> {self.text(block.caption)}", s["caption"])
            return KeepTogether([Spacer(1, 4), _figure(block.figure, self.width), caption])
        self.counters["table"] += 1
        caption = Paragraph(f"<b>Table {self.counters['table']}:</b> {self.text(block.caption)}", s["caption"])
        rows = [[Paragraph(self.text(c), s["head"]) for c in block.table.header]]
        rows += [[Paragraph(self.text(c), s["cell"]) for c in row] for row in block.table.rows]
        table = Table(rows, hAlign="CENTER", repeatRows=1)
        table.setStyle(TableStyle([
            ("LINEABOVE", (0, 0), (-1, 0), 0.8, colors.black),
            ("LINEBELOW", (0, 0), (-1, 0), 0.5, colors.black),
            ("LINEBELOW", (0, -1), (-1, -1), 0.8, colors.black),
            ("TOPPADDING", (0, 0), (-1, -1), 1.5),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
        ]))
        return KeepTogether([caption, table, Spacer(1, 8)])

    def section(self, section: Section, number: str) -> list[Flowable]:
        style = self.styles["h1" if "." not in number else "h2"]
        out: list[Flowable] = [NumberedParagraph(f"{number}&nbsp;&nbsp;{self.text(section.title)}", style)]
        out += [self.block(b) for b in section.blocks]
        for i, sub in enumerate(section.subsections, 1):
            out += self.section(sub, f"{number}.{i}")
        return out

    def story(self) -> list[Flowable]:
        story = self.title_page()
        if self.doc.columns == 2:
            story.append(NextPageTemplate("body"))
        story.append(PageBreak())
        for i, section in enumerate(self.doc.sections, 1):
            story += self.section(section, str(i))
        if self.doc.references:
            story.append(Paragraph("References", self.styles["h1"]))
            story += [Paragraph(f"[{i}]&nbsp;{self.text(r)}", self.styles["reference"]) for i, r in enumerate(self.doc.references, 1)]
        return story

    def render(self) -> tuple[bytes, int]:
        doc = self.doc
        header = doc.header.format(analysis=self.analysis.id, doc_id=doc.doc_id, version=doc.version.label)
        buffer = io.BytesIO()
        template = BaseDocTemplate(
            buffer, pagesize=A4, invariant=1, title=doc.title, author=f"{COLLABORATION} Collaboration",
            subject=f"{self.analysis.id} {doc.kind} {doc.version.label}", creator="MITRA demo/make_corpus.py",
        )
        furniture = _page_furniture(header)
        full = Frame(MARGIN_L, MARGIN_B, PAGE_W - MARGIN_L - MARGIN_R, PAGE_H - MARGIN_T - MARGIN_B, id="full")
        templates = [PageTemplate("first", [full], onPage=furniture)]
        if doc.columns == 2:
            columns = [
                Frame(MARGIN_L + i * (self.width + GUTTER), MARGIN_B, self.width, PAGE_H - MARGIN_T - MARGIN_B, id=f"col{i}")
                for i in range(2)
            ]
            templates.append(PageTemplate("body", columns, onPage=furniture))
        template.addPageTemplates(templates)
        template.build(self.story())
        return buffer.getvalue(), template.page


def scan(pdf: bytes, seed: int, date: dt.date) -> tuple[bytes, int]:
    """Rasterise ``pdf`` like a photocopy: grey, slightly rotated, noisy, JPEG, no text layer."""
    rng = np.random.default_rng(seed)
    pages = []
    for page in pdfium.PdfDocument(pdf):
        image = page.render(scale=SCAN_DPI / 72, grayscale=True).to_pil().convert("L")
        image = image.rotate(float(rng.uniform(-0.9, 0.9)), resample=Image.Resampling.BICUBIC, fillcolor=255)
        pixels = np.asarray(image, dtype=np.float32) + rng.normal(0, 7, (image.height, image.width))
        pages.append(Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.5)))
    out = io.BytesIO()
    # Pillow writes greyscale pages as JPEG streams; fixed dates keep the file reproducible.
    stamp = dt.datetime.combine(date, dt.time(9, 0)).timetuple()
    pages[0].save(out, "PDF", save_all=True, append_images=pages[1:], resolution=SCAN_DPI, quality=65,
                  creationDate=stamp, modDate=stamp, producer=f"{COLLABORATION} scan station")
    return out.getvalue(), len(pages)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------- wiki topic and talk


def anchor(title: str) -> str:
    """TWiki's anchor of a heading: its words run together ("Analysis recipe" -> "AnalysisRecipe")."""
    return "".join(w[:1].upper() + w[1:] for w in re.findall(r"[A-Za-z0-9]+", title))


def _html(text: str) -> str:
    """Escaped text keeping the content's few inline tags (<i>, <b>, <sub>; <super> is <sup>)."""
    escaped = html.escape(" ".join(text.split()), quote=False)
    escaped = re.sub(r"&lt;(/?)(i|b|sub)&gt;", r"<\1\2>", escaped)
    return re.sub(r"&lt;(/?)super&gt;", r"<\1sup>", escaped)


def wiki_body(wiki: WikiSpec) -> str:
    """The topic's text as the wiki renders it: its title (the author's ``---+!!`` heading),
    then headings with anchors, paragraphs and tables."""
    out = [f'<h1 id="{anchor(wiki.title)}">{_html(wiki.title)}</h1>']

    def walk(sections: list[Section], level: int) -> None:
        for section in sections:
            name = anchor(section.title)
            out.append(f'<h{level} id="{name}"><a name="{name}"></a>{_html(section.title)}</h{level}>')
            for block in section.blocks:
                if isinstance(block, Para):
                    out.append(f"<p>{_html(block.text)}</p>")
                elif isinstance(block, TableBlock):
                    head = "".join(f"<th>{_html(c)}</th>" for c in block.table.header)
                    rows = "".join("<tr>" + "".join(f"<td>{_html(c)}</td>" for c in row) + "</tr>"
                                   for row in block.table.rows)
                    out.append(f'<table class="twikiTable"><caption>{_html(block.caption)}</caption>'
                               f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
                else:
                    raise ValueError(f"wiki topic {wiki.topic}: only paragraphs and tables, not {type(block).__name__}")
            walk(section.subsections, level + 1)

    walk(wiki.sections, 2)
    return "\n".join(out) + "\n"


def _fixed_zip(blob: bytes, date: dt.date) -> bytes:
    """The same zip with every member stamped ``date``: python-pptx stamps the time of saving."""
    out = io.BytesIO()
    stamp = (date.year, date.month, date.day, 9, 0, 0)
    with zipfile.ZipFile(io.BytesIO(blob)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for member in source.infolist():
            target.writestr(zipfile.ZipInfo(member.filename, stamp), source.read(member),
                            compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def render_talk(talk: TalkSpec, author: str) -> bytes:
    """A 16:9 deck: a title slide, then title-and-content slides (a table below the bullets
    where a slide has one) with their speaker notes."""
    deck = Presentation()
    deck.slide_width, deck.slide_height = Inches(13.333), Inches(7.5)
    title_layout, content_layout, title_only = deck.slide_layouts[0], deck.slide_layouts[1], deck.slide_layouts[5]
    width = deck.slide_width - Inches(1.2)
    for number, spec in enumerate(talk.slides, 1):
        layout = title_layout if number == 1 else title_only if spec.table else content_layout
        slide = deck.slides.add_slide(layout)
        slide.shapes.title.text = spec.title
        if number == 1:
            slide.placeholders[1].text = "\n".join(spec.bullets)
        elif spec.table:
            box = slide.shapes.add_textbox(Inches(0.6), Inches(1.5), width, Inches(0.8)).text_frame
            box.text = "\n".join(spec.bullets)
            rows, cols = len(spec.table.rows) + 1, len(spec.table.header)
            table = slide.shapes.add_table(rows, cols, Inches(0.6), Inches(2.4), width, Inches(0.5) * rows).table
            for r, row in enumerate([spec.table.header, *spec.table.rows]):
                for c, value in enumerate(row):
                    table.cell(r, c).text = value
                    table.cell(r, c).text_frame.paragraphs[0].runs[0].font.size = Pt(20)
        else:
            body = slide.placeholders[1]
            body.left, body.width = Emu(Inches(0.6)), Emu(width)
            body.text = "\n".join(spec.bullets)
        if spec.notes:
            slide.notes_slide.notes_text_frame.text = " ".join(spec.notes.split())
    stamp = dt.datetime.combine(talk.date, dt.time(9, 0))
    props = deck.core_properties
    props.title, props.author, props.last_modified_by = talk.title, author, author
    props.created = props.modified = stamp
    props.revision = 1
    buffer = io.BytesIO()
    deck.save(buffer)
    return _fixed_zip(buffer.getvalue(), talk.date)


def _write(out_dir: Path, relative: Path, data: bytes) -> None:
    (out_dir / relative).parent.mkdir(parents=True, exist_ok=True)
    (out_dir / relative).write_bytes(data)


def build_wiki(spec: AnalysisSpec, wiki: WikiSpec, out_dir: Path) -> WikiTopic:
    """The topic's body fragment and its attached talk, written under ``out_dir``."""
    folder = Path(spec.id) / "wiki"
    body = wiki_body(wiki).encode()
    _write(out_dir, folder / f"{wiki.topic}.html", body)
    attachments = []
    if spec.talk:
        talk = render_talk(spec.talk, author=wiki.author)
        _write(out_dir, folder / spec.talk.file, talk)
        attachments.append(WikiAttachment(
            name=spec.talk.file, version=spec.talk.version, title=spec.talk.title, date=spec.talk.date,
            source=(folder / spec.talk.file).as_posix(), sha256=_sha256(talk), size=len(talk),
            slides=len(spec.talk.slides),
        ))
    return WikiTopic(analysis_id=spec.id, topic=wiki.topic, title=wiki.title, revision=wiki.revision,
                     date=wiki.date, author=wiki.author, source=(folder / f"{wiki.topic}.html").as_posix(),
                     sha256=_sha256(body), attachments=attachments)


def build_corpus(out_dir: Path, content_dir: Path = CONTENT_DIR) -> CorpusIndex:
    """Render every version of every document, and each wiki topic with its talk, into
    ``out_dir`` and write ``index.json``."""
    _register_fonts()
    out_dir.mkdir(parents=True, exist_ok=True)
    analyses, documents, wiki = [], [], []
    for spec in load_specs(content_dir):
        if spec.wiki:
            wiki.append(build_wiki(spec, spec.wiki, out_dir))
        analyses.append(Analysis(id=spec.id, title=spec.title, abstract=" ".join(spec.abstract.split()), experiment=COLLABORATION))
        for raw in spec.documents:
            for doc in resolve_versions(raw):
                pdf, pages = _Renderer(spec, doc).render()
                if doc.scanned:
                    pdf, pages = scan(pdf, zlib.crc32(f"{doc.doc_id}/{doc.version.label}".encode()), doc.version.date)
                relative = Path(spec.id) / f"{doc.doc_id}_{doc.version.label}.pdf"
                _write(out_dir, relative, pdf)
                documents.append(CorpusDocument(
                    analysis_id=spec.id, doc_id=doc.doc_id, version=doc.version.label, title=doc.title,
                    source=relative.as_posix(), sha256=_sha256(pdf), pages=pages, kind=doc.kind,
                    date=doc.version.date, size=len(pdf), columns=doc.columns, scanned=doc.scanned,
                ))
    index = CorpusIndex(collaboration=COLLABORATION, analyses=analyses, documents=documents, wiki=wiki, root=out_dir)
    index.save()
    return index


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python demo/make_corpus.py OUT_DIR", file=sys.stderr)
        return 2
    index = build_corpus(Path(argv[0]))
    for d in index.documents:
        flags = ", ".join(f for f, on in (("two-column", d.columns == 2), ("scanned", d.scanned)) if on)
        print(f"{d.analysis_id:12} {d.doc_id:18} {d.version:3} {d.pages} pages {d.size:>9,} B  {flags}")
    for topic in index.wiki:
        print(f"{topic.analysis_id:12} wiki {topic.topic} {topic.revision}: "
              + ", ".join(f"{a.name} ({a.slides} slides)" for a in topic.attachments))
    print(f"{len(index.analyses)} analyses, {len(index.documents)} files, {len(index.wiki)} wiki topic(s) -> {index.root}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
