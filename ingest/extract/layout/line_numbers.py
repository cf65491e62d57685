"""Layout: margin line numbers (a column of consecutive integers at an edge), set aside."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ingest.extract.layout.records import Word
from ingest.extract.layout.patterns import _INTEGER
from ingest.extract.layout.rows import _dominant_size

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
