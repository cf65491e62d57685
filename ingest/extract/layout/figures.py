"""Layout: regions inside figures (from drawn graphics), whose text is not body text."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from ingest.extract.layout.records import BBox, Graphic, Word

def figure_regions(graphics: Sequence[Graphic], width: float, height: float, text_boxes: bool = False) -> list[BBox]:
    """Regions of the page holding a plot or diagram: clusters of drawn objects
    (found on a coarse occupancy grid) that contain a raster image, a curve, or
    many short strokes (tick marks). Table rules — a few long lines — do not count.
    ``text_boxes`` (a slide): nor does a box with rounded corners (a Beamer block,
    a callout), whose text is the slide's."""
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
        if text_boxes and _is_rounded_box(group, box, ticks):
            continue
        if kinds["image"] or kinds["curve"] or (ticks >= 6 and not _is_ruled_table(group, box)):
            regions.append(box)
    return regions


def _is_rounded_box(group: list[Graphic], box: BBox, ticks: int) -> bool:
    """A few shapes whose curves (the rounded corners' outlines) span the box's width:
    a plot has ticks or an image, a diagram's curves are its own small strokes."""
    curves = [g for g in group if g.kind == "curve"]
    wide = all(g.bbox[2] - g.bbox[0] >= 0.8 * (box[2] - box[0]) for g in curves)
    return bool(curves) and wide and len(curves) <= 8 and ticks < 6 and not any(g.kind == "image" for g in group)


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
