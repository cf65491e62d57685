"""Extract: a PDF file -> typed blocks in reading order, page by page.

Each page's text layer is read with its positions through PDFium (pypdfium2: every
character's box, baseline, font size and font, and the drawn objects, which tell
where figures are); pdfplumber reads the same but 5-20 times slower on pages full
of vector plots. When the text layer is missing or unusable — no text over a scanned
image, unmapped glyphs — the page is rendered at ``settings.ocr_dpi`` and OCR'd
instead. Either way the page's words go through ``ingest.extract.layout``. Pages are handled
one at a time and released, so a 500-page PDF streams in bounded memory.

Bad input raises a specific ``ExtractionError`` subclass with a clear message, so a
batch can record the failure for that file and go on.
"""

from __future__ import annotations

import ctypes
import logging
import math
import re
import statistics
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pdfplumber
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from pdfminer.pdfdocument import PDFEncryptionError
from pdfminer.psexceptions import PSException
from pdfplumber.utils.exceptions import PdfminerException

from ingest.extract.layout import (
    UNMAPPED, Graphic, PageLayout, PageWords, Word, is_slide_deck, layout_document, layout_page, layout_slides,
)
from ingest.extract.base import (
    EmptyFileError, ExtractedDocument, ExtractionError, NoTextFoundError, NotAPdfError, Progress, TooLargeError,
)
from ingest.extract.inflation import check_pdf
from ingest.extract.layout.slides import LANDSCAPE_RATIO
from ingest.sources.manifest import file_sha256
from ingest.extract.ocr import OcrBackend, OcrUnavailableError, ocr_backend, physics_fixes
from ingest.extract.ocr_digits import checked_numbers
from mitra.core.settings import Settings

log = logging.getLogger(__name__)


class CorruptPdfError(ExtractionError):
    """The PDF structure cannot be parsed (truncated file, broken cross-reference table)."""


class EncryptedPdfError(ExtractionError):
    """The PDF needs a password to be opened."""


class EmptyPdfError(ExtractionError):
    """A well-formed PDF with zero pages."""


class OcrFailedError(ExtractionError):
    """A page needed OCR and the OCR engine could not run."""


_PDF_MAGIC = b"%PDF-"
# Glyphs without a character map whose code says what they are: (font, code, character).
# TeX's maths italic (Computer Modern, txfonts, Latin Modern) has ℓ at 0x60, where most
# papers of hep_pdfs lose it ("4` (` = e, µ)"); STIX sets ± at its Latin-1 code.
_KNOWN_GLYPHS = (
    (re.compile(r"^(cmmi\d|rtxmi|lmmathitalic|lmmi)", re.I), 0x60, "ℓ"),
    (re.compile(r"^STIXGeneral", re.I), 0xB1, "±"),
)
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
    check_pdf(path, settings)
    digest = file_sha256(path)
    ocr = _Ocr(path, settings)
    layouts: list[PageLayout] = []
    landscape: dict[int, PageWords] = {}  # the pages that may be slides, to lay out again as such
    unmapped: dict[int, int] = {}  # page -> glyphs of the text layer without a character
    pdf = _open(path)
    try:
        total = len(pdf)
        if total == 0:
            raise EmptyPdfError(path, "the PDF has no pages")
        if total > settings.max_pdf_pages:
            raise TooLargeError(path, f"the PDF has {total:,} pages, over max_pdf_pages ({settings.max_pdf_pages:,})")
        selected = sorted({n for n in pages if 1 <= n <= total}) if pages is not None else range(1, total + 1)
        for done, number in enumerate(selected, 1):
            page = pdf[number - 1]
            try:
                words = _read_page(page, number, ocr, force_ocr)
                if words.source == "text":
                    unmapped[number] = sum(len(UNMAPPED.findall(w.text)) for w in words.words)
                layouts.append(layout_page(words))
                if words.width >= LANDSCAPE_RATIO * words.height:
                    landscape[number] = words
            finally:
                page.close()
            if progress is not None:
                progress(done, len(selected))
    finally:
        pdf.close()

    if not any(b.text.strip() for p in layouts for b in p.blocks):
        how = "OCR found no text on its image-only pages" if ocr.pages else "its pages carry no text"
        raise NoTextFoundError(path, how)
    deck = is_slide_deck(layouts)
    if deck:
        layouts = [layout_page(landscape[p.number], slide=True) if p.number in landscape else p for p in layouts]
    document = layout_slides(layouts) if deck else layout_document(layouts)
    lost = {n: k for n, k in unmapped.items() if k}
    if lost:
        pages_list = ", ".join(f"p.{n}" for n in lost)
        ocr.warnings.append(f"{sum(lost.values())} glyphs have no character in the text layer ({pages_list}): left out")
        log.info("%s: %s", path.name, ocr.warnings[-1])
    return ExtractedDocument(
        path=path,
        sha256=digest,
        pages=total,
        ocr_pages=ocr.pages,
        blocks=document.blocks,
        title=document.title,
        abstract=document.abstract,
        warnings=ocr.warnings,
        unit="slide" if deck else "page",
        format="pdf-slides" if deck else "pdf",
    )


