"""Layout: a PDF whose pages are slides (a talk exported from PowerPoint, Keynote or
Beamer), ``is_slide_deck`` and ``layout_slides``.

A deck is told from a paper by three things a paper never has together: landscape
pages, few words a page, and a title set large at the top of most pages. For a
deck, each page is one section named by its title, read on its own: no heading
levels from numbering, no title page or abstract, no paragraph running on to the
next page; bullet items stay lines of their own.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence

from ingest.extract.layout.blocks import join_lines
from ingest.extract.layout.document import _document_body_size, _mark_running_furniture
from ingest.extract.layout.figures import _union
from ingest.extract.layout.records import Block, BlockKind, DocumentLayout, PageLayout

# A 4:3 slide is 1.33, 16:9 1.78, US Letter turned on its side 1.29; a portrait page is below 1.
LANDSCAPE_RATIO = 1.25
# Words of a page's text (figure text left out): a dense slide holds ~150, a paper's page 500 or more.
MAX_MEDIAN_WORDS = 200
# The title is set at least this much larger than the deck's body text, in the upper part of the page.
TITLE_SIZE_RATIO = 1.15
TITLE_ZONE = 0.4  # share of the page height, from the top (a title slide centres its title higher than this)
# Shares of pages that must be landscape, and carry a title, for the file to be a deck.
LANDSCAPE_SHARE = 0.8
TITLED_SHARE = 0.5
# A bullet glyph opening an item inside a block the layout joined: the item goes on a line of its own.
_BULLET = re.compile(r"\s+(?=[•▪‣◦■□►▸▶➢➤✓–]\s)")
_TEXT_KINDS = (BlockKind.body, BlockKind.heading, BlockKind.caption, BlockKind.equation, BlockKind.footnote)


def is_slide_deck(pages: Sequence[PageLayout]) -> bool:
    """Most pages landscape, a median page of few words, and a large title at the top
    of at least half of them."""
    if not pages:
        return False
    landscape = sum(p.width >= LANDSCAPE_RATIO * p.height for p in pages)
    if landscape < LANDSCAPE_SHARE * len(pages):
        return False
    words = [sum(len(b.text.split()) for b in p.blocks if b.kind is not BlockKind.figure) for p in pages]
    if statistics.median(words) > MAX_MEDIAN_WORDS:
        return False
    body_size = _document_body_size(pages)
    titled = sum(_slide_title(p, body_size) is not None for p in pages)
    return titled >= TITLED_SHARE * len(pages)


def layout_slides(pages: Sequence[PageLayout]) -> DocumentLayout:
    """Each slide's title as a level-1 heading opening its page, its text as one body
    block, an item a line (tables, captions, running footers, slide numbers and figure
    text set apart as for a paper)."""
    body_size = _document_body_size(pages)
    titles = [_slide_title(page, body_size) for page in pages]
    for page, title in zip(pages, titles):
        if title is not None:
            _join_title_lines(page, title)
            title.kind, title.level, title.anchor = BlockKind.heading, 1, ""
    # After the titles: a title repeated at the same height ("Outline") is no running header.
    _mark_running_furniture(pages, body_size)
    blocks: list[Block] = []
    for page, title in zip(pages, titles):
        blocks.extend([title] if title is not None else [])
        for block in page.blocks:
            if block is title:
                continue
            if block.kind is not BlockKind.body:
                blocks.append(block)
                continue
            block.text = _BULLET.sub("\n", block.text)
            last = blocks[-1] if blocks else None
            if last is not None and last.kind is BlockKind.body and last.page == block.page:
                # The slide's text is one passage, an item a line.
                last.text = f"{last.text}\n{block.text}"
                last.bbox = _union([last.bbox, block.bbox])
                last.lines += block.lines
            else:
                blocks.append(block)
    first_title = next((b.text for b in blocks if b.kind is BlockKind.heading), "")
    return DocumentLayout(blocks, first_title, "")


def _slide_title(page: PageLayout, body_size: float) -> Block | None:
    """The largest text in the upper part of the page, when it is set larger than the
    deck's body text (the topmost of equal sizes)."""
    candidates = [
        b for b in page.blocks
        if b.kind in _TEXT_KINDS
        and b.bbox[1] < TITLE_ZONE * page.height
        and b.font_size >= TITLE_SIZE_RATIO * body_size
        and re.search(r"[^\W\d_]{2}", b.text)
    ]
    return max(candidates, key=lambda b: (round(b.font_size, 1), -b.bbox[1]), default=None)


def _join_title_lines(page: PageLayout, title: Block) -> None:
    """A title wrapped over lines the layout kept apart (centred lines read as indents):
    the lines right below it in its size join it."""
    for block in list(page.blocks):
        size = title.font_size
        below = 0 <= block.bbox[1] - title.bbox[3] <= 0.8 * size
        if block is not title and block.kind is BlockKind.body and abs(block.font_size - size) < 0.05 * size and below:
            title.text = join_lines([title.text, block.text])
            title.bbox = _union([title.bbox, block.bbox])
            title.lines += block.lines
            page.blocks.remove(block)
