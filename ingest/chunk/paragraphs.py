"""The one chunking back end: paragraphs with their section path -> chunks, with coverage.

Front ends (``ingest.chunk.from_text`` for Markdown, LaTeX and plain text;
``ingest.chunk.from_blocks`` for PDF layout blocks) turn a document into
``Paragraph`` records and say what they left out on purpose (``ParsedText``). This
module packs them (``pack_paragraphs``: merge tiny paragraphs, split huge ones at
sentence boundaries, a table between rows), makes chunks with deterministic ids
(``make_chunks``) and measures their coverage (``ingest.chunk.coverage``): the share of
the input's words (after dropping what was left out on purpose: references,
acknowledgements, author lists) that reach some chunk, in all and by kind of block.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Iterable, Literal

from ingest.chunk.coverage import coverage, coverage_by_kind, word_counts
from ingest.chunk.shapes import ACKNOWLEDGEMENTS, AUTHORS, REFERENCES
from ingest.chunk.tables import has_rows, split_rows
from mitra.core.text import split_sentences
from mitra.core.types import Chunk, ChunkKind, Document, chunk_id


@dataclass(frozen=True)
class Paragraph:
    text: str
    section: tuple[str, ...] = ()
    kind: ChunkKind = ChunkKind.body
    page_start: int | None = None
    page_end: int | None = None
    anchor: str = ""  # the section's anchor where the source has one (an HTML heading's id)


MARKUP = "markup"  # preamble, front matter, comments, image addresses, figure graphics


@dataclass
class ParsedText:
    """A front end's output: the paragraphs, the section titles they sit under (whose
    words reach the chunks through the section path), and the text left out on purpose,
    each piece with its kind (references, affiliations, markup, ...) for the report."""

    paragraphs: list[Paragraph] = field(default_factory=list)
    headings: list[str] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)  # (kind, text)
    read: list[tuple[str, str]] = field(default_factory=list)  # (kind, source text) of each block kept
    format: str = "text"
    unit: Literal["page", "slide"] = "page"  # what the paragraphs' page numbers count

    def drop(self, kind: str, *texts: str) -> None:
        self.dropped.extend((kind, text) for text in texts)


@dataclass
class ChunkedText:
    chunks: list[Chunk]
    coverage: float
    format: str
    dropped: dict[str, int] = field(default_factory=dict)  # words left out on purpose, by kind
    coverage_by_kind: dict[str, dict[str, float]] = field(default_factory=dict)  # kind -> words, coverage


# Sections whose text is furniture for a reader, noise for retrieval, and the kind of text each holds.
_DROP_SECTION = re.compile(r"^(?:[\dA-Z]{1,3}[.)]?\s+)?(acknowledg|references|bibliography|author list|funding)", re.I)
_SECTION_KIND = {"acknowledg": ACKNOWLEDGEMENTS, "funding": ACKNOWLEDGEMENTS, "references": REFERENCES,
                 "bibliography": REFERENCES, "author list": AUTHORS}


def dropped_section(title: str) -> str | None:
    """The kind of text a section of this title holds when it is left out, else None."""
    match = _DROP_SECTION.match(title.strip())
    return _SECTION_KIND[match.group(1).lower()] if match else None


def dropped_path(path: Iterable[str]) -> str | None:
    """The kind of the innermost section left out on the path, else None."""
    return next((kind for kind in map(dropped_section, reversed(list(path))) if kind), None)


# ---------------------------------------------------------------- packing
def pack_paragraphs(paragraphs: list[Paragraph], min_chars: int, max_chars: int,
                    unit: Literal["page", "slide"] = "page") -> list[Paragraph]:
    """Merge consecutive small body paragraphs of one section (of one slide, in a talk:
    a chunk is cited by its slide); split paragraphs longer than ``max_chars`` at
    sentence boundaries (a table between its rows). Captions and tables stay alone."""
    pieces = [piece for p in paragraphs for piece in _split_long(p, max_chars)]
    packed: list[Paragraph] = []
    for p in pieces:
        last = packed[-1] if packed else None
        if (
            last is not None
            and p.kind is ChunkKind.body
            and last.kind is ChunkKind.body
            and last.section == p.section
            and (unit == "page" or last.page_end == p.page_start)
            and (len(last.text) < min_chars or len(p.text) < min_chars)
            and len(last.text) + len(p.text) + 1 <= max_chars
        ):
            packed[-1] = replace(
                last,
                text=f"{last.text}\n{p.text}",
                page_end=p.page_end if p.page_end is not None else last.page_end,
            )
        else:
            packed.append(p)
    return packed


def _split_long(p: Paragraph, max_chars: int) -> list[Paragraph]:
    if len(p.text) <= max_chars:
        return [p]
    if p.kind is ChunkKind.table and has_rows(p.text):
        return split_rows(p, max_chars, _hard_wrap)
    groups: list[str] = []
    for sentence in split_sentences(p.text):
        for part in _hard_wrap(sentence, max_chars):
            if groups and len(groups[-1]) + 1 + len(part) <= max_chars:
                groups[-1] += " " + part
            else:
                groups.append(part)
    return [replace(p, text=g) for g in groups]


def _hard_wrap(sentence: str, max_chars: int) -> list[str]:
    """A single sentence over the limit (a table row dump, a formula) is cut at spaces."""
    out: list[str] = []
    while len(sentence) > max_chars:
        cut = sentence.rfind(" ", 0, max_chars)
        cut = cut if cut > 0 else max_chars
        out.append(sentence[:cut].strip())
        sentence = sentence[cut:].strip()
    if sentence:
        out.append(sentence)
    return out


def make_chunks(document: Document, paragraphs: list[Paragraph], unit: Literal["page", "slide"] = "page") -> list[Chunk]:
    return [
        Chunk(
            id=chunk_id(document.doc_id, document.version, i, p.text),
            analysis_id=document.analysis_id,
            doc_id=document.doc_id,
            version=document.version,
            position=i,
            section=list(p.section),
            page_start=p.page_start,
            page_end=p.page_end,
            kind=p.kind,
            text=p.text,
            unit=unit,
            anchor=p.anchor,
        )
        for i, p in enumerate(paragraphs)
    ]


def chunk_parsed(document: Document, parsed: ParsedText, source: Counter, min_chars: int, max_chars: int,
                 latex: bool = False) -> ChunkedText:
    """The shared back end of every front end: pack, give ids, measure coverage."""
    chunks = make_chunks(document, pack_paragraphs(parsed.paragraphs, min_chars, max_chars, parsed.unit), parsed.unit)
    by_kind: dict[str, Counter] = {}
    for kind, text in parsed.dropped:
        by_kind.setdefault(kind, Counter()).update(word_counts([text], latex=latex))
    dropped = sum(by_kind.values(), Counter())
    # Words reported are the source's: a title repeated in the dropped text counts once.
    words = {kind: sum((counts & source).values()) for kind, counts in sorted(by_kind.items())}
    return ChunkedText(chunks=chunks, coverage=coverage(source, dropped, chunks, parsed.headings),
                       format=parsed.format, dropped={kind: n for kind, n in words.items() if n},
                       coverage_by_kind=coverage_by_kind(source, dropped, chunks, parsed.headings, parsed.read, latex))
