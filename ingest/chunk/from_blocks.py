"""Chunk: extracted PDF blocks -> paragraphs with section path and page span -> chunks.

Blocks arrive in reading order. Headings set the section path; page furniture,
figure text, references and author lists are left out; a body paragraph cut by a
column or page break (it does not end a sentence) is joined with its continuation,
even when a caption or footnote was set in between, and then spans both pages.
A deck's slides (``unit`` "slide") are read one by one instead.
Display equations stay in the paragraph around them, as in the LaTeX front end.
Captions and tables are chunks of their own. The shared back end in
``ingest.chunk.from_text`` packs the paragraphs and gives the chunks their ids.
"""

from __future__ import annotations

import re
from itertools import takewhile
from dataclasses import replace
from typing import Literal

from ingest.extract.base import ExtractedDocument
from ingest.extract.layout import FURNITURE, Block, BlockKind, join_lines
from ingest.chunk.coverage import word_counts
from ingest.chunk.paragraphs import ChunkedText, Paragraph, ParsedText, chunk_parsed, dropped_path
from ingest.chunk.shapes import AFFILIATIONS, AUTHORS, FIGURE_TEXT, REFERENCES
from mitra.core.settings import Settings
from mitra.core.types import ChunkKind, Document

_KIND = {
    BlockKind.body: ChunkKind.body,
    BlockKind.abstract: ChunkKind.body,
    BlockKind.footnote: ChunkKind.body,
    BlockKind.equation: ChunkKind.body,
    BlockKind.caption: ChunkKind.caption,
    BlockKind.table: ChunkKind.table,
}
_ENDS_SENTENCE = re.compile(r"[.!?]['\")\]]?$")
_MID_SENTENCE = re.compile(r"[a-z,;(\-–]$")
ABSTRACT_SECTION = ("Abstract",)
# What a block the layout set aside holds, for the report of text dropped on purpose.
_DROPPED_KIND = {BlockKind.references: REFERENCES, BlockKind.author_list: AUTHORS,
                 BlockKind.front_matter: AFFILIATIONS, BlockKind.title: "title", BlockKind.figure: FIGURE_TEXT}


def chunk_document(extracted: ExtractedDocument, document: Document, settings: Settings) -> ChunkedText:
    """Chunks of one extracted PDF, with the document's analysis, id and version, and the
    share of the page text (furniture, figure text and references left out) they hold."""
    parsed = paragraphs_from_blocks(extracted.blocks, extracted.unit)
    parsed.format = extracted.format
    source = word_counts(b.text for b in extracted.blocks)
    return chunk_parsed(document, parsed, source, settings.chunk_min_chars, settings.chunk_max_chars)


def paragraphs_from_blocks(blocks: list[Block], unit: Literal["page", "slide"] = "page") -> ParsedText:
    """``unit`` "slide": each page stands alone, its section its own title (none when it
    has no title) and no paragraph continued from the slide before."""
    out = ParsedText(format="pdf", unit=unit)
    path: list[str] = []
    levels: list[int] = []  # each heading's level on the path: a page opening at h2 nests its h2s in none
    anchor = ""  # the innermost heading's
    open_at: int | None = None  # the body paragraph a later block may continue
    page: int | None = None
    for block in blocks:
        if unit == "slide" and block.page != page:
            path, levels, anchor, open_at, page = [], [], "", None, block.page
        if block.kind is BlockKind.heading:
            if block.text.lower() != "abstract":  # the abstract has its own section below
                level = block.level or 1
                kept = sum(1 for _ in takewhile(lambda outer: outer < level, levels))
                path, levels = path[:kept] + [block.text], levels[:kept] + [level]
                anchor = block.anchor
                open_at = None
            if dropped_path(path):
                out.drop(dropped_path(path), block.text)
            else:
                out.headings.append(block.text)
                out.read.append(("heading", block.text))
            continue
        if block.kind in FURNITURE or block.kind is BlockKind.title or block.kind not in _KIND:
            out.drop(_DROPPED_KIND.get(block.kind, "page furniture"), block.text)
            continue
        section = ABSTRACT_SECTION if block.kind is BlockKind.abstract else tuple(path)
        if dropped_path(section):
            out.drop(dropped_path(section), block.text)
            continue
        paragraphs = out.paragraphs
        kind = _KIND[block.kind]
        out.read.append((ChunkKind.equation.value if block.kind is BlockKind.equation else kind.value, block.text))
        continues = block.kind is BlockKind.equation or (
            block.kind in (BlockKind.body, BlockKind.abstract) and open_at is not None
            and _continues(paragraphs[open_at], block)
        )
        if continues and open_at is not None and paragraphs[open_at].section == section:
            previous = paragraphs[open_at]
            paragraphs[open_at] = replace(previous, text=join_lines([previous.text, block.text]), page_end=block.page)
            continue
        paragraphs.append(Paragraph(block.text, section, kind, block.page, block.page,
                                    anchor="" if section == ABSTRACT_SECTION else anchor))
        if block.kind in (BlockKind.body, BlockKind.abstract, BlockKind.equation):
            open_at = len(paragraphs) - 1
    return out


def _continues(previous: Paragraph, block: Block) -> bool:
    """A paragraph left mid-sentence goes on in the next body block: one that opens in
    lower case, or any block when the paragraph stopped on a lower-case word, a comma
    or a hyphen ("measured by the" + "ATLAS detector")."""
    if _ENDS_SENTENCE.search(previous.text):
        return False
    return not block.text[:1].isupper() or bool(_MID_SENTENCE.search(previous.text))


def abstract_of(extracted: ExtractedDocument) -> str:
    """The document's abstract as extracted from its title page ("" when none was found)."""
    return extracted.abstract
