"""OCR backends: a rendered page image -> positioned words in PDF points.

Tesseract (through pytesseract) is the default and always available here.
Surya is optional: it needs ``requirements-surya.txt`` (a torch build of several GB)
and its weights in Surya's model cache, which cannot be downloaded on an offline
machine. When either is missing the Surya backend is skipped with one logged message
and Tesseract is used instead.
"""

from __future__ import annotations

import logging
import os
import re
import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Protocol
from xml.etree import ElementTree

from PIL import Image

from ingest.extract.layout import Word
from mitra.core.settings import Settings

log = logging.getLogger(__name__)


class OcrUnavailableError(RuntimeError):
    """The OCR engine itself cannot run (binary or language data missing)."""


class OcrBackend(Protocol):
    name: str

    def read(self, image: Image.Image, scale: float) -> list[Word]:
        """Words of the image; ``scale`` converts pixels to PDF points (72 / dpi)."""
        ...


@dataclass
class TesseractOcr:
    """Tesseract through pytesseract, read as hOCR: the same words, lines, boxes and
    confidences as ``image_to_data``, plus each line's baseline and font height
    (``x_size``), which the layout rules need and line boxes only approximate."""

    language: str = "eng"
    name: str = "tesseract"

    def read(self, image: Image.Image, scale: float) -> list[Word]:
        import pytesseract

        try:
            with one_omp_thread():
                hocr = pytesseract.image_to_pdf_or_hocr(image, lang=self.language, config="--psm 3", extension="hocr")
        except (pytesseract.TesseractNotFoundError, pytesseract.TesseractError) as exc:
            raise OcrUnavailableError(f"tesseract failed ({exc}); is tesseract-ocr with '{self.language}' installed?") from exc
        found: list[tuple[str, list[float], float, float]] = []  # text, box, baseline, size (pixels)
        slopes: list[float] = []
        for line in ElementTree.fromstring(hocr).iter(f"{_XHTML}span"):
            if line.get("class") not in _HOCR_LINES:
                continue
            props = _hocr_title(line.get("title", ""))
            x0, _, x1, y1 = props["bbox"]
            slope, offset = props.get("baseline", [0.0, 0.0])
            size = props.get("x_size", [y1 - props["bbox"][1]])[0]
            slopes.extend([slope] * int((x1 - x0) / 100))  # weighted by line length
            for span in line.iter(f"{_XHTML}span"):
                text = "".join(span.itertext()).strip()
                if span.get("class") != "ocrx_word" or not text:
                    continue
                word = _hocr_title(span.get("title", ""))
                if word.get("x_wconf", [100.0])[0] < _MIN_CONFIDENCE:
                    continue
                box = word["bbox"]
                found.append((text, box, y1 + offset + slope * ((box[0] + box[2]) / 2 - x0), size))
        # A scan is often slightly rotated: shear the words level again (the median line
        # slope is the page's skew), so that one text line keeps one baseline across the page.
        skew = statistics.median(slopes) if slopes else 0.0
        centre = image.width / 2
        words: list[Word] = []
        for text, (x0, top, x1, bottom), baseline, size in found:
            shift = skew * ((x0 + x1) / 2 - centre)
            words.append(
                Word(
                    text,
                    x0 * scale,
                    (top - shift) * scale,
                    x1 * scale,
                    (bottom - shift) * scale,
                    size * scale,
                    False,
                    (baseline - shift) * scale,
                )
            )
        return words


_XHTML = "{http://www.w3.org/1999/xhtml}"
# Below this word confidence Tesseract is mostly reading plot marks and noise as letters.
_MIN_CONFIDENCE = 30.0
# Tesseract tags a text line with one of these classes depending on its role.
_HOCR_LINES = {"ocr_line", "ocr_header", "ocr_caption", "ocr_textfloat"}


def _hocr_title(title: str) -> dict[str, list[float]]:
    """'bbox 1 2 3 4; baseline 0.001 -5; x_size 42' -> {'bbox': [1, 2, 3, 4], ...}"""
    props: dict[str, list[float]] = {}
    for part in title.split(";"):
        name, *values = part.split()
        if values and name != "image":
            props[name] = [float(v) for v in values]
    return props


