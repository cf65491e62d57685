"""Layout: the column gutter, found as a vertical white band."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from ingest.extract.layout.records import Word
from ingest.extract.layout.rows import _Row, _build_rows

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


def _page_rows(words: list[Word], gutter: float | None, body_size: float, scripts: bool = True) -> list[_Row]:
    """Rows per column. A row with a word crossing the gutter is full-width and takes
    in the column rows on its baseline; so does a left and a right row separated by
    no more than a word space (a full-width line whose space fell on the gutter)."""
    if gutter is None:
        return _build_rows(words, "full", body_size, scripts)
    sides: dict[str, list[Word]] = defaultdict(list)
    for w in words:
        sides["left" if w.x1 <= gutter else "right" if w.x0 >= gutter else "full"].append(w)
    full = [r.words for r in _build_rows(sides["full"], "full", body_size, scripts)]
    left = _build_rows(sides["left"], "left", body_size, scripts)
    right = _build_rows(sides["right"], "right", body_size, scripts)
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
    return [r for r in columns if id(r) not in joined] + [_Row(list(ws), "full", scripts=scripts) for ws in full]


def _same_line(full_words: list[Word], row: list[Word]) -> bool:
    base = statistics.median(w.baseline for w in full_words)
    size = max(w.size for w in full_words)
    return abs(base - statistics.median(w.baseline for w in row)) <= 0.3 * size
