"""Page layout analysis: positioned words -> typed blocks in reading order.

The rules work on words with boxes from either source — the PDF text layer or OCR —
so born-digital and scanned pages go through the same analysis:

1. ``layout_page``: margin line numbers (a column of consecutive integers at an edge)
   and the text inside figures are set aside; the column gutter is found as a
   vertical white band; words become rows per column; runs of rows with aligned
   cells become tables, the other rows paragraphs (split at gaps, first-line
   indents, short last lines and font changes); blocks are tagged (caption,
   equation, footnote, page number) and put in reading order: full-width blocks
   in place, and between them the left column before the right one.
2. ``layout_document``: the rules that need every page — running headers and
   footers (text repeated at the same height), heading levels (numbering, then
   font size), title, abstract and title-page front matter, the references
   section and author lists.

Coordinates are PDF points with the origin at the top left of the page.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Literal

from mitra.text import normalise_space

BBox = tuple[float, float, float, float]  # x0, top, x1, bottom
Source = Literal["text", "ocr"]


class BlockKind(str, Enum):
    title = "title"
    heading = "heading"
    abstract = "abstract"
    body = "body"
    caption = "caption"
    table = "table"
    equation = "equation"
    footnote = "footnote"
    # Furniture: kept as blocks for inspection, never embedded.
    figure = "figure"  # text drawn inside a figure: axis labels, legends
    page_number = "page_number"
    line_numbers = "line_numbers"
    header = "header"
    footer = "footer"
    front_matter = "front_matter"  # title-page lines other than title and abstract
    author_list = "author_list"
    references = "references"


FURNITURE = frozenset(
    {
        BlockKind.figure,
        BlockKind.page_number,
        BlockKind.line_numbers,
        BlockKind.header,
        BlockKind.footer,
        BlockKind.front_matter,
        BlockKind.author_list,
        BlockKind.references,
    }
)


@dataclass(frozen=True)
class Word:
    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float
    bold: bool = False
    baseline: float = -1.0  # y of the text baseline; OCR gives the line's bottom

    def __post_init__(self) -> None:
        if self.baseline < 0:
            object.__setattr__(self, "baseline", self.bottom)


@dataclass(frozen=True)
class Graphic:
    """A drawn object of the page (vector path or raster image), for finding figures."""

    bbox: BBox
    kind: Literal["curve", "line", "image"]  # "line": any path without curves


@dataclass(frozen=True)
class PageWords:
    """One page's raw material: what ``layout_page`` needs, whatever the source."""

    number: int  # 1-based
    width: float
    height: float
    words: tuple[Word, ...]
    source: Source = "text"
    graphics: tuple[Graphic, ...] = ()


@dataclass
class Block:
    page: int
    bbox: BBox
    text: str
    kind: BlockKind = BlockKind.body
    level: int | None = None  # headings only: 1 = section, 2 = subsection, ...
    source: Source = "text"
    font_size: float = 0.0
    bold: bool = False
    lines: int = 1


@dataclass
class PageLayout:
    number: int
    width: float
    height: float
    blocks: list[Block]


@dataclass
class DocumentLayout:
    blocks: list[Block]
    title: str
    abstract: str


# --------------------------------------------------------------------------- patterns
_INTEGER = re.compile(r"^\d{1,4}$")
# A glyph with no character (U+FFFD from PDFium) or a private-use code (pieces of
# big brackets in maths fonts): nothing a reader could search for.
UNMAPPED = re.compile(r"\ufffd|[\ue000-\uf8ff]")
_CAPTION = re.compile(r"^(extended data )?(figure|fig\.|table|tab\.)\s*(\d+|[A-Z]\.?\d+)[a-z]?\s*[:.|]", re.I)
_TABLE_CAPTION = re.compile(r"^(extended data )?(table|tab\.)", re.I)
_EQUATION_NUMBER = re.compile(r"\(\s*\d+[a-z]?\s*\)$")
_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?[-–—]?\s*(\d{1,4}|[ivxlc]{1,6})\s*[-–—]?(?:\s*(?:of|/)\s*\d{1,4})?$", re.I
)
_FOOTNOTE_MARK = re.compile(r"^([\d∗*†‡§¶]|[a-z]\s)")
_SENTENCE_END = re.compile(r"[.!?:]['\")\]]?$")
_MATH_CHARS = frozenset("=+−×±<>≤≥∝→←↔⇒⇔∑∏∫√∼≈≡∞∂∇·⊗⊕∈∀∃|^_") | frozenset(
    chr(c) for c in range(0x391, 0x3CA)
)
# "3", "3.2", "3.2.", "A", "A.1", "IV." followed by the title words.
_NUMBERED_HEADING = re.compile(r"^((?:\d{1,2}\.)*\d{1,2}\.?|[A-Z](?:\.\d{1,2})*\.?|[IVX]{1,5}\.)\s+(\S.*)$")
_KNOWN_HEADINGS = re.compile(
    r"^(abstract|introduction|conclusions?|summary|acknowledge?ments?|references|bibliography|"
    r"appendix|appendices)\b",
    re.I,
)
_REFERENCES = re.compile(r"^(references|bibliography)$", re.I)
_COLLABORATION = re.compile(r"^(?:[A-Z]\.?\s+)?The \w+ Collaboration\b")
# "J. Doe", "F.R. Cavallo", "A.-M. Smith": initials then a capitalised surname.
_PERSON = re.compile(r"\b(?:[A-Z][a-z]?\.\s?-?){1,3}\s?[A-Z][\w'’\-]+")
_AFTER_ABSTRACT = re.compile(
    r"^(submitted|published|accepted|to appear|keywords|pacs|©|\(c\)|c\s\d{4}|[∗*†]|see appendix|"
    r"dedicated|this paper is dedicated|presented at|e-?mail)",
    re.I,
)


