"""Layout: rows -> blocks (paragraphs split at gaps, indents, short last lines and font changes; tables) and their kinds."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from mitra.core.text import normalise_space

from ingest.extract.layout.records import Block, BlockKind, PageWords, Source
from ingest.extract.layout.patterns import _CAPTION, _NUMBERED_HEADING, _SENTENCE_END
from ingest.extract.layout.rows import _Row, _bold_share, _dominant_size
from ingest.extract.layout.figures import _union

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
        text = "\n".join(" | ".join(r.text_of(seg) for seg in r.segments) for r in rows)
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
            blocks.extend(_block_from_rows([_Row(seg, row.side, scripts=row.scripts)], page, BlockKind.body) for seg in row.segments)
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
