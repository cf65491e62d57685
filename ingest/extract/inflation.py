"""What a file may inflate to, checked before any reader parses it.

A few megabytes on disk can hold gigabytes once inflated (a .docx whose
``word/document.xml`` inflates to 2 GB; a PDF content stream of compressed spaces), and
``max_document_mb`` sees only the bytes on disk. So before a reader parses a file, what
its compressed parts inflate to is bounded (settings ``max_inflated_mb``,
``max_inflation_ratio``, ``max_image_pixels``):

* a ZIP (.docx, .pptx): its directory first, without inflating anything: at most
  ``_MAX_MEMBERS`` members (counted from the end record, before ``zipfile`` reads the
  directory), no member named with ``..``, an absolute path or twice, each member's
  declared size and ratio and the members' total within the limits; then every member
  is inflated once, a megabyte at a time, its actual size and the running total checked
  as it goes (``zipfile`` stops a member at its declared size, and data that does not
  match its CRC is a damaged file). A ZIP inside the ZIP is a member like any other: its
  bytes, never opened.
* a PDF: every Flate-compressed stream is inflated a megabyte at a time and counted
  (none may pass ``max_inflated_mb``: PDFium holds a stream whole, and reads a page at
  a time; all of them together may inflate to ``max_inflation_ratio`` times the file,
  or ``max_inflated_mb`` for a small file), and no image may declare more than
  ``max_image_pixels``.

Memory stays flat while checking (a megabyte of inflated data at a time), and a bomb
is refused as soon as it passes a limit: in well under a second for the issue's 7 MB
Word file.
"""

from __future__ import annotations

import mmap
import re
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from ingest.extract.base import ExtractionError
from mitra.core.settings import Settings

_MB = 1 << 20
_PIECE = _MB  # inflated a megabyte at a time
# A 3,000-slide deck has ~15,000 members; each member's directory entry costs zipfile
# ~0.5 kB of memory, so the count is bounded before the directory is read.
_MAX_MEMBERS = 50_000
# The ratio of a member is judged once it inflates past this: a small part may
# compress very well (a run of empty table cells) and costs nothing.
_RATIO_FROM = _MB
_STREAM = re.compile(rb"stream\r?\n")
_DICT_WINDOW = 4096  # a stream's dictionary is read from the bytes before it
_FLATE = re.compile(rb"/Filter\s*(?:\[\s*)?/Fl(?:ateDecode)?\b")
_IMAGE = re.compile(rb"/Subtype\s*/Image\b")
_WIDTH = re.compile(rb"/Width\s+(\d+)")
_HEIGHT = re.compile(rb"/Height\s+(\d+)")


class InflationError(ExtractionError):
    """A file whose compressed parts inflate past a limit: a decompression bomb, or a
    file far larger than the documents MITRA reads."""


def _mb(n: int) -> str:
    return f"{n / _MB:,.0f} MB" if n >= _MB else f"{n:,} bytes"


# ---------------------------------------------------------------- ZIP (.docx, .pptx)
def check_zip_directory(path: Path, fh: BinaryIO, settings: Settings) -> zipfile.ZipFile:
    """The ZIP open on ``fh``, once its directory is within the limits (nothing inflated
    yet). Raises ``InflationError``; ``zipfile.BadZipFile`` for a damaged container."""
    end = zipfile._EndRecData(fh)  # the end record: how many members the directory lists
    if end is None:
        raise zipfile.BadZipFile("no end of central directory record")
    members = end[zipfile._ECD_ENTRIES_TOTAL]
    if members > _MAX_MEMBERS:
        raise InflationError(path, f"the ZIP lists {members:,} members (over {_MAX_MEMBERS:,}): not a document "
                                   "MITRA reads")
    package = zipfile.ZipFile(fh)
    limit, total, seen = int(settings.max_inflated_mb * _MB), 0, set()
    for info in package.infolist():
        name = info.filename
        parts = PurePosixPath(name.replace("\\", "/")).parts
        if name.startswith(("/", "\\")) or ".." in parts or re.match(r"[A-Za-z]:", name):
            raise InflationError(path, f"the ZIP holds a member named {name!r}, outside the package: not a "
                                       "document MITRA reads")
        if name in seen:
            raise InflationError(path, f"the ZIP holds two members named {name!r}: not a document MITRA reads")
        seen.add(name)
        _check_member(path, name, info.file_size, info.compress_size, settings)
        total += info.file_size
        if total > limit:
            raise InflationError(path, f"its members declare {_mb(total)} or more once inflated (over "
                                       f"max_inflated_mb, {settings.max_inflated_mb:g} MB): refused unread")
    return package


