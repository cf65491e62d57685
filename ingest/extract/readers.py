"""Read any supported file: the reader is chosen by the file's content, not its name.

``detect_format`` looks at the bytes: the PDF signature, an Office Open XML package
(a ZIP whose ``[Content_Types].xml`` names a presentation or a Word document), an
OLE compound file (a password-protected Office file, or a legacy .doc/.ppt), an HTML
page, or UTF-8 text (Markdown, LaTeX or plain, told apart by the structure the text
chunker recognises; a ``.md`` name decides only when the text shows no structure).
Anything else is refused in one line that says what the file looks like.

Block formats (pdf, pptx, docx, html) are read by ``read_document`` into an
``ExtractedDocument`` for ``ingest.chunk.from_blocks``; text formats are handed whole
to ``ingest.chunk.from_text`` (``read_text``). This module only detects and dispatches: the
record, the errors and the block helpers every reader shares are in ``ingest.extract.base``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NoReturn

from ingest.chunk.from_text import detect_format as text_structure
from ingest.extract.inflation import check_zip_directory
from ingest.extract.base import (
    BROKEN_ZIP, CorruptFileError, EmptyFileError, EncryptedOfficeError, ExtractedDocument, ExtractionError, Progress,
    UnsupportedFileError,
)
from ingest.extract.pdf import extract_pdf
from mitra.core.settings import Settings, get_settings

BLOCK_FORMATS = ("pdf", "pptx", "docx", "html")
TEXT_FORMATS = ("markdown", "latex", "text")

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP_MAGIC = b"PK\x03\x04"
# What a binary file we do not read looks like, for the one-line refusal.
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!", "a RAR archive"),
    (b"%!PS", "a PostScript file"),
    (b"{\\rtf", "an RTF document (save it as .docx)"),
    (b"\x7fELF", "an executable"),
)
# OOXML main parts, by the content type [Content_Types].xml gives them.
_OOXML = (("presentationml.", "pptx"), ("wordprocessingml.", "docx"))
# Legacy binary Office files, by the stream that holds their content.
_OLE_STREAMS = (
    ("WordDocument", "a Word 97-2003 .doc file: not supported, save it as .docx"),
    ("PowerPoint Document", "a PowerPoint 97-2003 .ppt file: not supported, save it as .pptx"),
    ("Workbook", "an Excel 97-2003 .xls file: not supported"),
)
_HTML_START = re.compile(
    rb"\A(?:\xef\xbb\xbf)?\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)[\s>]",
    re.I | re.S,
)
_MARKDOWN_NAMES = (".md", ".markdown", ".mdown")
_BINARY_NAMES = (".pdf", ".pptx", ".docx", ".ppt", ".doc", ".xlsx", ".xls")
_TEXT_SAMPLE = 1 << 20  # the structure of a text file shows in its first megabyte


def detect_format(path: Path, settings: Settings | None = None) -> str:
    """The file's format by its content: one of ``BLOCK_FORMATS`` or ``TEXT_FORMATS``.
    Raises an ``ExtractionError`` with a one-line reason for anything else (``settings``:
    the limits a ZIP's directory is checked against; default the process's)."""
    path = Path(path)
    if not path.is_file():
        raise ExtractionError(path, "no such file" if not path.exists() else "not a file")
    with path.open("rb") as fh:
        head = fh.read(_TEXT_SAMPLE)
    if not head:
        raise EmptyFileError(path, "the file is empty (0 bytes)")
    if b"%PDF-" in head[:1024]:  # the PDF spec lets the header sit anywhere in the first 1024 bytes
        return "pdf"
    if head.startswith(_ZIP_MAGIC):
        return _ooxml_format(path, settings or get_settings())
    if head.startswith(_OLE_MAGIC):
        _refuse_ole(path)
    for magic, kind in _SIGNATURES:
        if head.startswith(magic):
            raise UnsupportedFileError(path, f"the file is {kind}: not a document MITRA reads")
    if _HTML_START.match(head[:4096]):
        _check_name(path, "HTML")
        return "html"
    text = _decoded(path, head, complete=len(head) < _TEXT_SAMPLE)
    _check_name(path, "text")
    structure = text_structure(text)
    if structure == "text" and path.suffix.lower() in _MARKDOWN_NAMES:
        return "markdown"
    return structure


def _check_name(path: Path, kind: str) -> None:
    """Text under a binary document's name is a failed download (the portal's login or
    error page saved in its place), not a page to index."""
    if path.suffix.lower() in _BINARY_NAMES:
        raise UnsupportedFileError(path, f"the file is {kind}, though named {path.suffix}: "
                                         "an error or login page saved in its place?")


def _ooxml_format(path: Path, settings: Settings) -> str:
    try:
        with path.open("rb") as fh, check_zip_directory(path, fh, settings) as package:
            parts = set(package.namelist())
            types = package.read("[Content_Types].xml").decode("utf-8", "replace") \
                if "[Content_Types].xml" in parts else ""
            mimetype = package.read("mimetype").decode("ascii", "replace") if "mimetype" in parts else ""
    except BROKEN_ZIP as exc:
        raise CorruptFileError(path, f"the ZIP container is damaged ({exc}): a truncated .docx/.pptx?") from exc
    fmt = next((fmt for marker, fmt in _OOXML if marker in types), None)
    if fmt is not None:
        return fmt
    if "spreadsheetml." in types:
        raise UnsupportedFileError(path, "the file is an Excel workbook: not supported (put the table in a .docx)")
    if "opendocument" in mimetype:
        raise UnsupportedFileError(path, "the file is an OpenDocument file: not supported, save it as .docx or .pptx")
    raise UnsupportedFileError(path, "the file is a ZIP archive, not a Word or PowerPoint file: unpack it first")


def _refuse_ole(path: Path) -> NoReturn:
    """An OLE compound file is never read: say whether it is password-protected (Office
    wraps an encrypted .docx/.pptx in one, whatever its name) or a legacy format."""
    import olefile

    try:
        with olefile.OleFileIO(str(path)) as ole:
            streams = {"/".join(entry) for entry in ole.listdir()}
    except OSError as exc:
        raise CorruptFileError(path, f"the Office file is damaged ({exc})") from exc
    if "EncryptedPackage" in streams:
        raise EncryptedOfficeError(path, "the Office file is password-protected: save a copy without the password "
                                         "and ingest that")
    kind = next((kind for stream, kind in _OLE_STREAMS if stream in streams),
                "a legacy Office (OLE) file: not supported, save it as .docx or .pptx")
    raise UnsupportedFileError(path, f"the file is {kind}")


def _decoded(path: Path, data: bytes, *, complete: bool) -> str:
    """UTF-8 text (a byte-order mark allowed), or the refusal of a binary file. A sample
    cut inside a character is still text."""
    if b"\x00" in data:
        raise UnsupportedFileError(path, "the file is binary data of an unknown type: not a document MITRA reads")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if not complete and exc.start >= len(data) - 3:
            return data[: exc.start].decode("utf-8-sig")
        raise UnsupportedFileError(
            path, f"the file is neither a known document type nor UTF-8 text (byte {exc.start}): "
                  "save text files as UTF-8") from exc


def read_text(path: Path) -> str:
    """A text file's content (``detect_format`` said it is UTF-8 text)."""
    return _decoded(path, Path(path).read_bytes(), complete=True)


def read_document(
    path: Path, settings: Settings, *, force_ocr: bool = False, progress: Progress | None = None,
    fmt: str | None = None,
) -> ExtractedDocument:
    """The blocks of a PDF, PowerPoint, Word or HTML file, in reading order (``fmt``: the
    format ``detect_format`` gave, when the caller has it already)."""
    path = Path(path)
    fmt = fmt or detect_format(path)
    if fmt == "pdf":
        return extract_pdf(path, settings, force_ocr=force_ocr, progress=progress)
    if fmt == "pptx":
        from ingest.extract.office import read_pptx

        return read_pptx(path, settings, progress)
    if fmt == "docx":
        from ingest.extract.office import read_docx

        return read_docx(path, settings, progress)
    if fmt == "html":
        from ingest.extract.html import read_html

        return read_html(path, progress)
    raise ExtractionError(path, f"a {fmt} file is chunked as text, not read as blocks")
