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
    # The size of the line the words were folded into, when scripts were (in an
    # equation they can outnumber the characters set in the line's own size).
    line_size: float = 0.0
    # Scripts are read from sizes and baselines only where those are measured (the text
    # layer); OCR sizes are per-line estimates.
    scripts: bool = True

    def __post_init__(self) -> None:
        self.words.sort(key=lambda w: w.x0)
        self.size = self.line_size or _dominant_size(self.words)
        main = [w.baseline for w in self.words if w.size >= 0.8 * self.size]
        self.baseline = statistics.median(main or [w.baseline for w in self.words])
        # The band is derived from the baseline: glyph boxes of math symbols are unreliable.
        self.top = self.baseline - 0.75 * self.size
        self.bottom = self.baseline + 0.25 * self.size
        self.x0 = min(w.x0 for w in self.words)
        self.x1 = max(w.x1 for w in self.words)
        self.bold = _bold_share(self.words) >= 0.6
        self.text = self.text_of(self.words)

    def text_of(self, words: list[Word]) -> str:
        """Some of the row's words (a cell) as text, scripts recovered where measured."""
        return _script_text(words, self.baseline, self.size) if self.scripts else _join_words(words)

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


# What LaTeX would read as markup: a word holding one is left as plain text.
_LATEX_SPECIAL = re.compile(r"[\\{}$^_%#&~]")


def _script_text(words: list[Word], baseline: float, size: float) -> str:
    """The words (in x order) joined, with sub- and superscripts recovered from their
    geometry: a word set smaller than the row and raised or lowered, right after
    another, is that word's script. "p" "T" "miss" -> "$p_{T}^{miss}$", "fb" "−1" ->
    "$fb^{-1}$": LaTeX-like, so the app draws it and the index reads "pT miss", "fb-1"."""
    groups: list[tuple[Word, list[Word], list[Word]]] = []  # base, subscripts, superscripts
    text = ""
    end = 0.0
    for w in words:
        role = _script_role(w, baseline, size)
        if role and groups and w.x0 - end <= 0.3 * size and not _LATEX_SPECIAL.search(w.text):
            groups[-1][1 if role == "sub" else 2].append(w)
        else:
            if groups:
                # What touches a script ("$p_{T}^{miss}$" + ".") was one word with it.
                touching = (groups[-1][1] or groups[-1][2]) and w.x0 - end <= 0.1 * size
                text += _scripted(*groups[-1]) + ("" if touching else " ")
            groups.append((w, [], []))
        end = max(end, w.x1) if role else w.x1
    return text + _scripted(*groups[-1]) if groups else text


def _script_role(w: Word, baseline: float, size: float) -> str | None:
    if w.size >= 0.85 * size:
        return None
    shift = w.baseline - baseline  # y grows downwards
    return "sup" if shift < -0.15 * size else "sub" if shift > 0.08 * size else None


def _scripted(base: Word, subs: list[Word], sups: list[Word]) -> str:
    if not (subs or sups) or _LATEX_SPECIAL.search(base.text):
        return _join_words([base, *subs, *sups])
    # The script belongs to the symbol it touches: "Collaboration," + "1" -> "Collaboration,$^{1}$".
    prefix, stem = re.match(r"(.*?)(\w*)$", base.text).groups()
    return prefix + latex_scripts(stem, " ".join(w.text for w in subs), " ".join(w.text for w in sups))


def latex_scripts(stem: str, sub: str, sup: str) -> str:
    """``stem`` with its scripts as inline maths: a symbol goes inside ("$p_{T}^{miss}$",
    "$fb^{-1}$"), a word stays outside, upright ("Collaboration$^{1}$")."""
    scripts = "".join(f"{mark}{{{text.replace('−', '-')}}}" for mark, text in (("_", sub), ("^", sup)) if text)
    return f"${stem}{scripts}$" if len(stem) <= 3 else f"{stem}${scripts}$"


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


def _build_rows(words: list[Word], side: str, body_size: float, scripts: bool = True) -> list[_Row]:
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
    rows = [_Row(g, side, scripts=scripts) for g in groups]
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
    rows = [_Row(r.words + extra[id(r)], side, r.size, scripts) if extra[id(r)] else r for r in main]
    return sorted(rows, key=lambda r: r.baseline)


def _touches(a: Word, b: Word) -> bool:
    return abs(a.x1 - b.x0) < 1.5 or abs(b.x1 - a.x0) < 1.5


def _is_stray(row: _Row, body_size: float) -> bool:
    """Scripts and a few loose symbols; a displayed equation's line ("N (i) = R · N (i),")
    has no word of two letters either, but is a line of its own."""
    return row.size < 0.85 * body_size or (len(row.words) <= 3 and not re.search(r"\w{2}", row.text))
