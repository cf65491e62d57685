"""Layout: words -> rows within a column, and rows -> cells (for tables)."""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ingest.extract.layout.records import Word
from ingest.extract.layout.patterns import _CAPTION, _EQUATION_NUMBER

@dataclass
class _Row:
    """Words sharing a baseline within one column (or across the page)."""

    words: list[Word]
    side: str  # "left" | "right" | "full"

    def __post_init__(self) -> None:
        self.words.sort(key=lambda w: w.x0)
        self.size = _dominant_size(self.words)
        main = [w.baseline for w in self.words if w.size >= 0.8 * self.size]
        self.baseline = statistics.median(main or [w.baseline for w in self.words])
        # The band is derived from the baseline: glyph boxes of math symbols are unreliable.
        self.top = self.baseline - 0.75 * self.size
        self.bottom = self.baseline + 0.25 * self.size
        self.x0 = min(w.x0 for w in self.words)
        self.x1 = max(w.x1 for w in self.words)
        self.bold = _bold_share(self.words) >= 0.6
        self.text = _join_words(self.words)

    @property
    def segments(self) -> list[list[Word]]:
        """The row cut at wide horizontal gaps: table cells, or an equation and its number."""
        out: list[list[Word]] = []
        for w in self.words:
            if out and w.x0 - out[-1][-1].x1 <= 1.1 * self.size:
                out[-1].append(w)
            else:
                out.append([w])
        return out

    def is_grid(self, column_width: float) -> bool:
        """Cut into cells, and not prose: no cell as wide as a line of text (a stacked
        sub/superscript can leave a gap in a sentence), no caption, not a justified
        line whose spaces were all stretched alike."""
        segments = self.segments
        if len(segments) < 2 or _EQUATION_NUMBER.search(_join_words(segments[-1])) or _CAPTION.match(self.text):
            return False
        if max(seg[-1].x1 - seg[0].x0 for seg in segments) > 0.6 * column_width:
            return False
        gaps = [b.x0 - a.x1 for a, b in zip(self.words, self.words[1:])]
        justified = self.x1 - self.x0 >= 0.85 * column_width and max(gaps) <= 1.3 * max(min(gaps), 0.5)
        return not justified


def _join_words(words: Iterable[Word]) -> str:
    return " ".join(w.text for w in words)


def _dominant_size(words: Iterable[Word]) -> float:
    weights: Counter[float] = Counter()
    for w in words:
        weights[round(w.size, 1)] += len(w.text)
    return weights.most_common(1)[0][0] if weights else 0.0


def _bold_share(words: Iterable[Word]) -> float:
    total = bold = 0
    for w in words:
        letters = sum(ch.isalpha() for ch in w.text)
        total += letters
        bold += letters if w.bold else 0
    return bold / total if total else 0.0


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return min(a1, b1) - max(a0, b0)


def _build_rows(words: list[Word], side: str, body_size: float) -> list[_Row]:
    """Cluster words by baseline, then fold sub/superscript rows and stray symbol
    rows into the row whose baseline is nearest."""
    groups: list[list[Word]] = []
    for w in sorted(words, key=lambda w: (w.baseline, w.x0)):
        home = next(
            (g for g in reversed(groups[-4:]) if abs(g[0].baseline - w.baseline) <= 0.2 * max(g[0].size, w.size) + 0.5),
            None,
        )
        if home is None:
            groups.append([w])
        else:
            home.append(w)
    rows = [_Row(g, side) for g in groups]
    main = [r for r in rows if not _is_stray(r, body_size)]
    strays = [r for r in rows if _is_stray(r, body_size)]
    extra: dict[int, list[Word]] = defaultdict(list)
    for stray in strays:
        # A lone symbol (a radical sign hung off its baseline) may sit further away than
        # a subscript; the row it touches sideways ("√" + "s") wins over the nearest one.
        reach = (1.5 if not re.search(r"\w", stray.text) else 0.7) * stray.size
        close = [r for r in main if abs(r.baseline - stray.baseline) < max(reach, 0.7 * r.size)]
        touching = [r for r in close if any(_touches(a, b) for a in stray.words for b in r.words)]
        near = min(touching or close, key=lambda r: abs(r.baseline - stray.baseline), default=None)
        if near is not None:
            extra[id(near)].extend(stray.words)
        else:
            main.append(stray)
    rows = [_Row(r.words + extra[id(r)], side) if extra[id(r)] else r for r in main]
    return sorted(rows, key=lambda r: r.baseline)


def _touches(a: Word, b: Word) -> bool:
    return abs(a.x1 - b.x0) < 1.5 or abs(b.x1 - a.x0) < 1.5


def _is_stray(row: _Row, body_size: float) -> bool:
    return row.size < 0.85 * body_size or not re.search(r"\w{2}", row.text)
