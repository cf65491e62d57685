"""Extract: a PDF file -> typed blocks in reading order, page by page.

Each page's text layer is read with its positions (pdfplumber: words, font size and
name, drawn objects). When the text layer is missing or unusable — no text over a
scanned image, unmapped ``(cid:N)`` glyphs — the page is rendered (pypdfium2, at
``settings.ocr_dpi``) and OCR'd instead. Either way the page's words go through
``ingest.layout``. Pages are handled one at a time and their parsed objects and
images released, so a 500-page PDF streams in bounded memory.

Bad input raises a specific ``ExtractionError`` subclass with a clear message, so a
batch can record the failure for that file and go on.
"""

from __future__ import annotations

import hashlib
import logging
import re
import statistics
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pdfplumber
import pypdfium2 as pdfium
from pdfminer.pdfdocument import PDFEncryptionError
from pdfminer.psexceptions import PSException
from pdfplumber.utils.exceptions import PdfminerException

from ingest.layout import Block, Graphic, PageLayout, PageWords, Source, Word, layout_document, layout_page
from ingest.ocr import OcrBackend, OcrUnavailableError, ocr_backend
from mitra.settings import Settings

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]  # (pages done, pages to do)


class ExtractionError(Exception):
    """A file that cannot be extracted; the message says which file and why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class NotAPdfError(ExtractionError):
    """The file does not start with the PDF signature (an HTML error page saved as .pdf, ...)."""


class EmptyFileError(NotAPdfError):
    """Zero bytes: usually an interrupted download."""


class CorruptPdfError(ExtractionError):
    """The PDF structure cannot be parsed (truncated file, broken cross-reference table)."""


class EncryptedPdfError(ExtractionError):
    """The PDF needs a password to be opened."""


class EmptyPdfError(ExtractionError):
    """A well-formed PDF with zero pages."""


class NoTextFoundError(ExtractionError):
    """Neither the text layer nor OCR yielded any text (blank or image-only pages)."""


class OcrFailedError(ExtractionError):
    """A page needed OCR and the OCR engine could not run."""


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


_PDF_MAGIC = b"%PDF-"
_UNMAPPED = re.compile(r"\(cid:\d+\)|\ufffd|[\ue000-\uf8ff]")
_BOLD_FONT = re.compile(r"bold|black|heavy|demi|semi|medi|cmbx|sfbx|bx\d|-bd", re.I)


def extract_pdf(
    path: Path,
    settings: Settings,
    *,
    force_ocr: bool = False,
    progress: Progress | None = None,
    pages: Iterable[int] | None = None,
) -> ExtractedDocument:
    """Blocks of one PDF in reading order. ``pages`` (1-based) restricts the work to
    some pages; ``force_ocr`` OCRs every page even when its text layer is good."""
    path = Path(path)
    _check_signature(path)
    digest = _sha256(path)
    warnings: list[str] = []
    layouts: list[PageLayout] = []
    ocr_pages: list[int] = []
    backend: OcrBackend | None = None

    with _open(path) as (pdf, rendering):
        total = len(pdf.pages)
        if total == 0:
            raise EmptyPdfError(path, "the PDF has no pages")
        selected = sorted({n for n in pages if 1 <= n <= total}) if pages is not None else range(1, total + 1)
        for done, number in enumerate(selected, 1):
            page = pdf.pages[number - 1]
            try:
                words, graphics, reason = _read_text_layer(page)
            except (PdfminerException, PSException, ValueError, KeyError) as exc:
                words, graphics, reason = [], [], f"text layer unreadable ({exc.__class__.__name__})"
            finally:
                page.close()  # drop pdfplumber's per-page object cache
            source: Source = "text"
            if force_ocr or reason:
                if backend is None:
                    backend, note = ocr_backend(settings)
                    warnings.extend([note] if note else [])
                if reason:
                    log.info("%s p.%d: OCR (%s)", path.name, number, reason)
                words, graphics = _ocr_page(path, rendering, number, backend, settings), []
                ocr_pages.append(number)
                source = "ocr"
            width, height = float(page.width), float(page.height)
            layouts.append(layout_page(PageWords(number, width, height, tuple(words), source, tuple(graphics))))
            if progress is not None:
                progress(done, len(selected))

    if not any(b.text.strip() for p in layouts for b in p.blocks):
        how = "OCR found no text on its image-only pages" if ocr_pages else "its pages carry no text"
        raise NoTextFoundError(path, how)
    document = layout_document(layouts)
    return ExtractedDocument(
        path=path,
        sha256=digest,
        pages=total,
        ocr_pages=ocr_pages,
        blocks=document.blocks,
        title=document.title,
        abstract=document.abstract,
        warnings=warnings,
    )


# ------------------------------------------------------------------ opening the file
def _check_signature(path: Path) -> None:
    if not path.is_file():
        raise NotAPdfError(path, "no such file")
    with path.open("rb") as fh:
        head = fh.read(1024)
    if not head:
        raise EmptyFileError(path, "the file is empty (0 bytes)")
    # The PDF spec lets the header sit anywhere in the first 1024 bytes.
    if _PDF_MAGIC not in head:
        kind = "HTML" if re.search(rb"<(!doctype|html)", head[:200], re.I) else "not a PDF"
        raise NotAPdfError(path, f"the file is {kind}: it does not start with the %PDF- signature")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class _open:
    """pdfplumber for the text layer and pypdfium2 for rendering, with their parse
    errors turned into ``ExtractionError``s."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> tuple[pdfplumber.PDF, pdfium.PdfDocument | None]:
        try:
            self.pdf = pdfplumber.open(self.path)
            _ = self.pdf.pages  # parses the page tree: a broken file fails here
        except PdfminerException as exc:
            cause = exc.args[0] if exc.args else exc
            if isinstance(cause, PDFEncryptionError):
                raise EncryptedPdfError(self.path, "the PDF is encrypted and needs a password") from exc
            raise CorruptPdfError(self.path, f"the PDF structure is damaged ({cause!r})") from exc
        except PSException as exc:
            raise CorruptPdfError(self.path, f"the PDF structure is damaged ({exc!r})") from exc
        try:
            self.rendering: pdfium.PdfDocument | None = pdfium.PdfDocument(self.path)
        except pdfium.PdfiumError:
            # pdfplumber can read it; only OCR would need rendering (reported if it does).
            self.rendering = None
        return self.pdf, self.rendering

    def __exit__(self, *exc: object) -> None:
        self.pdf.close()
        if self.rendering is not None:
            self.rendering.close()