# --------------------------------------------------------------------------- rows
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


# --------------------------------------------------------------------------- line numbers
def split_line_numbers(words: Sequence[Word]) -> tuple[list[Word], list[Word]]:
    """Margin line numbers: integers aligned on one edge (left or right aligned) outside
    the text, increasing down the page in small regular steps. Found word by word,
    so numbers glued to a text line by the text layer or OCR are removed too."""
    candidates = [w for w in words if _INTEGER.match(w.text)]
    others = sorted(w.x0 for w in words if not _INTEGER.match(w.text))
    if len(candidates) < 3 or not others:
        return list(words), []
    # The text's edges; a numbered list or a table's index column sits inside them.
    text_left = others[len(others) // 20]
    text_right = sorted(w.x1 for w in words if not _INTEGER.match(w.text))[-(len(others) // 20) - 1]
    space = 0.5 * _dominant_size(words)  # more than a word space away from the text
    numbers: set[int] = set()
    for edge in ("x1", "x0"):
        for column in _aligned(candidates, edge):
            if max(w.x1 for w in column) > text_left - space and min(w.x0 for w in column) < text_right + space:
                continue
            column.sort(key=lambda w: w.top)
            steps = [int(b.text) - int(a.text) for a, b in zip(column, column[1:])]
            if not steps:
                continue
            common, count = Counter(steps).most_common(1)[0]
            # Three numbers are enough when they count up by one (a short last page).
            if 1 <= common <= 5 and count >= 0.7 * len(steps) and (len(column) >= 5 or set(steps) == {1}):
                numbers.update(id(w) for w in column)
    kept = [w for w in words if id(w) not in numbers]
    return kept, [w for w in words if id(w) in numbers]


def _aligned(words: list[Word], edge: str, tolerance: float = 2.5) -> list[list[Word]]:
    groups: list[list[Word]] = []
    for w in sorted(words, key=lambda w: getattr(w, edge)):
        if groups and getattr(w, edge) - getattr(groups[-1][-1], edge) <= tolerance:
            groups[-1].append(w)
        else:
            groups.append([w])
    return [g for g in groups if len(g) >= 3]


# --------------------------------------------------------------------------- figures
def figure_regions(graphics: Sequence[Graphic], width: float, height: float) -> list[BBox]:
    """Regions of the page holding a plot or diagram: clusters of drawn objects
    (found on a coarse occupancy grid) that contain a raster image, a curve, or
    many short strokes (tick marks). Table rules — a few long lines — do not count."""
    cell = 6.0
    cols, rows = int(width / cell) + 1, int(height / cell) + 1
    owner: dict[tuple[int, int], list[int]] = defaultdict(list)
    # Page-size backgrounds say nothing; objects reaching off the page are clipped
    # drawings whose visible part is unknown (they would swallow the captions).
    usable = [
        g
        for g in graphics
        if (g.bbox[2] - g.bbox[0]) * (g.bbox[3] - g.bbox[1]) < 0.8 * width * height
        and g.bbox[0] > -5 and g.bbox[1] > -5 and g.bbox[2] < width + 5 and g.bbox[3] < height + 5
    ]
    for i, g in enumerate(usable):
        x0, top, x1, bottom = g.bbox
        for cx in range(max(0, int((x0 - 3) / cell)), min(cols, int((x1 + 3) / cell) + 1)):
            for cy in range(max(0, int((top - 3) / cell)), min(rows, int((bottom + 3) / cell) + 1)):
                owner[(cx, cy)].append(i)
    seen: set[tuple[int, int]] = set()
    regions: list[BBox] = []
    for start in owner:
        if start in seen:
            continue
        members: set[int] = set()
        stack = [start]
        seen.add(start)
        while stack:
            cx, cy = stack.pop()
            members.update(owner[(cx, cy)])
            for nxt in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                if nxt in owner and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        group = [usable[i] for i in members]
        box = _union([g.bbox for g in group])
        if (box[2] - box[0]) < 40 or (box[3] - box[1]) < 40:
            continue
        kinds = Counter(g.kind for g in group)
        ticks = sum(
            1 for g in group if g.kind != "image" and max(g.bbox[2] - g.bbox[0], g.bbox[3] - g.bbox[1]) < 15
        )
        if kinds["image"] or kinds["curve"] or (ticks >= 6 and not _is_ruled_table(group, box)):
            regions.append(box)
    return regions


def _is_ruled_table(group: list[Graphic], box: BBox) -> bool:
    """Cell borders: short vertical strokes on a few x positions between long rules."""
    width = box[2] - box[0]
    horizontal = [g for g in group if g.bbox[3] - g.bbox[1] < 2]
    vertical = [g for g in group if g.bbox[2] - g.bbox[0] < 2]
    if len(horizontal) + len(vertical) < len(group) or not horizontal:
        return False
    long_rules = sum(g.bbox[2] - g.bbox[0] >= 0.5 * width for g in horizontal)
    columns = {round(g.bbox[0] / 2) for g in vertical}
    return long_rules >= 0.5 * len(horizontal) and len(columns) <= 12


def _union(boxes: Iterable[BBox]) -> BBox:
    boxes = list(boxes)
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _inside(w: Word, box: BBox) -> bool:
    """Word centre in the region, with room for tick labels at the sides; little room
    above and below, where captions sit."""
    cx, cy = (w.x0 + w.x1) / 2, (w.top + w.bottom) / 2
    return box[0] - 10 <= cx <= box[2] + 10 and box[1] - 4 <= cy <= box[3] + 4


# --------------------------------------------------------------------------- columns
def find_gutter(words: Sequence[Word], width: float) -> float | None:
    """x of the white band between two columns, or None for a single-column page.
    A candidate x is a gutter when the words crossing it cover little of the page's
    text height (only full-width lines do) while both sides hold plenty of text."""
    if len(words) < 20:
        return None
    total = _covered_height([(w.top, w.bottom) for w in words])
    if total <= 0:
        return None
    best: tuple[float, float] | None = None
    band = 3.0
    for step in range(int(0.3 * width), int(0.7 * width), 2):
        x = float(step)
        blocked = _covered_height([(w.top, w.bottom) for w in words if w.x0 < x + band and w.x1 > x - band])
        if best is None or blocked < best[1] or (blocked == best[1] and abs(x - width / 2) < abs(best[0] - width / 2)):
            best = (x, blocked)
    assert best is not None
    x, blocked = best
    left = _covered_height([(w.top, w.bottom) for w in words if w.x1 <= x])
    right = _covered_height([(w.top, w.bottom) for w in words if w.x0 >= x])
    # Measured on real pages: two-column pages block at most ~0.3 of the text height
    # (title and abstract), single-column ones at least ~0.45 (pages mostly figure).
    if blocked <= 0.35 * total and left >= 0.3 * total and right >= 0.15 * total and _columns_of_prose(words, x):
        return x
    return None


def _columns_of_prose(words: Sequence[Word], gutter: float) -> bool:
    """Both sides read as running text: most of their rows hold several words (a table
    or the labels of a plot beside the text do not)."""

    def prose(side: Iterable[Word]) -> bool:
        rows = Counter(round(w.baseline / 3) for w in side)
        return sum(n >= 4 for n in rows.values()) >= 0.5 * len(rows)

    return prose(w for w in words if w.x1 <= gutter) and prose(w for w in words if w.x0 >= gutter)


def _covered_height(spans: Iterable[tuple[float, float]]) -> float:
    total, end = 0.0, float("-inf")
    for top, bottom in sorted(spans):
        if top > end:
            total += bottom - top
            end = bottom
        elif bottom > end:
            total += bottom - end
            end = bottom
    return total


def _page_rows(words: list[Word], gutter: float | None, body_size: float) -> list[_Row]:
    """Rows per column. A row with a word crossing the gutter is full-width and takes
    in the column rows on its baseline; so does a left and a right row separated by
    no more than a word space (a full-width line whose space fell on the gutter)."""
    if gutter is None:
        return _build_rows(words, "full", body_size)
    sides: dict[str, list[Word]] = defaultdict(list)
    for w in words:
        sides["left" if w.x1 <= gutter else "right" if w.x0 >= gutter else "full"].append(w)
    full = [r.words for r in _build_rows(sides["full"], "full", body_size)]
    left = _build_rows(sides["left"], "left", body_size)
    right = _build_rows(sides["right"], "right", body_size)
    columns: list[_Row] = []
    for row in left + right:
        host = next((f for f in full if _same_line(f, row.words)), None)
        if host is not None:
            host.extend(row.words)
        else:
            columns.append(row)
    joined: set[int] = set()
    for a in (r for r in columns if r.side == "left"):
        for b in (r for r in columns if r.side == "right" and id(r) not in joined):
            if abs(a.baseline - b.baseline) <= 0.2 * a.size and b.x0 - a.x1 < 1.2 * a.size:
                full.append(a.words + b.words)
                joined.update((id(a), id(b)))
                break
    return [r for r in columns if id(r) not in joined] + [_Row(list(ws), "full") for ws in full]


def _same_line(full_words: list[Word], row: list[Word]) -> bool:
    base = statistics.median(w.baseline for w in full_words)
    size = max(w.size for w in full_words)
    return abs(base - statistics.median(w.baseline for w in row)) <= 0.3 * size


# --------------------------------------------------------------------------- blocks
@dataclass
class _Column:
    """Geometry of one side of the page, for indent and short-line tests."""

    left: float
    right: float
    size_tolerance: float  # relative font-size change that starts a new block


def _column_geometry(rows: list[_Row], body_size: float, source: Source) -> _Column:
    body = [r for r in rows if abs(r.size - body_size) <= 0.15 * body_size] or rows
    lefts = sorted(r.x0 for r in body)
    rights = sorted(r.x1 for r in body)
    # OCR sizes are estimates (a line full of maths reads larger): only a big change counts.
    return _Column(lefts[len(lefts) // 10], rights[(len(rights) * 9) // 10], 0.25 if source == "ocr" else 0.12)


def _table_runs(rows: list[_Row], column: _Column) -> list[tuple[int, int]]:
    """Index ranges [start, end) of rows forming tables: runs of close rows cut into
    cells, with at least two cut rows sharing a cell edge. Within a run, a short row
    (a group label) or one starting at a cell edge (a wrapped cell) belongs to it; so
    do short unpunctuated rows just above it (a header set on its own line)."""
    width = max(column.right - column.left, 1.0)
    grid = [r.is_grid(width) for r in rows]

    def short(r: _Row) -> bool:
        return r.x1 - r.x0 < 0.45 * width and len(r.words) <= 6

    def close(a: _Row, b: _Row) -> bool:
        return b.top - a.bottom <= 2.5 * a.size

    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(rows):
        if not grid[i]:
            i += 1
            continue
        edges = {round(seg[0].x0) for seg in rows[i].segments[1:]}
        j = i + 1
        while j < len(rows) and close(rows[j - 1], rows[j]):
            row = rows[j]
            if not (grid[j] or short(row) or any(abs(row.x0 - e) <= 3 for e in edges)):
                break
            if grid[j]:
                edges.update(round(seg[0].x0) for seg in row.segments[1:])
            j += 1
        while j > i and not grid[j - 1]:
            j -= 1
        cut = [rows[k] for k in range(i, j) if grid[k]]
        if len(cut) >= 2 and _cells_align(cut):
            start = i
            while (
                start > (runs[-1][1] if runs else 0)
                and short(rows[start - 1])
                and close(rows[start - 1], rows[start])
                and not _SENTENCE_END.search(rows[start - 1].text)
                and not _CAPTION.match(rows[start - 1].text)
            ):
                start -= 1
            runs.append((start, j))
        i = max(j, i + 1)
    return runs


def _cells_align(rows: list[_Row]) -> bool:
    """Most rows share a cell edge or centre: cells are set left, right or centred in
    their column, while the words of prose fall anywhere."""
    best = 0
    for anchor in (lambda seg: seg[0].x0, lambda seg: seg[-1].x1, lambda seg: (seg[0].x0 + seg[-1].x1) / 2):
        rows_at: Counter[int] = Counter()
        for r in rows:
            rows_at.update({round(anchor(seg) / 3) for seg in r.segments[1:]})
        best = max(best, max((rows_at[b - 1] + rows_at[b] + rows_at[b + 1] for b in rows_at), default=0))
    return best >= max(2, 0.6 * len(rows))


def _breaks_paragraph(prev: _Row, cur: _Row, column: _Column) -> bool:
    size = max(prev.size, cur.size)
    if cur.top - prev.bottom > 0.6 * size:
        return True
    if abs(prev.size - cur.size) > column.size_tolerance * size or prev.bold != cur.bold:
        return True
    if cur.x0 > prev.x1 or cur.x1 < prev.x0:
        return True
    if _heading_row(prev, column) or _heading_row(cur, column):
        return True  # OCR gives no bold and rough sizes: a numbered title line stands alone
    indent = cur.x0 - column.left
    if 0.8 * size < indent < 5 * size and prev.x0 - column.left < 0.5 * size:
        return True
    ended = bool(_SENTENCE_END.search(prev.text))
    if ended and prev.x1 < column.right - 3 * size:
        return True
    return ended and bool(_CAPTION.match(cur.text))


def _heading_row(row: _Row, column: _Column) -> bool:
    numbered = _NUMBERED_HEADING.match(row.text)
    return bool(
        numbered
        and row.text[0].isdigit()
        and numbered.group(2)[0].isupper()
        and len(row.words) <= 10
        and row.x1 - column.left < 0.7 * (column.right - column.left)
        and not _SENTENCE_END.search(row.text)
    )


def _block_from_rows(rows: list[_Row], page: PageWords, kind: BlockKind) -> Block:
    words = [w for r in rows for w in r.words]
    if kind is BlockKind.table:
        text = "\n".join(" | ".join(_join_words(seg) for seg in r.segments) for r in rows)
    else:
        text = join_lines([r.text for r in rows])
    return Block(
        page=page.number,
        bbox=_union([(w.x0, w.top, w.x1, w.bottom) for w in words]),
        text=text,
        kind=kind,
        source=page.source,
        font_size=_dominant_size(words),
        bold=_bold_share(words) >= 0.6,
        lines=len(rows),
    )


def join_lines(lines: Iterable[str]) -> str:
    """Join wrapped lines into running text, undoing hyphenation at line ends
    ("mecha-" + "nism" -> "mechanism")."""
    out = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        fragment = re.search(r"(\w+)-$", out)
        if fragment and line[0].islower() and not line.startswith(fragment.group(1)):
            out = out[:-1] + line
        elif fragment:
            out += line  # a compound cut at its hyphen: "proton-" + "proton", "X-" + "Ray"
        else:
            out = f"{out} {line}" if out else line
    return normalise_space(out)


def _side_blocks(rows: list[_Row], page: PageWords, body_size: float) -> list[Block]:
    if not rows:
        return []
    column = _column_geometry(rows, body_size, page.source)
    blocks: list[Block] = []
    tables = _table_runs(rows, column)
    table_starts = {start: end for start, end in tables}
    current: list[_Row] = []

    def flush() -> None:
        if current:
            blocks.append(_block_from_rows(current, page, BlockKind.body))
            current.clear()

    i = 0
    while i < len(rows):
        if i in table_starts:
            flush()
            blocks.append(_block_from_rows(rows[i : table_starts[i]], page, BlockKind.table))
            i = table_starts[i]
            continue
        row = rows[i]
        if _set_apart_in_margin(rows, i, page) and len(row.segments) > 1:
            # Header/footer lines pack separate items (page number, running title) on one row.
            flush()
            blocks.extend(_block_from_rows([_Row(seg, row.side)], page, BlockKind.body) for seg in row.segments)
        else:
            if current and _breaks_paragraph(current[-1], row, column):
                flush()
            current.append(row)
        i += 1
    flush()
    return blocks


def _set_apart_in_margin(rows: list[_Row], i: int, page: PageWords) -> bool:
    """A row in the top or bottom margin, well apart from the text towards the page
    centre (the last row of a table at the foot of a page is not)."""
    row = rows[i]
    if not _in_margin_zone(row.top, row.bottom, page.height):
        return False
    if row.top < page.height / 2:
        return i + 1 == len(rows) or rows[i + 1].top - row.bottom > 1.5 * row.size
    return i == 0 or row.top - rows[i - 1].bottom > 1.5 * row.size


def _in_margin_zone(top: float, bottom: float, height: float) -> bool:
    return bottom < 0.12 * height or top > 0.86 * height


# --------------------------------------------------------------------------- page
def layout_page(page: PageWords) -> PageLayout:
    """One page's words -> blocks in reading order, with the kinds that can be told
    from the page alone (caption, table, equation, footnote, page number, figure
    text, line numbers). Headings and document furniture come from ``layout_document``."""
    # NFKC folds math alphanumerics and ligatures ("𝑯" -> "H", "ﬁ" -> "fi").
    glyphs = (replace(w, text=_clean_glyphs(w.text)) for w in page.words)
    words, numbers = split_line_numbers([w for w in glyphs if w.text])
    regions = figure_regions(page.graphics, page.width, page.height)
    in_figure = [w for w in words if any(_inside(w, r) for r in regions)]
    figure_ids = {id(w) for w in in_figure}
    words = [w for w in words if id(w) not in figure_ids]
    body_size = _dominant_size(words)

    gutter = find_gutter(words, page.width)
    rows = _page_rows(words, gutter, body_size)
    by_side: dict[str, list[Block]] = {}
    for side in ("left", "right", "full"):
        by_side[side] = _side_blocks([r for r in rows if r.side == side], page, body_size)
    blocks = _reading_order(by_side, gutter)
    _tag_page_blocks(blocks, page, body_size, regions, by_side)
    blocks = _attach_table_captions(blocks)

    # The text drawn inside each figure, as one block per figure (left out of chunks).
    for region in regions:
        inside = [w for w in in_figure if _inside(w, region)]
        if inside:
            blocks.append(
                Block(page.number, region, _join_words(inside), BlockKind.figure, source=page.source)
            )
    if numbers:
        box = _union([(w.x0, w.top, w.x1, w.bottom) for w in numbers])
        blocks.append(
            Block(page.number, box, _join_words(numbers), BlockKind.line_numbers, source=page.source)
        )
    return PageLayout(page.number, page.width, page.height, blocks)


def _clean_glyphs(text: str) -> str:
    text = UNMAPPED.sub("", unicodedata.normalize("NFKC", text))
    text = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", "", text)
    # NFKC turns a spacing accent ("t¯") into space + combining mark: keep the letter only.
    return re.sub(r"\s[\u0300-\u036f]", "", text).strip()


def _reading_order(by_side: dict[str, list[Block]], gutter: float | None) -> list[Block]:
    """Full-width blocks stay in place; between two of them, the left column is read
    before the right one."""
    full = sorted(by_side["full"], key=lambda b: (b.bbox[1], b.bbox[0]))
    if gutter is None:
        return full
    out: list[Block] = []
    upper = float("-inf")
    for anchor in [*full, None]:
        lower = anchor.bbox[1] if anchor is not None else float("inf")
        for side in ("left", "right"):
            band = [b for b in by_side[side] if upper <= (b.bbox[1] + b.bbox[3]) / 2 < lower]
            out.extend(sorted(band, key=lambda b: b.bbox[1]))
        if anchor is not None:
            out.append(anchor)
            upper = (anchor.bbox[1] + anchor.bbox[3]) / 2
    return out


def _tag_page_blocks(
    blocks: list[Block],
    page: PageWords,
    body_size: float,
    regions: list[BBox],
    by_side: dict[str, list[Block]],
) -> None:
    for block in blocks:
        text = block.text
        zone = _in_margin_zone(block.bbox[1], block.bbox[3], page.height)
        if block.kind is BlockKind.table:
            continue
        if _CAPTION.match(text):
            block.kind = BlockKind.caption
        elif zone and _PAGE_NUMBER.match(text):
            block.kind = BlockKind.page_number
        elif _near_figure(block, regions):
            block.kind = BlockKind.figure
        elif re.fullmatch(r"(\(?[a-z]\)\s*)+", text) or len(re.findall(r"\w", text)) < 3:
            block.kind = BlockKind.figure  # sub-figure labels "(a) (b)", stray symbols
        elif page.source == "ocr" and _looks_like_plot_label(block, body_size):
            block.kind = BlockKind.figure  # a scan has no drawing objects to find plots by
        elif _is_equation(block, body_size):
            block.kind = BlockKind.equation
    _tag_footnotes(page, body_size, by_side)
    # Items sharing a margin row with a page number are the running header/footer.
    numbers = [b for b in blocks if b.kind is BlockKind.page_number]
    for block in blocks:
        if block.kind is BlockKind.body and _in_margin_zone(block.bbox[1], block.bbox[3], page.height):
            if any(_overlap(n.bbox[1], n.bbox[3], block.bbox[1], block.bbox[3]) > 0 for n in numbers):
                block.kind = BlockKind.header if block.bbox[1] < page.height / 2 else BlockKind.footer


def _near_figure(block: Block, regions: list[BBox]) -> bool:
    """Short label-like text just outside a plot (axis title, tick labels, panel label)."""
    tokens = block.text.split()
    numeric = sum(bool(re.fullmatch(r"[-−+]?[\d.,]+", t)) for t in tokens)
    if block.lines > 2 or (len(tokens) > 12 and numeric < 0.6 * len(tokens)) or _SENTENCE_END.search(block.text):
        return False
    numbered = _NUMBERED_HEADING.match(block.text)
    if numbered and numbered.group(2)[0].isupper():
        return False
    x0, top, x1, bottom = block.bbox
    return any(
        x0 >= r[0] - 40 and x1 <= r[2] + 40 and top >= r[1] - 30 and bottom <= r[3] + 30 for r in regions
    )


def _looks_like_plot_label(block: Block, body_size: float) -> bool:
    return block.font_size < 0.85 * body_size and len(block.text.split()) <= 8 and not _SENTENCE_END.search(block.text)


def _is_equation(block: Block, body_size: float) -> bool:
    text = block.text
    chars = [ch for ch in text if not ch.isspace()]
    if not chars or block.lines > 4 or block.bold or block.font_size > 1.1 * body_size:
        return False  # a heading such as "2 H → γγ"
    math = sum(ch in _MATH_CHARS for ch in chars) / len(chars)
    words = re.findall(r"[A-Za-z]{4,}", text)
    if _EQUATION_NUMBER.search(text) and math > 0.05 and len(words) <= 4:
        return True
    return math >= 0.15 and len(words) <= 2 and block.font_size >= 0.8 * body_size


def _tag_footnotes(page: PageWords, body_size: float, by_side: dict[str, list[Block]]) -> None:
    """Small print at the foot of a column: from a block opening with a note mark
    to the column's end, when nothing below it is set in body size."""
    for blocks in by_side.values():
        text_blocks = [b for b in blocks if b.kind in (BlockKind.body, BlockKind.equation, BlockKind.footnote)]
        for i, block in enumerate(text_blocks):
            below = text_blocks[i:]
            if (
                block.bbox[1] > 0.55 * page.height
                and _FOOTNOTE_MARK.match(block.text)
                and all(b.font_size < 0.92 * body_size for b in below)
            ):
                for b in below:
                    b.kind = BlockKind.footnote
                break


def _attach_table_captions(blocks: list[Block]) -> list[Block]:
    """A "Table N:" caption and the table next to it become one table block."""
    out: list[Block] = []
    used: set[int] = set()
    for i, block in enumerate(blocks):
        if i in used:
            continue
        if block.kind is BlockKind.caption and _TABLE_CAPTION.match(block.text):
            for j in (i + 1, i - 1):
                if 0 <= j < len(blocks) and j not in used and blocks[j].kind is BlockKind.table:
                    table = blocks[j]
                    merged = replace(
                        table,
                        bbox=_union([block.bbox, table.bbox]),
                        text=f"{block.text}\n{table.text}",
                        lines=block.lines + table.lines,
                    )
                    if j < i:
                        out[out.index(table)] = merged
                    else:
                        out.append(merged)
                    used.add(j)
                    break
            else:
                out.append(block)
            continue
        out.append(block)
    return out


# --------------------------------------------------------------------------- document
def layout_document(pages: Sequence[PageLayout]) -> DocumentLayout:
    """Whole-document rules over the page layouts, in reading order."""
    body_size = _document_body_size(pages)
    _mark_running_furniture(pages, body_size)
    blocks = [b for p in pages for b in p.blocks]
    _mark_headings(blocks, body_size)
    title = _mark_title_pages(pages, body_size)
    abstract = _mark_abstract(blocks)
    _mark_contents(blocks)
    _mark_back_matter(blocks)
    return DocumentLayout(blocks, title, abstract)


def _document_body_size(pages: Sequence[PageLayout]) -> float:
    sizes: Counter[float] = Counter()
    for p in pages:
        for b in p.blocks:
            if b.kind is BlockKind.body:
                sizes[round(b.font_size, 1)] += len(b.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _mark_running_furniture(pages: Sequence[PageLayout], body_size: float) -> None:
    """Text repeated at the same height in the top or bottom margin of several pages
    (digits ignored, so "Page 3 of 9" matches "Page 4 of 9"), and small print alone
    in a margin."""
    for p in pages:
        for b in p.blocks:
            # A footnote sweeps up the column below it: a footer without a note mark there is a footer.
            unmarked = b.kind is BlockKind.footnote and not _FOOTNOTE_MARK.match(b.text)
            if (b.kind is BlockKind.body or unmarked) and _is_margin_note(b, p, body_size, top=False):
                b.kind = BlockKind.footer
            elif b.kind is BlockKind.body and _is_margin_note(b, p, body_size, top=True):
                b.kind = BlockKind.header
    seen: dict[str, list[tuple[Block, float]]] = defaultdict(list)
    for p in pages:
        for b in p.blocks:
            furniture = (BlockKind.body, BlockKind.page_number, BlockKind.header, BlockKind.footer)
            if b.kind in furniture and _in_margin_zone(b.bbox[1], b.bbox[3], p.height):
                key = re.sub(r"\d+", "#", b.text.lower())
                seen[key].append((b, p.height))
    needed = 2 if len(pages) <= 4 else 3
    for group in seen.values():
        by_height: dict[int, list[tuple[Block, float]]] = defaultdict(list)
        for b, h in group:
            by_height[round(b.bbox[1] / 6)].append((b, h))
        for cluster in by_height.values():
            if len({b.page for b, _ in cluster}) < needed:
                continue
            for b, h in cluster:
                if b.kind is BlockKind.body:
                    b.kind = BlockKind.header if b.bbox[1] < h / 2 else BlockKind.footer


def _is_margin_note(block: Block, page: PageLayout, body_size: float, top: bool) -> bool:
    """Small print in the top or bottom margin with no text beyond it towards the page
    edge ("Preprint submitted to ...", a running title): a header or footer even on a
    page seen alone, where repetition cannot tell."""
    blocks = page.blocks
    in_zone = block.bbox[3] < 0.12 * page.height if top else block.bbox[1] > 0.86 * page.height
    if not in_zone or block.font_size >= 0.95 * body_size or (top and block.lines > 1):
        return False
    return not any(
        b is not block
        and (b.bbox[3] <= block.bbox[1] + 1 if top else b.bbox[1] >= block.bbox[3] - 1)
        and b.kind is not BlockKind.page_number
        and _overlap(b.bbox[0], b.bbox[2], block.bbox[0], block.bbox[2]) > 0
        for b in blocks
    )


def _mark_headings(blocks: list[Block], body_size: float) -> None:
    numbered_sizes: dict[int, list[float]] = defaultdict(list)
    candidates: list[tuple[Block, int | None]] = []
    for b in blocks:
        if b.kind is not BlockKind.body or not _heading_shaped(b):
            continue
        match = _NUMBERED_HEADING.match(b.text)
        styled = b.bold or b.font_size >= 1.1 * body_size
        if b.font_size < 0.9 * body_size:
            continue
        if match and _plausible_numbering(match.group(1), match.group(2), styled):
            depth = len([p for p in match.group(1).rstrip(".").split(".") if p])
            numbered_sizes[depth].append(b.font_size)
            candidates.append((b, depth))
        elif (styled or _KNOWN_HEADINGS.match(b.text)) and b.lines <= 2:
            candidates.append((b, None))
    levels = {depth: statistics.median(sizes) for depth, sizes in numbered_sizes.items()}
    for b, depth in candidates:
        b.kind = BlockKind.heading
        b.text = re.sub(r"^((?:\d+\.)*\d+)\.\s", r"\1 ", b.text)  # "4.2. Title" -> "4.2 Title"
        if depth is None:
            # An unnumbered heading takes the level of the numbered headings set in the
            # nearest size; top level when there are none or it is larger than all.
            depth = min(levels, key=lambda d: (abs(levels[d] - b.font_size), d)) if levels else 1
            if levels and b.font_size > max(levels.values()) + 0.5:
                depth = 1
        b.level = depth


def _heading_shaped(b: Block) -> bool:
    text = b.text
    return (
        b.lines <= 3
        and len(text) <= 150
        and len(text.split()) <= 16
        and not re.search(r"[.,;]$", text)
        and (text[0].isupper() or text[0].isdigit())
    )


def _plausible_numbering(number: str, rest: str, styled: bool) -> bool:
    if not rest[0].isalpha():
        return False  # "35 40 45": tick labels
    if rest[0].islower():
        return styled
    if number[0].isalpha() and not styled:
        return False  # "A Search for ..." is a sentence unless set as a heading
    first = number.rstrip(".").split(".")[0]
    return not first.isdigit() or int(first) <= 30


def _mark_title_pages(pages: Sequence[PageLayout], body_size: float) -> str:
    """The title is the largest text in the upper part of the first page with text.
    Pages that repeat it (a cover page, then the journal's first page) are title pages:
    there, everything but the title, the abstract and what follows the first real
    heading is front matter (institution, report numbers, authors, dates)."""
    first = next((p for p in pages if any(b.kind is not BlockKind.line_numbers for b in p.blocks)), None)
    if first is None:
        return ""
    candidates = [
        b
        for b in first.blocks
        if b.kind in (BlockKind.body, BlockKind.heading)
        and b.bbox[1] < 0.6 * first.height
        and len(b.text.split()) >= 2
        and not re.match(r"^(european|cern|organi[sz]ation)\b", b.text, re.I)
        and not (b.text[0].isdigit() and _NUMBERED_HEADING.match(b.text))
    ]
    if not candidates:
        return ""
    top = max(candidates, key=lambda b: (b.font_size, -b.bbox[1]))
    if top.font_size < 1.15 * body_size:
        return ""
    title = top.text
    key = _title_key(title)
    for p in pages[:3]:
        repeats = any(
            _title_key(b.text) == key and not _in_margin_zone(b.bbox[1], b.bbox[3], p.height)
            for b in p.blocks
            if b.kind in (BlockKind.body, BlockKind.heading)
        )
        if p.number != first.number and not repeats:
            break
        opened = False
        for b in p.blocks:
            if b.kind is BlockKind.heading and (b.text[0].isdigit() or _KNOWN_HEADINGS.match(b.text)):
                opened = opened or not re.match(r"^abstract$", b.text, re.I)
            if opened or b.kind not in (BlockKind.body, BlockKind.heading):
                continue
            if _title_key(b.text) == key:
                b.kind = BlockKind.title if b is top else BlockKind.front_matter
                b.level = None
            elif b.kind is BlockKind.body and _is_author_list(b.text):
                b.kind = BlockKind.author_list
            elif b.kind is BlockKind.body:
                b.kind = BlockKind.front_matter
            else:
                b.kind = BlockKind.front_matter if not re.match(r"^abstract", b.text, re.I) else b.kind
    return title


def _title_key(text: str) -> str:
    return re.sub(r"\W+", "", text.lower())


def _mark_abstract(blocks: list[Block]) -> str:
    """The abstract: the blocks after an "Abstract" label (up to a heading, a change of
    font size or a publication note), a block opening with "Abstract:", or else the
    first long paragraph of the title page."""
    for i, b in enumerate(blocks):
        label = re.match(r"^abstract\s*[:.—–-]?\s*", b.text, re.I)
        if not label or b.kind not in (BlockKind.heading, BlockKind.front_matter, BlockKind.body):
            continue
        rest = b.text[label.end() :]
        if rest and b.kind is not BlockKind.heading:
            b.kind = BlockKind.abstract
            b.text = rest
            return rest
        b.kind, b.level = BlockKind.heading, 1
        b.text = "Abstract"
        parts = _abstract_after(blocks, i)
        if parts:
            return "\n".join(parts)
    # No label (recent ATLAS papers): the first long front-matter paragraph.
    for b in blocks[:60]:
        if b.kind is BlockKind.front_matter and len(b.text.split()) >= 40:
            b.kind = BlockKind.abstract
            return b.text
    return ""


def _abstract_after(blocks: list[Block], label: int) -> list[str]:
    parts: list[str] = []
    size = None
    for b in blocks[label + 1 :]:
        if b.kind in FURNITURE - {BlockKind.front_matter}:
            continue
        if b.kind in (BlockKind.heading, BlockKind.title) or b.page != blocks[label].page:
            break
        if _AFTER_ABSTRACT.match(b.text) or (size is not None and abs(b.font_size - size) > 0.8):
            break
        if b.kind not in (BlockKind.body, BlockKind.front_matter, BlockKind.equation):
            break
        size = size or b.font_size
        b.kind = BlockKind.abstract
        parts.append(b.text)
    return parts


def _mark_contents(blocks: list[Block]) -> None:
    """A table of contents, up to the next heading, is front matter."""
    inside = False
    for b in blocks:
        if b.kind is BlockKind.heading:
            inside = bool(re.match(r"^(table of )?contents$", b.text, re.I))
            if inside:
                b.kind, b.level = BlockKind.front_matter, None
        elif inside and b.kind not in FURNITURE:
            b.kind = BlockKind.front_matter


def _is_author_list(text: str) -> bool:
    names = _PERSON.findall(text)
    words = len(text.split())
    return len(names) >= 3 and 2 * len(names) >= 0.4 * words


def _mark_back_matter(blocks: list[Block]) -> None:
    """References: from their heading to the next heading of the same or a higher
    level. Author list: from a "The X Collaboration" heading (on the title pages that
    line is front matter already) to the end, or blocks that are mostly names with
    initials; past the references, a page that is mostly author list is all author
    list (its affiliation lines too)."""
    in_refs: int | None = None
    in_authors = False
    seen_refs = False
    author_pages: Counter[int] = Counter()
    text_pages: Counter[int] = Counter()
    for b in blocks:
        if b.kind is BlockKind.heading:
            if in_refs is not None and (b.level or 1) <= in_refs:
                in_refs = None
            name = re.sub(r"^[\dA-Z.]+\s+", "", b.text) if _NUMBERED_HEADING.match(b.text) else b.text
            if _REFERENCES.match(name) or _REFERENCES.match(b.text):
                in_refs = b.level or 1
                seen_refs = True
                b.kind = BlockKind.references
                continue
            if _COLLABORATION.match(b.text):  # past the title pages: the author list
                in_authors = True
        if in_authors and b.kind not in FURNITURE:
            b.kind = BlockKind.author_list
        elif in_refs is not None and b.kind not in FURNITURE:
            b.kind = BlockKind.references
        elif b.kind in (BlockKind.body, BlockKind.table) and _is_author_list(b.text):
            b.kind = BlockKind.author_list
        if seen_refs and b.kind in (BlockKind.body, BlockKind.table, BlockKind.author_list, BlockKind.references):
            text_pages[b.page] += len(b.text)
            if b.kind is BlockKind.author_list:
                author_pages[b.page] += len(b.text)
    for b in blocks:
        page = b.page
        if author_pages[page] >= 0.5 * text_pages[page] > 0 and b.kind in (BlockKind.body, BlockKind.heading, BlockKind.table):
            b.kind = BlockKind.author_list


__all__ = [
    "BBox",
    "Block",
    "BlockKind",
    "DocumentLayout",
    "FURNITURE",
    "Graphic",
    "PageLayout",
    "PageWords",
    "UNMAPPED",
    "Word",
    "figure_regions",
    "find_gutter",
    "join_lines",
    "layout_document",
    "layout_page",
    "split_line_numbers",
]
