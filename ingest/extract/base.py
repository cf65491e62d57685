"""What every reader shares: the extracted-document record, the errors a file can
raise, and the helpers that turn a reader's text into blocks.

``ingest.extract.readers`` detects a file's format and dispatches to its reader
(``pdf``, ``office``, ``html``); each reader imports this module and none imports
another, so the imports run one way: readers -> pdf/office/html -> base.
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ingest.extract.layout import Block, BlockKind
from ingest.sources.manifest import file_sha256
from mitra.core.errors import MitraError

Progress = Callable[[int, int], None]  # (pages done, pages to do)


class ExtractionError(MitraError):
    """A file that cannot be extracted; the message says which file and why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class NotAPdfError(ExtractionError):
    """The file does not start with the PDF signature (an HTML error page saved as .pdf, ...)."""


class TooLargeError(ExtractionError):
    """A file over ``max_document_mb``, or a PDF over ``max_pdf_pages``."""


class EmptyFileError(NotAPdfError):
    """Zero bytes: usually an interrupted download."""


class NoTextFoundError(ExtractionError):
    """Neither the text layer nor OCR yielded any text (blank or image-only pages)."""


@dataclass
class ExtractedDocument:
    path: Path
    sha256: str
    pages: int  # pages in the file
    ocr_pages: list[int]  # 1-based numbers of the pages read by OCR
    blocks: list[Block]  # every page's blocks, in reading order
    title: str
    abstract: str
    warnings: list[str] = field(default_factory=list)
    unit: Literal["page", "slide"] = "page"  # slides: a talk, each page one slide
    format: str = "pdf"  # the reader, recorded as Document.format ("pdf-slides": a PDF read as a deck)


class UnsupportedFileError(ExtractionError):
    """A file of a type MITRA does not read (an image, a spreadsheet, a legacy .doc)."""


class EncryptedOfficeError(ExtractionError):
    """An Office file that needs a password to be opened."""


class CorruptFileError(ExtractionError):
    """A file of a supported type whose structure cannot be read (a truncated .docx)."""


# What reading a damaged ZIP container raises: its structure, a member's CRC, its compressed
# data, a compression method from nowhere, a member's encryption flag (RuntimeError).
BROKEN_ZIP = (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, OSError, EOFError)


def table_block(rows: list[list[str]], page: int | None) -> Block:
    """A table as one block, a line per row and cells apart by " | ", as the PDF layout
    writes the tables it finds."""
    text = "\n".join(" | ".join(" ".join(cell.split()) for cell in row) for row in rows if any(c.strip() for c in row))
    return Block(page=page, bbox=(0.0, 0.0, 0.0, 0.0), text=text, kind=BlockKind.table)


def text_block(text: str, page: int | None, kind: BlockKind = BlockKind.body, level: int | None = None,
               anchor: str = "") -> Block:
    """A block of a file without page geometry: no box, its text with spaces normalised
    (line breaks kept: a list stays one item a line)."""
    lines = (" ".join(line.split()) for line in text.splitlines())
    return Block(page=page, bbox=(0.0, 0.0, 0.0, 0.0), text="\n".join(line for line in lines if line),
                 kind=kind, level=level, anchor=anchor)


def finished(path: Path, blocks: list[Block], *, pages: int, title: str, fmt: str, unit: str = "page",
             progress: Progress | None = None, warnings: list[str] | None = None) -> ExtractedDocument:
    """The ``ExtractedDocument`` of a block reader (``pages`` 0: the format has none), or
    why the file holds nothing to index. ``progress`` hears of the file as one step;
    ``warnings``: what the reader says of how it read the file."""
    blocks = [b for b in blocks if b.text.strip()]
    if not any(b.kind is not BlockKind.heading for b in blocks):
        raise NoTextFoundError(path, "the file holds no text to index")
    if progress is not None:
        progress(1, 1)
    return ExtractedDocument(path=path, sha256=file_sha256(path), pages=pages, ocr_pages=[], blocks=blocks,
                             title=title, abstract=_abstract(blocks), unit=unit, format=fmt,
                             warnings=warnings or [])


def _abstract(blocks: list[Block]) -> str:
    """The body under a heading "Abstract" or "Summary", the analysis's abstract when none is
    given ("" when there is no such section)."""
    found: list[str] = []
    inside = False
    for block in blocks:
        if block.kind is BlockKind.heading:
            if found:
                break
            inside = block.text.strip().rstrip(":").lower() in ("abstract", "summary")
        elif block.kind is BlockKind.body and inside:
            found.append(block.text)
    return " ".join(" ".join(found).split())