# Tesseract's misreadings of physics notation, each undone only where the misread text
# cannot be what was printed: "+ 2.4 (stat)" and "80 353 + 6 MeV" (± read as +: prose
# does not add two measured values; "a + b (stat)" is left, b not being a number),
# "fb-!" (fb⁻¹), "Vs =" (√s), "W - pv" (W → μν: "pv" is no word), "4€" (4ℓ).
_UNIT = re.compile(r"^(?:[kMGT]?eV|%|[afpn]b|[fpn]s|[mcμ]m)[.,;:)]?$")
_UNCERTAINTY = re.compile(r"\((?:stat|syst?|theo|theory|lumi|exp|model|scale|pdf)\.?\)[.,;:]?$", re.I)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?[.,;:]?$")
# fb⁻¹ as Tesseract reads it in hep_pdfs: "fb-!", "fb-1", "fb~'", 'fb"!', "fb‘".
_INVERSE_BARN = re.compile(r"^(\(?)([afpn]b)(?:[-−–~\"]\s?[1!lI|?*'‘’]|[‘’'])(\)?[.,;:]?)$")
# √s: "Vs", "vs", "ys", "Ys", "/s", "-/s", "+s", "\/s", always before "= <number>".
_ROOT_S = re.compile(r"^(\(?)(?:[VvYy]|\\/|-/|/|\+|V/)s$")
_ARROW = re.compile(r"^(?:-|—|–|->|—>|-->|>|→)$")
# ℓ read as a currency sign: after a count ("4€" for 4ℓ, "2€2v"), before "= e" ("(€ = e,
# μ)"), or doubled before γ ("€€y"). A lone "€" elsewhere may be ∈ ("m € [105, 160]").
_ELL_COUNT = re.compile(r"(?<=\d)[€£¢]{1,2}")
_ELL_NAMED = re.compile(r"^(\(?)[€£]$")
_ELL_PAIR = re.compile(r"^[€£]{2}y([.,;:)]?)$")
_DECAY = {"W": re.compile(r"^(p|u|µ|μ)v([.,;:)]?)$"), "Z": re.compile(r"^(?:pp|yp|py|uu|up|pu|µµ|μμ)([.,;:)]?)$")}
_DECAY_TO = {"W": "μν", "Z": "μμ"}


def _equals_number(following: list[str]) -> bool:
    return len(following) == 2 and following[0] == "=" and bool(_NUMBER.match(following[1]))


def physics_fixes(words: list[Word]) -> list[Word]:
    """``words`` (in reading order) with Tesseract's misreadings of notation undone."""
    texts = [w.text for w in words]
    for i, text in enumerate(texts):
        following = texts[i + 1 : i + 3]
        measured = len(following) == 2 and _NUMBER.match(following[0])
        if text == "+" and measured and (
            _UNCERTAINTY.match(following[1])
            or (i > 0 and _NUMBER.match(texts[i - 1]) and (_UNIT.match(following[1]) or _INVERSE_BARN.match(following[1])))
        ):
            texts[i] = "±"
        elif text.startswith("+") and _NUMBER.match(text[1:]) and (
            (following and _UNCERTAINTY.match(following[0])) or (i > 0 and texts[i - 1].lower() == "within")
        ):
            texts[i] = "±" + text[1:]
        elif barn := _INVERSE_BARN.match(text):
            texts[i] = f"{barn.group(1)}${barn.group(2)}^{{-1}}${barn.group(3)}"
        elif _ROOT_S.match(text) and _equals_number(following):
            texts[i] = _ROOT_S.sub(r"\1√s", text)
        elif _ELL_COUNT.search(text):
            texts[i] = _ELL_COUNT.sub("ℓ", text)
        elif _ELL_NAMED.match(text) and following[:1] == ["="]:
            texts[i] = _ELL_NAMED.sub(r"\1ℓ", text)
        elif pair := _ELL_PAIR.match(text):
            texts[i] = "ℓℓγ" + pair.group(1)
        elif text in _DECAY and following:
            arrow = bool(_ARROW.match(following[0]))
            products = following[1] if arrow and len(following) == 2 else following[0]
            decay = _DECAY[text].match(products)
            if decay:
                k = i + 1 + arrow
                texts[k] = _DECAY_TO[text] + decay.group(decay.lastindex)
                if arrow:
                    texts[i + 1] = "→"
                else:
                    texts[k] = "→ " + texts[k]
    return [w if w.text == t else replace(w, text=t) for w, t in zip(words, texts)]


