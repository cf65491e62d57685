"""The figures of the demo notes, drawn with reportlab graphics: stacked histograms,
limit bands, bar charts and likelihood scans."""

from __future__ import annotations

import math

import numpy as np
from reportlab.graphics.shapes import Drawing, Group, Line, PolyLine, Polygon, Rect, String
from reportlab.lib import colors
from reportlab.lib.units import cm

from demo.corpus_specs import COLLABORATION, BandPlot, BarPlot, ScanPlot, StackPlot


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