def _read_page(page: pdfium.PdfPage, number: int, ocr: _Ocr, force_ocr: bool) -> PageWords:
    """The page's words from its text layer, or from OCR when that layer is unusable."""
    left, bottom, right, top = page.get_cropbox()
    width, height = right - left, top - bottom
    words, graphics = _text_words(page), _graphics(page)
    reason = _text_layer_problem(words, graphics, width * height)
    if not (force_ocr or reason):
        return PageWords(number, width, height, tuple(words), "text", tuple(graphics))
    if reason:
        log.info("%s p.%d: OCR (%s)", ocr.path.name, number, reason)
    return PageWords(number, width, height, tuple(ocr.read(page, number)), "ocr")


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


def _open(path: Path) -> pdfium.PdfDocument:
    """The document, or the ``ExtractionError`` saying why it cannot be read. PDFium
    reports some failures vaguely (it refuses a zero-page file with a password error):
    pdfminer then tells encrypted, empty and damaged files apart."""
    try:
        return pdfium.PdfDocument(path)
    except pdfium.PdfiumError as failure:
        try:
            with pdfplumber.open(path) as pdf:
                pages = len(pdf.pages)
        except PdfminerException as exc:
            cause = exc.args[0] if exc.args else exc
            if isinstance(cause, PDFEncryptionError):
                raise EncryptedPdfError(path, "the PDF is encrypted and needs a password") from exc
            raise CorruptPdfError(path, f"the PDF structure is damaged ({cause!r})") from exc
        except PSException as exc:
            raise CorruptPdfError(path, f"the PDF structure is damaged ({exc!r})") from exc
        if pages == 0:
            raise EmptyPdfError(path, "the PDF has no pages") from failure
        raise CorruptPdfError(path, f"PDFium cannot read the PDF ({failure})") from failure


# ------------------------------------------------------------------ text layer
def _text_words(page: pdfium.PdfPage) -> list[Word]:
    """Words of the text layer: characters joined until a space, a line change or a gap.
    Rotated characters (the arXiv stamp in the margin, vertical axis titles) are left out."""
    left, _, _, top = page.get_cropbox()
    textpage = page.get_textpage()
    handle = textpage.raw
    box, x, y = pdfium_c.FS_RECTF(), ctypes.c_double(), ctypes.c_double()
    font_of: dict[int, tuple[str, bool]] = {}  # text object -> its font's base name, bold
    words: list[Word] = []
    chars: list[Word] = []  # the characters of the word being read
    try:
        for i in range(textpage.count_chars()):
            code = pdfium_c.FPDFText_GetUnicode(handle, i)
            angle = pdfium_c.FPDFText_GetCharAngle(handle, i)
            if pdfium_c.FPDFText_IsGenerated(handle, i) or chr(code).isspace() or min(angle, 2 * math.pi - angle) > 0.01:
                words.extend(_word(chars))
                continue
            size = pdfium_c.FPDFText_GetFontSize(handle, i)
            pdfium_c.FPDFText_GetLooseCharBox(handle, i, box)
            pdfium_c.FPDFText_GetCharOrigin(handle, i, x, y)
            text_object = pdfium_c.FPDFText_GetTextObject(handle, i)
            key = ctypes.cast(text_object, ctypes.c_void_p).value or 0
            if key not in font_of:
                font_of[key] = _font(pdfium_c.FPDFTextObj_GetFont(text_object)) if key else ("", False)
            font, bold = font_of[key]
            # Code 0: a glyph mapped to U+0000, what a writer emits for a character its
            # font lacks (.notdef). It is an unmapped glyph, not a space between words.
            if code == 0:
                text = "\ufffd"
            elif pdfium_c.FPDFText_HasUnicodeMapError(handle, i):
                # Without a character map PDFium returns the glyph's code in its font.
                text = next((ch for pattern, at, ch in _KNOWN_GLYPHS if at == code and pattern.search(font)), "\ufffd")
            else:
                text = "-" if code == 2 else chr(code)  # PDFium marks a line-end hyphen as 0x02
            char = Word(text, box.left - left, top - box.top, box.right - left, top - box.bottom, size, bold, top - y.value)
            if chars and _starts_word(chars[-1], char):
                words.extend(_word(chars))
            chars.append(char)
        words.extend(_word(chars))
    finally:
        textpage.close()
    return words


def _starts_word(previous: Word, char: Word) -> bool:
    """A gap, a line change, or a sub/superscript: a change of size with a shifted
    baseline ("p" + "T" in p_T), which the layout needs as a word of its own."""
    size = max(previous.size, char.size)
    shift = abs(char.baseline - previous.baseline)
    resized = abs(char.size - previous.size) > 0.15 * size
    return char.x0 - previous.x1 > 0.15 * char.size or shift > 0.3 * char.size or (resized and shift > 0.08 * size)


