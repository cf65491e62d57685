"""The page a passage was cited from, drawn with the passage highlighted.

The app shows the cited page itself rather than a ``file://`` link (browsers refuse to
open those from a web page). PDFium renders the page and gives every character of its
text layer a box; the passage's letters are aligned with the page's (difflib on the two
texts reduced to lower-case letters and digits, so hyphenation, ligatures and spacing do
not matter) and the boxes of the matched characters, merged line by line, are painted
over the page. A scanned page has no text layer to align with: it is shown unmarked,
and says so.

A source without a page to draw (a PowerPoint talk, a web page, a Word or Markdown
file) is shown as text: the passage among the other passages of its slide, or of its
section, as they were indexed (``cited_text``), marked in the same yellow.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Iterable

from mitra.core.errors import MitraError
from mitra.core.text import math_to_words
from mitra.core.types import Chunk

_KEEP = re.compile(r"[a-z0-9]")
_MIN_RUN = 12  # shorter common runs are coincidences (a word or two), not the passage
_MIN_FOUND = 60  # letters of the passage that must be found on the page (or all of a shorter one)
HIGHLIGHT = (255, 214, 0, 96)  # translucent yellow, on a drawn page and around a passage shown as text


class PageUnavailable(MitraError):
    """The cited page cannot be shown: no such file or page."""


@dataclass
class CitedPage:
    png: bytes
    page: int  # 1-based
    pages: int
    highlighted: int  # line boxes painted; 0 when the passage was not found on the page
    unit: str = "page"  # "slide" for a PDF slide deck

    @property
    def caption(self) -> str:
        mark = "the cited passage highlighted" if self.highlighted else "the passage could not be located on it"
        return f"{self.unit.capitalize()} {self.page} of {self.pages}, {mark}."


@dataclass
class Passage:
    chunk: Chunk
    cited: bool
    heading: str = ""  # a part of the slide that starts here: "Speaker notes"


@dataclass
class CitedText:
    """A passage shown among the text it was cited from: its slide, or its section."""

    title: str  # "slide 3 · Results", or the section and its anchor
    passages: list[Passage]  # in reading order


def cited_text(chunks: Iterable[Chunk], cited: Chunk) -> CitedText:
    """The slide (for a talk's passage) or else the section ``cited`` is from: the passages
    of ``chunks`` (its analysis's) of the same document version that share its slides or
    its section, in reading order, the cited one marked. These are the indexed passages,
    so the text is exactly what was cited from, without re-reading the original file."""
    on_slide = cited.unit == "slide" and cited.page_start is not None

    def beside(c: Chunk) -> bool:
        if (c.doc_id, c.version) != (cited.doc_id, cited.version):
            return False
        if on_slide:  # any overlap: a passage may run over two slides
            return c.page_start is not None and c.page_start <= (cited.page_end or cited.page_start) \
                and (c.page_end or c.page_start) >= cited.page_start
        return c.section == cited.section

    around = {c.id: c for c in chunks if beside(c)}
    around[cited.id] = cited  # shown even when the store has been re-indexed since the answer
    passages, part = [], ""
    for c in sorted(around.values(), key=lambda c: c.position):
        # On a slide, the section path below the slide's title names a part of it (its notes).
        below = " > ".join(c.section[1:]) if on_slide else ""
        passages.append(Passage(c, c.id == cited.id, below if below != part else ""))
        part = below
    if on_slide:
        title = " · ".join(p for p in (cited.page_label, cited.section[0] if cited.section else "") if p)
    else:
        title = " · ".join(p for p in (f"section {cited.section_path}" if cited.section else "before the first heading",
                                       f"#{cited.anchor}" if cited.anchor else "") if p)
    return CitedText(title=title, passages=passages)


def _letters(text: str) -> tuple[str, list[int]]:
    """``text`` reduced to lower-case letters and digits, and where each came from."""
    kept, where = [], []
    for i, ch in enumerate(text.lower()):
        if _KEEP.match(ch):
            kept.append(ch)
            where.append(i)
    return "".join(kept), where


def _matched_chars(page_text: str, passage: str) -> list[int]:
    """Indexes of the page's characters that belong to the passage."""
    page, where = _letters(page_text)
    wanted, _ = _letters(math_to_words(passage))
    if not page or not wanted:
        return []
    blocks = SequenceMatcher(None, page, wanted, autojunk=False).get_matching_blocks()
    found = [where[i] for b in blocks if b.size >= _MIN_RUN for i in range(b.a, b.a + b.size)]
    return found if len(found) >= min(_MIN_FOUND, len(wanted)) else []


def _line_boxes(boxes: list[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
    """Character boxes (left, bottom, right, top) merged into one box per text line."""
    lines: list[list[float]] = []
    for left, bottom, right, top in sorted(boxes, key=lambda b: (-b[3], b[0])):
        line = next((ln for ln in lines if abs(ln[1] - bottom) < 0.5 * max(top - bottom, 1.0)), None)
        if line is None:
            lines.append([left, bottom, right, top])
        else:
            line[0], line[1], line[2], line[3] = min(line[0], left), min(line[1], bottom), max(line[2], right), max(line[3], top)
    return [tuple(ln) for ln in lines]


def render_cited_page(pdf: Path, page: int, passage: str, dpi: int = 110, unit: str = "page") -> CitedPage:
    """``pdf``'s page ``page`` (1-based) as a PNG with ``passage`` highlighted; ``unit``
    names the page in the caption ("slide" for a PDF slide deck)."""
    import pypdfium2 as pdfium
    from PIL import Image, ImageDraw

    if not pdf.is_file():
        raise PageUnavailable(f"{pdf}: the indexed PDF is no longer there")
    try:
        document = pdfium.PdfDocument(str(pdf))
    except pdfium.PdfiumError as error:
        raise PageUnavailable(f"{pdf}: cannot be opened ({error})") from None
    try:
        if not 1 <= page <= len(document):
            raise PageUnavailable(f"{pdf} has {len(document)} pages, not a page {page}")
        pdf_page = document[page - 1]
        scale = dpi / 72
        height = pdf_page.get_height()
        image = pdf_page.render(scale=scale).to_pil().convert("RGBA")
        text_page = pdf_page.get_textpage()
        chars = _matched_chars(text_page.get_text_range(), passage)
        boxes = _line_boxes([text_page.get_charbox(i) for i in chars])
        overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
        draw = ImageDraw.Draw(overlay)
        for left, bottom, right, top in boxes:
            draw.rectangle([left * scale - 2, (height - top) * scale - 2, right * scale + 2, (height - bottom) * scale + 2],
                           fill=HIGHLIGHT)
        out = io.BytesIO()
        Image.alpha_composite(image, overlay).convert("RGB").save(out, format="PNG")
        return CitedPage(png=out.getvalue(), page=page, pages=len(document), highlighted=len(boxes), unit=unit)
    finally:
        document.close()
