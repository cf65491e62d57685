"""Layout: one page, ``layout_page``: words -> typed blocks in reading order."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace

from ingest.extract.layout.records import BBox, Block, BlockKind, PageLayout, PageWords
from ingest.extract.layout.patterns import UNMAPPED, _CAPTION, _EQUATION_NUMBER, _FOOTNOTE_MARK, _MATH_CHARS, _NUMBERED_HEADING, _PAGE_NUMBER, _SENTENCE_END, _TABLE_CAPTION
from ingest.extract.layout.rows import _dominant_size, _join_words, _overlap, latex_scripts
from ingest.extract.layout.line_numbers import split_line_numbers
from ingest.extract.layout.figures import _inside, _union, figure_regions
from ingest.extract.layout.columns import _page_rows, find_gutter
from ingest.extract.layout.blocks import _in_margin_zone, _side_blocks

def layout_page(page: PageWords, slide: bool = False) -> PageLayout:
    """One page's words -> blocks in reading order, with the kinds that can be told
    from the page alone (caption, table, equation, footnote, page number, figure
    text, line numbers). Headings and document furniture come from ``layout_document``.
    ``slide``: the page is a slide, whose text in rounded boxes is no figure's."""
    # NFKC folds math alphanumerics and ligatures ("𝑯" -> "H", "ﬁ" -> "fi"), but not ℓ.
    glyphs = (replace(w, text=_clean_glyphs(w.text)) for w in page.words)
    words, numbers = split_line_numbers([w for w in glyphs if w.text])
    regions = figure_regions(page.graphics, page.width, page.height, text_boxes=slide)
    in_figure = [w for w in words if any(_inside(w, r) for r in regions)]
    figure_ids = {id(w) for w in in_figure}
    words = [w for w in words if id(w) not in figure_ids]
    body_size = _dominant_size(words)

    gutter = find_gutter(words, page.width)
    rows = _page_rows(words, gutter, body_size, scripts=page.source == "text")
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


_SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁱⁿ"
_SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜ"
_UNICODE_SCRIPT = re.compile(rf"([^\W{_SUPERSCRIPTS}{_SUBSCRIPTS}]*)([{_SUBSCRIPTS}]*)([{_SUPERSCRIPTS}]*)")


def _clean_glyphs(text: str) -> str:
    # NFKC would make "fb⁻¹" "fb−1": the scripts are written as the layout writes them.
    if not re.search(r"[\\{}$^_]", text):
        text = _UNICODE_SCRIPT.sub(_unicode_scripts, text)
    text = UNMAPPED.sub("", nfkc(text))
    text = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", "", text)
    # NFKC turns a spacing accent ("t¯") into space + combining mark: keep the letter only.
    return re.sub(r"\s[\u0300-\u036f]", "", text).strip()


def nfkc(text: str) -> str:
    """NFKC (math italic 𝑯 -> H, ligatures), except the script ℓ (lepton), which NFKC
    would fold into a plain "l"."""
    return "ℓ".join(unicodedata.normalize("NFKC", part) for part in text.split("ℓ"))


def _unicode_scripts(match: re.Match) -> str:
    stem, sub, sup = match.groups()
    if not (sub or sup):
        return stem
    return latex_scripts(stem, unicodedata.normalize("NFKC", sub), unicodedata.normalize("NFKC", sup))


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
    if page.source == "ocr":
        _tag_plot_text_between_figures(blocks, page.height)
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


def _tag_plot_text_between_figures(blocks: list[Block], height: float) -> None:
    """On a scan, short lines read between two pieces of plot text ("35 40 45" between
    the plot and its axis title, a legend entry) are plot text too."""
    figure = [b.kind is BlockKind.figure for b in blocks]
    i = 0
    while i < len(blocks):
        j = i
        while j < len(blocks) and blocks[j].kind is BlockKind.body and _short_label(blocks[j], height):
            j += 1
        if j > i and 0 < i and j < len(blocks) and figure[i - 1] and figure[j]:
            for b in blocks[i:j]:
                b.kind = BlockKind.figure
        i = j + 1 if j > i else i + 1


def _short_label(block: Block, height: float) -> bool:
    """One short line, neither a heading nor a sentence nor in the margins (running header)."""
    numbered = _NUMBERED_HEADING.match(block.text)
    heading = numbered and numbered.group(2)[0].isupper()
    return (
        block.lines == 1
        and len(block.text.split()) <= 6
        and not heading
        and not _SENTENCE_END.search(block.text)
        and not _in_margin_zone(block.bbox[1], block.bbox[3], height)
    )


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