@contextmanager
def one_omp_thread() -> Iterator[None]:
    """Tesseract's OpenMP threads fight each other on a small machine: one thread is
    three times faster here (7 s instead of 23 s for a 300 dpi page on 2 cores). Set
    only around the call: the variable would also cap torch if it loaded meanwhile."""
    previous = os.environ.get("OMP_THREAD_LIMIT")
    os.environ["OMP_THREAD_LIMIT"] = "1"
    try:
        yield
    finally:
        if previous is None:
            del os.environ["OMP_THREAD_LIMIT"]
        else:
            os.environ["OMP_THREAD_LIMIT"] = previous


_MARKUP = re.compile(r"</?[a-zA-Z][^>]*>")


class SuryaOcr:
    """surya-ocr 0.17 (``FoundationPredictor`` / ``RecognitionPredictor`` / ``DetectionPredictor``)."""

    name = "surya"

    def __init__(self) -> None:
        from surya.detection import DetectionPredictor
        from surya.foundation import FoundationPredictor
        from surya.recognition import RecognitionPredictor

        self._recognise = RecognitionPredictor(FoundationPredictor())
        self._detect = DetectionPredictor()

    def read(self, image: Image.Image, scale: float) -> list[Word]:
        result = self._recognise([image.convert("RGB")], det_predictor=self._detect, return_words=True)[0]
        words: list[Word] = []
        for line in result.text_lines:
            size = (line.bbox[3] - line.bbox[1]) * scale
            for text, box in _surya_words(line):
                text = _MARKUP.sub("", text).strip()
                if text:
                    words.append(Word(text, box[0] * scale, box[1] * scale, box[2] * scale, box[3] * scale, size))
        return words


def _surya_words(line: Any) -> list[tuple[str, list[float]]]:
    """Surya's word boxes, or the line cut evenly by character count when it has none."""
    if line.words:
        return [(w.text, w.bbox) for w in line.words]
    parts = line.text.split()
    total = sum(len(p) for p in parts) + len(parts) - 1
    x0, top, x1, bottom = line.bbox
    per_char = (x1 - x0) / max(total, 1)
    out, pos = [], 0
    for part in parts:
        out.append((part, [x0 + pos * per_char, top, x0 + (pos + len(part)) * per_char, bottom]))
        pos += len(part) + 1
    return out


@lru_cache(maxsize=1)
def surya_unavailable() -> str | None:
    """Why Surya cannot be used here, or None when it can (package importable and
    detection + recognition weights present in its cache). Logged once."""
    try:
        from surya.common.s3 import check_manifest
        from surya.settings import settings as surya_settings
    except ImportError:
        reason = "surya-ocr is not installed (pip install -r requirements-surya.txt); using Tesseract"
    else:
        cache = surya_settings.MODEL_CACHE_DIR
        checkpoints = (surya_settings.DETECTOR_MODEL_CHECKPOINT, surya_settings.RECOGNITION_MODEL_CHECKPOINT)
        missing = [c for c in checkpoints if not check_manifest(os.path.join(cache, c.removeprefix("s3://")))]
        reason = (
            f"surya weights {', '.join(missing)} are not in {cache} and cannot be downloaded here; using Tesseract"
            if missing
            else None
        )
    if reason:
        log.warning("OCR: %s", reason)
    return reason


def ocr_backend(settings: Settings) -> tuple[OcrBackend, str | None]:
    """The backend named by ``settings.ocr_backend`` ("auto": Surya when it can run)
    and, when Surya was asked for by name but cannot run, why Tesseract is used instead."""
    if settings.ocr_backend in ("auto", "surya"):
        reason = surya_unavailable()
        if reason is None:
            return _surya(), None
        return TesseractOcr(settings.ocr_language), reason if settings.ocr_backend == "surya" else None
    return TesseractOcr(settings.ocr_language), None


@lru_cache(maxsize=1)
def _surya() -> SuryaOcr:
    return SuryaOcr()  # loads the models once per process