def _word(chars: list[Word]) -> list[Word]:
    """The word made of ``chars`` (emptied), at its dominant size and letters' baseline."""
    if not chars:
        return []
    letters = [c for c in chars if c.text.isalnum()] or chars
    # PDFium returns UTF-16 code units: a character beyond the BMP (math italic 𝑯)
    # arrives as a surrogate pair to put back together.
    text = "".join(c.text for c in chars).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    word = Word(
        text,
        min(c.x0 for c in chars),
        min(c.top for c in chars),
        max(c.x1 for c in chars),
        max(c.bottom for c in chars),
        Counter(round(c.size, 1) for c in chars).most_common(1)[0][0],
        sum(c.bold for c in chars) * 2 > len(chars),
        statistics.median(c.baseline for c in letters),
    )
    chars.clear()
    return [word]


def _font(font: pdfium_c.FPDF_FONT) -> tuple[str, bool]:
    """The font's base name and whether it is bold."""
    length = pdfium_c.FPDFFont_GetBaseFontName(font, None, 0)
    name = ctypes.create_string_buffer(length)
    pdfium_c.FPDFFont_GetBaseFontName(font, name, length)
    base = name.value.decode("latin-1").split("+")[-1]  # drop the subset prefix "ABCDEF+"
    return base, bool(_BOLD_FONT.search(base)) or pdfium_c.FPDFFont_GetWeight(font) >= 600


def _graphics(page: pdfium.PdfPage) -> list[Graphic]:
    """Paths and images, in page coordinates (objects inside form XObjects are placed
    by their forms' matrices)."""
    left, _, _, top = page.get_cropbox()
    out: list[Graphic] = []
    kinds = [pdfium_c.FPDF_PAGEOBJ_PATH, pdfium_c.FPDF_PAGEOBJ_IMAGE]
    for obj in page.get_objects(filter=kinds, max_depth=8):
        x0, y0, x1, y1 = obj.get_bounds()
        form = obj.container
        while form is not None:
            x0, y0, x1, y1 = form.get_matrix().on_rect(x0, y0, x1, y1)
            form = form.container
        box = (x0 - left, top - y1, x1 - left, top - y0)
        if obj.type == pdfium_c.FPDF_PAGEOBJ_IMAGE:
            # Some TeX drivers draw rules (table lines, root bars) as one-pixel images.
            kind = "image" if min(box[2] - box[0], box[3] - box[1]) >= 10 else "line"
        else:
            segments = (pdfium_c.FPDFPath_GetPathSegment(obj.raw, k) for k in range(pdfium_c.FPDFPath_CountSegments(obj.raw)))
            curved = any(pdfium_c.FPDFPathSegment_GetType(seg) == pdfium_c.FPDF_SEGMENT_BEZIERTO for seg in segments)
            kind = "curve" if curved else "line"
        out.append(Graphic(box, kind))
    return out


def _text_layer_problem(words: list[Word], graphics: list[Graphic], area: float) -> str | None:
    text = "".join(w.text for w in words)
    chars = sum(ch.isalnum() for ch in text)
    image_cover = sum(
        (g.bbox[2] - g.bbox[0]) * (g.bbox[3] - g.bbox[1]) for g in graphics if g.kind == "image"
    ) / max(area, 1.0)
    if chars == 0:
        return "no text layer" if image_cover > 0.05 else None  # a blank page needs no OCR
    unmapped = len(UNMAPPED.findall(text))
    # A few unmapped glyphs are symbols in a plot's font; a font without a character
    # map leaves most of the page unreadable.
    if unmapped > 0.3 * (chars + unmapped):
        return f"{unmapped} of {chars + unmapped} glyphs have no character in the text layer"
    if image_cover > 0.5 and chars < 200:
        return f"only {chars} characters over a page-size image"
    return None


# ------------------------------------------------------------------ OCR
class _Ocr:
    """Renders pages and OCRs them with the configured backend, chosen on the first
    page that needs it; records which pages it read and any note about the backend."""

    def __init__(self, path: Path, settings: Settings) -> None:
        self.path = path
        self.settings = settings
        self.pages: list[int] = []
        self.warnings: list[str] = []
        self._backend: OcrBackend | None = None

    def read(self, page: pdfium.PdfPage, number: int) -> list[Word]:
        if self._backend is None:
            self._backend, note = ocr_backend(self.settings)
            self.warnings.extend([note] if note else [])
        dpi = self.settings.ocr_dpi
        width, height = page.get_size()
        if (width * dpi / 72) * (height * dpi / 72) > self.settings.max_image_pixels:
            # a page this large (a poster, or a MediaBox from nowhere) is rendered smaller
            dpi = int(72 * math.sqrt(self.settings.max_image_pixels / (width * height)))
            self.warnings.append(f"page {number} ({width / 72:.0f} × {height / 72:.0f} in) was rendered for OCR at "
                                 f"{dpi} dpi, to stay within max_image_pixels")
        image = page.render(scale=dpi / 72, grayscale=True).to_pil()
        try:
            words = self._backend.read(image, 72 / dpi)
            if self.settings.ocr_physics_fixes and self._backend.name == "tesseract":
                words = checked_numbers(physics_fixes(words), image, 72 / dpi)
        except OcrUnavailableError as exc:
            raise OcrFailedError(self.path, f"page {number} needs OCR: {exc}") from exc
        finally:
            image.close()
        self.pages.append(number)
        return words