def _check_member(path: Path, name: str, inflated: int, compressed: int, settings: Settings) -> None:
    limit = settings.max_inflated_mb * _MB
    if inflated > limit:
        raise InflationError(path, f"its member {name!r} inflates to {_mb(inflated)} (over max_inflated_mb, "
                                   f"{settings.max_inflated_mb:g} MB): refused unread")
    if inflated > _RATIO_FROM and inflated > settings.max_inflation_ratio * max(compressed, 1):
        raise InflationError(path, f"its member {name!r} inflates {inflated / max(compressed, 1):,.0f} times "
                                   f"({_mb(compressed)} to {_mb(inflated)}; over max_inflation_ratio, "
                                   f"{settings.max_inflation_ratio:g}): a decompression bomb, refused unread")


def check_zip(path: Path, fh: BinaryIO, settings: Settings) -> None:
    """The directory checks, then every member inflated once and counted; ``fh`` is left
    at its start for the reader. Raises ``InflationError`` or ``zipfile.BadZipFile``."""
    limit, total = settings.max_inflated_mb * _MB, 0
    with check_zip_directory(path, fh, settings) as package:
        for info in package.infolist():
            size = 0
            with package.open(info) as member:
                while piece := member.read(_PIECE):
                    size += len(piece)
                    total += len(piece)
                    if total > limit:
                        raise InflationError(path, f"its members inflate to more than max_inflated_mb "
                                                   f"({settings.max_inflated_mb:g} MB): refused")
                    _check_member(path, info.filename, size, info.compress_size, settings)
    fh.seek(0)


# ---------------------------------------------------------------- PDF
def check_pdf(path: Path, settings: Settings) -> None:
    """Every Flate stream of the PDF inflated and counted, every image's declared size
    checked, before PDFium reads it. A stream that does not inflate cleanly is left to
    PDFium to judge (it reports a damaged file in its own words)."""
    size = path.stat().st_size
    if size == 0:
        return
    per_stream = int(settings.max_inflated_mb * _MB)
    budget = max(per_stream, int(settings.max_inflation_ratio * size))
    total = 0
    with path.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        for match in _STREAM.finditer(data):
            head = data[max(0, match.start() - _DICT_WINDOW):match.start()]
            head = head[head.rfind(b"obj") + 3:] if b"obj" in head else head
            if _IMAGE.search(head):
                _check_image(path, head, settings)
            if not _FLATE.search(head):
                continue
            end = data.find(b"endstream", match.end())
            inflated = _inflated_size(data, match.end(), end if end >= 0 else len(data), per_stream)
            if inflated > per_stream:
                raise InflationError(path, f"a stream of the PDF inflates to more than max_inflated_mb "
                                           f"({settings.max_inflated_mb:g} MB): a decompression bomb, refused unread")
            total += inflated
            if total > budget:
                raise InflationError(path, f"the PDF's streams inflate to more than {_mb(budget)} "
                                           f"({settings.max_inflation_ratio:g} times its size, max_inflation_ratio): "
                                           "a decompression bomb, refused unread")


def _inflated_size(data: mmap.mmap, start: int, end: int, limit: int) -> int:
    """How far the deflate data in ``data[start:end]`` inflates, counted a megabyte at a
    time; stops once past ``limit``. Data that is not deflate counts what it gave."""
    inflater, size, at = zlib.decompressobj(), 0, start
    try:
        while at < end and size <= limit and not inflater.eof:
            pending = data[at:min(at + _PIECE, end)]
            at += len(pending)
            while pending and size <= limit and not inflater.eof:
                out = inflater.decompress(pending, _PIECE)
                if not out and inflater.unconsumed_tail == pending:
                    break  # no progress: what is left is not deflate data
                size += len(out)
                pending = inflater.unconsumed_tail
    except zlib.error:
        pass
    return size


def _check_image(path: Path, head: bytes, settings: Settings) -> None:
    width, height = _WIDTH.search(head), _HEIGHT.search(head)
    if width and height and int(width[1]) * int(height[1]) > settings.max_image_pixels:
        raise InflationError(path, f"an image of the PDF declares {int(width[1]):,} × {int(height[1]):,} pixels "
                                   f"(over max_image_pixels, {settings.max_image_pixels:,}): refused unread")
