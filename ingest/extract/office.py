"""Read PowerPoint and Word files (Office Open XML) into blocks in reading order.

* PowerPoint (python-pptx): each slide is a section named by its title (the title
  placeholder, else the slide's first line of text), the slide number is every block's
  page; text frames, table cells (one table block) and group shapes are read, top to
  bottom then left to right; the speaker notes are a sub-section "Speaker notes" of
  their slide, so a hit in them is cited as such.
* Word (python-docx): the Title and "Heading n" styles are sections of level 1 and n;
  paragraphs and tables are read where they sit in the body. Word files carry no page
  numbers, so their blocks have none.

Both open the package only after ``ingest.extract.inflation.check_zip`` has inflated and
counted every member, and read it from the file handle that check read: what python-pptx
and python-docx inflate (all of it, and into memory) is bounded before they start.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from lxml.etree import XMLSyntaxError

from ingest.extract.inflation import check_zip
from ingest.extract.layout import Block, BlockKind
from ingest.extract.base import (
    BROKEN_ZIP, CorruptFileError, ExtractedDocument, Progress, finished, table_block, text_block,
)
from mitra.core.settings import Settings

SPEAKER_NOTES = "Speaker notes"
_BROKEN = (KeyError, ValueError, XMLSyntaxError, *BROKEN_ZIP)  # what a damaged package raises


@contextmanager
def _checked(path: Path, settings: Settings, kind: str) -> Iterator[BinaryIO]:
    """The file open, its members inflated and counted within the limits; what the
    reader then raises for a damaged package is said in one line."""
    with path.open("rb") as fh:
        try:
            check_zip(path, fh, settings)
            yield fh
        except _BROKEN as exc:
            raise CorruptFileError(path, f"the {kind} file is damaged ({exc})") from exc


# ---------------------------------------------------------------- PowerPoint
def read_pptx(path: Path, settings: Settings, progress: Progress | None = None) -> ExtractedDocument:
    from pptx import Presentation
    from pptx.exc import PythonPptxError

    try:
        with _checked(path, settings, "PowerPoint") as fh:
            deck = Presentation(fh)
            slides = list(deck.slides)
    except PythonPptxError as exc:
        raise CorruptFileError(path, f"the PowerPoint file is damaged ({exc})") from exc
    blocks: list[Block] = []
    inherited: dict[tuple[int, int], tuple[int, int]] = {}  # a layout placeholder's position, found once
    for number, slide in enumerate(slides, 1):
        blocks += _slide_blocks(slide, number, inherited)
        if progress is not None:
            progress(number, len(slides))
    titles = [b.text for b in blocks if b.kind is BlockKind.heading and b.level == 1]
    title = deck.core_properties.title or (titles[0] if titles else "")
    return finished(path, blocks, pages=len(slides), title=title, unit="slide", fmt="pptx")


def _slide_blocks(slide, number: int, inherited: dict[tuple[int, int], tuple[int, int]]) -> list[Block]:
    title_shape = slide.shapes.title
    title = " ".join(title_shape.text_frame.text.split()) if title_shape is not None else ""
    body = [b for b in _shape_blocks(slide.shapes, number, inherited, skip=title_shape) if b.text]
    if not title and body and body[0].kind is BlockKind.body:
        # no title placeholder: the first line of text names the slide
        first, _, rest = body[0].text.partition("\n")
        title = first
        body = ([text_block(rest, number)] if rest else []) + body[1:]
    notes = _notes(slide)
    if not (title or body or notes):
        return []
    blocks = [text_block(title or f"Slide {number}", number, BlockKind.heading, level=1), *body]
    if notes:
        blocks += [text_block(SPEAKER_NOTES, number, BlockKind.heading, level=2), text_block(notes, number)]
    return blocks


def _shape_blocks(shapes, number: int, inherited: dict[tuple[int, int], tuple[int, int]],
                  skip=None) -> Iterator[Block]:
    """Blocks of the shapes, top to bottom then left to right (a slide lists its shapes
    in drawing order); a group's shapes in place of the group."""
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    for shape in sorted(shapes, key=lambda shape: _position(shape, inherited)):
        if skip is not None and shape.shape_id == skip.shape_id:
            continue
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shape_blocks(shape.shapes, number, inherited)
        elif getattr(shape, "has_table", False) and shape.has_table:
            yield table_block([[cell.text for cell in row.cells] for row in shape.table.rows], number)
        elif shape.has_text_frame:
            yield text_block("\n".join(p.text for p in shape.text_frame.paragraphs), number)


def _position(shape, inherited: dict[tuple[int, int], tuple[int, int]]) -> tuple[int, int]:
    """Where the shape sits (top, left): its own offset, else (a placeholder that inherits
    it) its layout placeholder's, looked up once per layout and placeholder. python-pptx
    looks the layout up for every shape: 70 % of reading a 3,000-slide talk."""
    element = shape._element
    if element.y is not None and element.x is not None:
        return element.y, element.x
    if not shape.is_placeholder:
        return 0, 0
    key = (id(shape.part.slide_layout.part), shape.placeholder_format.idx)
    if key not in inherited:
        inherited[key] = (shape.top or 0, shape.left or 0)
    return inherited[key]


def _notes(slide) -> str:
    if not slide.has_notes_slide:
        return ""
    frame = slide.notes_slide.notes_text_frame
    return frame.text.strip() if frame is not None else ""


# ---------------------------------------------------------------- Word
def read_docx(path: Path, settings: Settings, progress: Progress | None = None) -> ExtractedDocument:
    import docx
    from docx.opc.exceptions import OpcError
    from docx.table import Table

    try:
        with _checked(path, settings, "Word") as fh:
            document = docx.Document(fh)
            items = list(document.iter_inner_content())
    except OpcError as exc:
        raise CorruptFileError(path, f"the Word file is damaged ({exc})") from exc
    blocks: list[Block] = []
    title = document.core_properties.title or ""
    # python-docx resolves a paragraph's style by scanning every style (90% of the read):
    # the names by style id once, and a paragraph without one has the default, no heading
    style_names = {style.style_id: style.name for style in document.styles}
    for item in items:
        if isinstance(item, Table):
            blocks.append(table_block(_table_rows(item), None))
            continue
        level = _heading_level(style_names.get(item._p.style, ""))
        if level is None:
            blocks.append(text_block(item.text, None))
            continue
        text = " ".join(item.text.split())
        blocks.append(text_block(text, None, BlockKind.heading, level=level))
        if level == 1 and not title:
            title = text
    return finished(path, blocks, pages=0, title=title, fmt="docx", progress=progress)


def _heading_level(style: str) -> int | None:
    """1 for the Title style, n for "Heading n", None for any other paragraph."""
    if style == "Title":
        return 1
    name, _, number = style.rpartition(" ")
    return int(number) if name == "Heading" and number.isdigit() else None


def _table_rows(table) -> list[list[str]]:
    """Each row's cells, a merged cell once (python-docx repeats it in every grid column it spans)."""
    rows = []
    for row in table.rows:
        cells, seen = [], set()
        for cell in row.cells:
            if id(cell._tc) not in seen:
                seen.add(id(cell._tc))
                cells.append(cell.text)
        rows.append(cells)
    return rows