# ------------------------------------------------------------------ text layer
def _read_text_layer(page: pdfplumber.page.Page) -> tuple[list[Word], list[Graphic], str | None]:
    """The page's words and drawn objects, and why the text layer should not be
    trusted (None when it is good)."""
    width, height = float(page.width), float(page.height)
    words: list[Word] = []
    for w in page.extract_words(x_tolerance_ratio=0.15, return_chars=True):
        if not w["upright"] or w["x1"] < 0 or w["x0"] > width or w["bottom"] < 0 or w["top"] > height:
            continue  # rotated stamps (the arXiv margin id) and text off the page
        chars = w["chars"]
        size = Counter(round(c["size"], 1) for c in chars).most_common(1)[0][0]
        bold = sum(_is_bold(c["fontname"]) for c in chars) * 2 > len(chars)
        # Baseline from the text matrix (y0 - f is the glyph's descent): symbol fonts
        # often carry boxes shifted off the line, their baselines are right.
        letters = [c for c in chars if c["text"].isalnum()] or chars
        baseline = statistics.median(c["bottom"] + c["y0"] - c["matrix"][5] for c in letters)
        words.append(Word(w["text"], w["x0"], w["top"], w["x1"], w["bottom"], size, bold, baseline))
    graphics = [
        Graphic((o["x0"], o["top"], o["x1"], o["bottom"]), kind)
        for kind, objects in (("curve", page.curves), ("line", page.lines), ("rect", page.rects))
        for o in objects
    ] + [
        # Some TeX drivers draw rules (table lines, root bars) as one-pixel images.
        Graphic(box, "image" if min(box[2] - box[0], box[3] - box[1]) >= 10 else "line")
        for box in ((o["x0"], o["top"], o["x1"], o["bottom"]) for o in page.images)
    ]
    return words, graphics, _text_layer_problem(words, graphics, width * height)


@lru_cache(maxsize=512)
def _is_bold(fontname: str) -> bool:
    return bool(_BOLD_FONT.search(fontname.split("+")[-1]))


def _text_layer_problem(words: list[Word], graphics: list[Graphic], area: float) -> str | None:
    text = "".join(w.text for w in words)
    chars = sum(ch.isalnum() for ch in text)
    image_cover = sum(
        (g.bbox[2] - g.bbox[0]) * (g.bbox[3] - g.bbox[1]) for g in graphics if g.kind == "image"
    ) / max(area, 1.0)
    if chars == 0:
        return "no text layer" if image_cover > 0.05 else None  # a blank page needs no OCR
    unmapped = len(_UNMAPPED.findall(text))
    if unmapped > 0.1 * max(chars, 1):
        return f"{unmapped} unmapped glyphs in the text layer"
    if image_cover > 0.5 and chars < 200:
        return f"only {chars} characters over a page-size image"
    return None


# ------------------------------------------------------------------ OCR
def _ocr_page(path: Path, rendering: pdfium.PdfDocument | None, number: int, backend: OcrBackend, settings: Settings) -> list[Word]:
    if rendering is None:
        raise OcrFailedError(path, f"page {number} needs OCR but the PDF cannot be rendered")
    page = rendering[number - 1]
    try:
        image = page.render(scale=settings.ocr_dpi / 72, grayscale=True).to_pil()
    finally:
        page.close()
    try:
        return backend.read(image, 72 / settings.ocr_dpi)
    except OcrUnavailableError as exc:
        raise OcrFailedError(path, f"page {number} needs OCR: {exc}") from exc
    finally:
        image.close()
