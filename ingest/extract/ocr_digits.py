"""Numbers in OCR'd tables: a ":" between digits is no number a table states (the demo's
scan read "3.5" as "3:0" and "3.1" as "3:1"), so such a word is read again, alone, with
digits only, cut out with three margins and magnified three ways; where the confident
clean reads (a number of as many characters) all say the same, that replaces it. Where
none does, or they differ, the word keeps a marker that says so: the chunk's text carries
it, and so does what the member sees.
Measured by ``benchmarks/ocr_tables.py``."""

from __future__ import annotations

import re
from dataclasses import replace

from PIL import Image

from ingest.extract.layout import Word
from ingest.extract.ocr import one_omp_thread

UNSURE = " (OCR unsure)"
# A numeric run of a text, a marker after it included.
NUMBER_IN_TEXT = re.compile(r"\d+(?:[.,:]\d+)*(?:" + re.escape(UNSURE) + ")?")
_COLON_NUMBER = re.compile(r"^(\(?)(\d+(?::\d+)+)(\)?[.,;]?)$")
_CLEAN = re.compile(r"^\d+(?:[.,]\d+)?$")
# The word is cut out with three margins and magnified three ways: one read alone flips
# with a pixel of margin ("3.5", "3:5", "330"), nine that agree do not.
_PADS = (0.2, 0.35, 0.5)  # of the font size
_MAGNIFY = (1, 2, 3)
_MIN_CONFIDENCE = 85.0


def checked_numbers(words: list[Word], image: Image.Image, scale: float) -> list[Word]:
    """``words`` (read from ``image``, ``scale`` points per pixel) with each digits-colon-digits
    word read again alone, or marked unsure."""
    return [_checked(w, image, scale) if _COLON_NUMBER.match(w.text) else w for w in words]


def _checked(word: Word, image: Image.Image, scale: float) -> Word:
    """The word as its confident clean re-reads all say, when at least one does; else marked."""
    before, number, after = _COLON_NUMBER.match(word.text).groups()
    reads = set()
    for pad in (p * word.size for p in _PADS):
        cell = image.crop([round(v / scale) for v in (word.x0 - pad, word.top - pad, word.x1 + pad, word.bottom + pad)])
        for times in _MAGNIFY:
            text, confidence = _read_digits(cell.resize((cell.width * times, cell.height * times),
                                                        Image.Resampling.LANCZOS) if times > 1 else cell)
            if _CLEAN.match(text) and len(text) == len(number) and confidence >= _MIN_CONFIDENCE:
                reads.add(text)
    if len(reads) == 1:
        return replace(word, text=before + reads.pop() + after)
    return replace(word, text=before + number + UNSURE + after)


def _read_digits(cell: Image.Image) -> tuple[str, float]:
    """Tesseract's read of one word of digits, decimal marks and colons only (a colon truly printed
    stays one), and its confidence."""
    import pytesseract

    with one_omp_thread():
        data = pytesseract.image_to_data(cell, config="--psm 7 -c tessedit_char_whitelist=0123456789.,:",
                                         output_type=pytesseract.Output.DICT)
    read = [(t.strip(), float(c)) for t, c in zip(data["text"], data["conf"]) if t.strip()]
    return (read[0][0], read[0][1]) if len(read) == 1 else ("", 0.0)
