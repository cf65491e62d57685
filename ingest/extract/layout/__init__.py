"""Page layout analysis: positioned words -> typed blocks in reading order.

One module per part (``records``, ``patterns``, ``rows``, ``line_numbers``,
``figures``, ``columns``, ``blocks``, ``page``, ``document``, ``slides``). The rules work on words with boxes from either source — the PDF text layer or OCR —
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
3. ``is_slide_deck`` / ``layout_slides``: a talk exported as PDF (landscape pages of
   few words under a large title) is read slide by slide instead: each page one
   section named by its title.

Coordinates are PDF points with the origin at the top left of the page.
"""

from __future__ import annotations

from ingest.extract.layout.records import (
    FURNITURE, BBox, Block, BlockKind, DocumentLayout, Graphic, PageLayout, PageWords, Word,
)
from ingest.extract.layout.patterns import UNMAPPED
from ingest.extract.layout.line_numbers import split_line_numbers
from ingest.extract.layout.figures import figure_regions
from ingest.extract.layout.columns import find_gutter
from ingest.extract.layout.blocks import join_lines
from ingest.extract.layout.page import layout_page, nfkc
from ingest.extract.layout.document import layout_document
from ingest.extract.layout.slides import is_slide_deck, layout_slides


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
    "is_slide_deck",
    "find_gutter",
    "join_lines",
    "layout_document",
    "layout_page",
    "layout_slides",
    "nfkc",
    "split_line_numbers",
]
