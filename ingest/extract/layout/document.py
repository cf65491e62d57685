"""Layout: the rules that need every page, ``layout_document``: running headers and footers, heading levels, title, abstract, front matter, references, author lists."""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence

from ingest.extract.layout.records import Block, BlockKind, DocumentLayout, FURNITURE, PageLayout
from ingest.extract.layout.patterns import _AFTER_ABSTRACT, _COLLABORATION, _FOOTNOTE_MARK, _KNOWN_HEADINGS, _NUMBERED_HEADING, _PERSON, _REFERENCES
from ingest.extract.layout.rows import _overlap
from ingest.extract.layout.blocks import _in_margin_zone

def layout_document(pages: Sequence[PageLayout]) -> DocumentLayout:
    """Whole-document rules over the page layouts, in reading order."""
    body_size = _document_body_size(pages)
    _mark_running_furniture(pages, body_size)
    blocks = [b for p in pages for b in p.blocks]
    _mark_headings(blocks, body_size)
    title = _mark_title_pages(pages, body_size)
    abstract = _mark_abstract(blocks)
    _mark_contents(blocks)
    _mark_back_matter(blocks)
    return DocumentLayout(blocks, title, abstract)


def _document_body_size(pages: Sequence[PageLayout]) -> float:
    sizes: Counter[float] = Counter()
    for p in pages:
        for b in p.blocks:
            if b.kind is BlockKind.body:
                sizes[round(b.font_size, 1)] += len(b.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _mark_running_furniture(pages: Sequence[PageLayout], body_size: float) -> None:
    """Text repeated at the same height in the top or bottom margin of several pages
    (digits ignored, so "Page 3 of 9" matches "Page 4 of 9"), and small print alone
    in a margin."""
    for p in pages:
        for b in p.blocks:
            # A footnote sweeps up the column below it: a footer without a note mark there is a footer.
            unmarked = b.kind is BlockKind.footnote and not _FOOTNOTE_MARK.match(b.text)
            if (b.kind is BlockKind.body or unmarked) and _is_margin_note(b, p, body_size, top=False):
                b.kind = BlockKind.footer
            elif b.kind is BlockKind.body and _is_margin_note(b, p, body_size, top=True):
                b.kind = BlockKind.header
    seen: dict[str, list[tuple[Block, float]]] = defaultdict(list)
    for p in pages:
        for b in p.blocks:
            furniture = (BlockKind.body, BlockKind.page_number, BlockKind.header, BlockKind.footer)
            if b.kind in furniture and _in_margin_zone(b.bbox[1], b.bbox[3], p.height):
                key = re.sub(r"\d+", "#", b.text.lower())
                seen[key].append((b, p.height))
    needed = 2 if len(pages) <= 4 else 3
    for group in seen.values():
        by_height: dict[int, list[tuple[Block, float]]] = defaultdict(list)
        for b, h in group:
            by_height[round(b.bbox[1] / 6)].append((b, h))
        for cluster in by_height.values():
            if len({b.page for b, _ in cluster}) < needed:
                continue
            for b, h in cluster:
                if b.kind is BlockKind.body:
                    b.kind = BlockKind.header if b.bbox[1] < h / 2 else BlockKind.footer


def _is_margin_note(block: Block, page: PageLayout, body_size: float, top: bool) -> bool:
    """Small print in the top or bottom margin with no text beyond it towards the page
    edge ("Preprint submitted to ...", a running title): a header or footer even on a
    page seen alone, where repetition cannot tell."""
    blocks = page.blocks
    in_zone = block.bbox[3] < 0.12 * page.height if top else block.bbox[1] > 0.86 * page.height
    if not in_zone or block.font_size >= 0.95 * body_size or (top and block.lines > 1):
        return False
    return not any(
        b is not block
        and (b.bbox[3] <= block.bbox[1] + 1 if top else b.bbox[1] >= block.bbox[3] - 1)
        and b.kind is not BlockKind.page_number
        and _overlap(b.bbox[0], b.bbox[2], block.bbox[0], block.bbox[2]) > 0
        for b in blocks
    )


def _mark_headings(blocks: list[Block], body_size: float) -> None:
    numbered_sizes: dict[int, list[float]] = defaultdict(list)
    candidates: list[tuple[Block, int | None]] = []
    for b in blocks:
        if b.kind is not BlockKind.body or not _heading_shaped(b):
            continue
        match = _NUMBERED_HEADING.match(b.text)
        styled = b.bold or b.font_size >= 1.1 * body_size
        if b.font_size < 0.9 * body_size:
            continue
        if match and _plausible_numbering(match.group(1), match.group(2), styled):
            depth = len([p for p in match.group(1).rstrip(".").split(".") if p])
            numbered_sizes[depth].append(b.font_size)
            candidates.append((b, depth))
        elif (styled or _KNOWN_HEADINGS.match(b.text)) and b.lines <= 2:
            candidates.append((b, None))
    levels = {depth: statistics.median(sizes) for depth, sizes in numbered_sizes.items()}
    for b, depth in candidates:
        b.kind = BlockKind.heading
        b.text = re.sub(r"^((?:\d+\.)*\d+)\.\s", r"\1 ", b.text)  # "4.2. Title" -> "4.2 Title"
        if depth is None:
            # An unnumbered heading takes the level of the numbered headings set in the
            # nearest size; top level when there are none or it is larger than all.
            depth = min(levels, key=lambda d: (abs(levels[d] - b.font_size), d)) if levels else 1
            if levels and b.font_size > max(levels.values()) + 0.5:
                depth = 1
        b.level = depth


def _heading_shaped(b: Block) -> bool:
    text = b.text
    return (
        b.lines <= 3
        and bool(re.search(r"[^\W\d_]{2}", text))  # "35 40 45": tick labels read by OCR
        and len(text) <= 150
        and len(text.split()) <= 16
        and not re.search(r"[.,;]$", text)
        and (text[0].isupper() or text[0].isdigit())
    )


def _plausible_numbering(number: str, rest: str, styled: bool) -> bool:
    if not rest[0].isalpha():
        return False  # "35 40 45": tick labels
    if rest[0].islower():
        return styled
    if number[0].isalpha() and not styled:
        return False  # "A Search for ..." is a sentence unless set as a heading
    first = number.rstrip(".").split(".")[0]
    return not first.isdigit() or int(first) <= 30


def _mark_title_pages(pages: Sequence[PageLayout], body_size: float) -> str:
    """The title is the largest text in the upper part of the first page with text.
    Pages that repeat it (a cover page, then the journal's first page) are title pages:
    there, everything but the title, the abstract and what follows the first real
    heading is front matter (institution, report numbers, authors, dates)."""
    first = next((p for p in pages if any(b.kind is not BlockKind.line_numbers for b in p.blocks)), None)
    if first is None:
        return ""
    candidates = [
        b
        for b in first.blocks
        if b.kind in (BlockKind.body, BlockKind.heading)
        and b.bbox[1] < 0.6 * first.height
        and len(b.text.split()) >= 2
        and not re.match(r"^(european|cern|organi[sz]ation)\b", b.text, re.I)
        and not (b.text[0].isdigit() and _NUMBERED_HEADING.match(b.text))
    ]
    if not candidates:
        return ""
    top = max(candidates, key=lambda b: (b.font_size, -b.bbox[1]))
    if top.font_size < 1.15 * body_size:
        return ""
    title = top.text
    key = _title_key(title)
    for p in pages[:3]:
        repeats = any(
            _title_key(b.text) == key and not _in_margin_zone(b.bbox[1], b.bbox[3], p.height)
            for b in p.blocks
            if b.kind in (BlockKind.body, BlockKind.heading)
        )
        if p.number != first.number and not repeats:
            break
        opened = False
        for b in p.blocks:
            if b.kind is BlockKind.heading and (b.text[0].isdigit() or _KNOWN_HEADINGS.match(b.text)):
                opened = opened or not re.match(r"^abstract$", b.text, re.I)
            if opened or b.kind not in (BlockKind.body, BlockKind.heading):
                continue
            if _title_key(b.text) == key:
                b.kind = BlockKind.title if b is top else BlockKind.front_matter
                b.level = None
            elif b.kind is BlockKind.body and _is_author_list(b.text):
                b.kind = BlockKind.author_list
            elif b.kind is BlockKind.body:
                b.kind = BlockKind.front_matter
            else:
                b.kind = BlockKind.front_matter if not re.match(r"^abstract", b.text, re.I) else b.kind
    return title


def _title_key(text: str) -> str:
    return re.sub(r"\W+", "", text.lower())


def _mark_abstract(blocks: list[Block]) -> str:
    """The abstract: the blocks after an "Abstract" label (up to a heading, a change of
    font size or a publication note), a block opening with "Abstract:", or else the
    first long paragraph of the title page."""
    for i, b in enumerate(blocks):
        label = re.match(r"^abstract\s*[:.—–-]?\s*", b.text, re.I)
        if not label or b.kind not in (BlockKind.heading, BlockKind.front_matter, BlockKind.body):
            continue
        rest = b.text[label.end() :]
        if rest and b.kind is not BlockKind.heading:
            b.kind = BlockKind.abstract
            b.text = rest
            return rest
        b.kind, b.level = BlockKind.heading, 1
        b.text = "Abstract"
        parts = _abstract_after(blocks, i)
        if parts:
            return "\n".join(parts)
    # No label (recent ATLAS papers): the first long front-matter paragraph.
    for b in blocks[:60]:
        if b.kind is BlockKind.front_matter and len(b.text.split()) >= 40:
            b.kind = BlockKind.abstract
            return b.text
    return ""


def _abstract_after(blocks: list[Block], label: int) -> list[str]:
    parts: list[str] = []
    size = None
    for b in blocks[label + 1 :]:
        if b.kind in FURNITURE - {BlockKind.front_matter}:
            continue
        if b.kind in (BlockKind.heading, BlockKind.title) or b.page != blocks[label].page:
            break
        if _AFTER_ABSTRACT.match(b.text) or (size is not None and abs(b.font_size - size) > 0.8):
            break
        if b.kind not in (BlockKind.body, BlockKind.front_matter, BlockKind.equation):
            break
        size = size or b.font_size
        b.kind = BlockKind.abstract
        parts.append(b.text)
    return parts


def _mark_contents(blocks: list[Block]) -> None:
    """A table of contents, up to the next heading, is front matter."""
    inside = False
    for b in blocks:
        if b.kind is BlockKind.heading:
            inside = bool(re.match(r"^(table of )?contents$", b.text, re.I))
            if inside:
                b.kind, b.level = BlockKind.front_matter, None
        elif inside and b.kind not in FURNITURE:
            b.kind = BlockKind.front_matter


def _is_author_list(text: str) -> bool:
    names = _PERSON.findall(text)
    words = len(text.split())
    return len(names) >= 3 and 2 * len(names) >= 0.4 * words


def _mark_back_matter(blocks: list[Block]) -> None:
    """References: from their heading to the next heading of the same or a higher
    level. Author list: from a "The X Collaboration" heading (on the title pages that
    line is front matter already) to the end, or blocks that are mostly names with
    initials; past the references, a page that is mostly author list is all author
    list (its affiliation lines too)."""
    in_refs: int | None = None
    in_authors = False
    seen_refs = False
    author_pages: Counter[int] = Counter()
    text_pages: Counter[int] = Counter()
    for b in blocks:
        if b.kind is BlockKind.heading:
            if in_refs is not None and (b.level or 1) <= in_refs:
                in_refs = None
            name = re.sub(r"^[\dA-Z.]+\s+", "", b.text) if _NUMBERED_HEADING.match(b.text) else b.text
            if _REFERENCES.match(name) or _REFERENCES.match(b.text):
                in_refs = b.level or 1
                seen_refs = True
                b.kind = BlockKind.references
                continue
            if _COLLABORATION.match(b.text):  # past the title pages: the author list
                in_authors = True
        if in_authors and b.kind not in FURNITURE:
            b.kind = BlockKind.author_list
        elif in_refs is not None and b.kind not in FURNITURE:
            b.kind = BlockKind.references
        elif b.kind in (BlockKind.body, BlockKind.table) and _is_author_list(b.text):
            b.kind = BlockKind.author_list
        if seen_refs and b.kind in (BlockKind.body, BlockKind.table, BlockKind.author_list, BlockKind.references):
            text_pages[b.page] += len(b.text)
            if b.kind is BlockKind.author_list:
                author_pages[b.page] += len(b.text)
    for b in blocks:
        page = b.page
        if author_pages[page] >= 0.5 * text_pages[page] > 0 and b.kind in (BlockKind.body, BlockKind.heading, BlockKind.table):
            b.kind = BlockKind.author_list

