"""The records layout works on: words, boxes, blocks and their kinds."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Literal

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
    anchor: str = ""  # headings only: where a link lands in the source (an HTML heading's id)


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
