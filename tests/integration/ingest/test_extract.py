"""Extract stage on real PDFs: the text layer, real Tesseract on rendered pages, bad input."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.extract.base import EmptyFileError, ExtractionError, NotAPdfError, NoTextFoundError
from ingest.extract.pdf import CorruptPdfError, EmptyPdfError, EncryptedPdfError, extract_pdf
from ingest.extract.layout import BlockKind
from ingest.extract.ocr import surya_unavailable
from mitra.core.settings import Settings
from tests.conftest import NOTE_ABSTRACT, NOTE_HEADER, NOTE_TITLE, SCAN_LINES

from tests.conftest import REPO


@pytest.fixture(scope="module")
def note(note_pdf):
    return extract_pdf(note_pdf, Settings())


def words_of(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def test_text_layer_gives_typed_blocks_in_reading_order(note, note_pdf):
    assert note.pages == 3 and note.ocr_pages == [] and note.warnings == []
    assert note.sha256 == hashlib.sha256(note_pdf.read_bytes()).hexdigest()
    assert note.title == NOTE_TITLE
    assert note.abstract == " ".join(NOTE_ABSTRACT)
    headings = [(b.text, b.level, b.page) for b in note.blocks if b.kind is BlockKind.heading]
    assert headings == [
        ("Abstract", 1, 1),
        ("1 Introduction", 1, 1),
        ("2 Event selection", 1, 2),
        ("2.1 Muon identification", 2, 2),
        ("3 Results", 1, 3),
    ]
    assert all(b.source == "text" for b in note.blocks)
    pages = [b.page for b in note.blocks if b.kind is BlockKind.body]
    assert pages == sorted(pages)


def test_page_furniture_is_tagged_not_mixed_into_text(note):
    by_kind = {kind: [b.text for b in note.blocks if b.kind is kind] for kind in BlockKind}
    assert by_kind[BlockKind.header] == [NOTE_HEADER] * 3
    assert by_kind[BlockKind.page_number] == [f"Page {n} of 3" for n in (1, 2, 3)]
    assert " ".join(by_kind[BlockKind.line_numbers]).split() == [str(n) for n in range(1, 17)]
    body = " ".join(by_kind[BlockKind.body])
    assert "calibration" in body and not re.search(r"\b(1[0-6]|[1-9])\b (The|in|events)\b", body)
    assert "alignment of the tracker" in body  # "align-" + "ment" joined
    assert by_kind[BlockKind.caption] == ["Figure 1: Dimuon invariant mass near the Z boson peak in data."]
    assert "m(mumu) [GeV]" in " ".join(by_kind[BlockKind.figure])


def test_progress_and_page_selection(note_pdf):
    seen: list[tuple[int, int]] = []
    doc = extract_pdf(note_pdf, Settings(), pages=[2, 3], progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 2), (2, 2)]
    assert {b.page for b in doc.blocks} == {2, 3} and doc.pages == 3


def test_two_columns_are_read_in_order(two_column_pdf):
    doc = extract_pdf(two_column_pdf, Settings())
    body = [b.text for b in doc.blocks if b.kind is BlockKind.body]
    assert len(body) == 2
    assert body[0].startswith("Left column sentence number 1 ") and "number 30" in body[0]
    assert body[1].startswith("Right column sentence number 1 ") and "Left" not in body[1]


def test_image_only_page_goes_through_ocr(scanned_pdf):
    doc = extract_pdf(scanned_pdf, Settings(ocr_dpi=200))
    assert doc.ocr_pages == [1] and all(b.source == "ocr" for b in doc.blocks)
    found = set(words_of(" ".join(b.text for b in doc.blocks)))
    expected = words_of(" ".join(SCAN_LINES))
    assert sum(w in found for w in expected) >= 0.9 * len(expected)


def test_force_ocr_reads_a_text_page_with_tesseract(two_column_pdf):
    doc = extract_pdf(two_column_pdf, Settings(ocr_dpi=150), force_ocr=True)
    assert doc.ocr_pages == [1]
    body = [b.text for b in doc.blocks if b.kind is BlockKind.body]
    assert body[0].startswith("Left column") and body[-1].startswith("Right column")


def test_surya_is_skipped_with_one_clear_reason():
    reason = surya_unavailable()
    assert reason is not None and "Tesseract" in reason  # not installed here (requirements-surya.txt)


@pytest.mark.parametrize(
    ("name", "error", "message"),
    [
        ("encrypted", EncryptedPdfError, "encrypted"),
        ("truncated", CorruptPdfError, "damaged"),
        ("zero_pages", EmptyPdfError, "no pages"),
        ("html", NotAPdfError, "HTML"),
        ("empty", EmptyFileError, "empty"),
        ("blank_scan", NoTextFoundError, "OCR found no text"),
    ],
)
def test_bad_input_raises_its_specific_error(bad_pdfs, name, error, message):
    with pytest.raises(error, match=message) as raised:
        extract_pdf(bad_pdfs[name], Settings(ocr_dpi=100))
    assert isinstance(raised.value, ExtractionError) and raised.value.path == bad_pdfs[name]


def test_missing_file_is_reported(tmp_path):
    with pytest.raises(NotAPdfError, match="no such file"):
        extract_pdf(tmp_path / "absent.pdf", Settings())


# ------------------------------------------------------------------ slow: memory and real papers
_PEAK_RSS = """
import json, resource, sys
from pathlib import Path
from ingest.extract.pdf import extract_pdf
from mitra.core.settings import Settings
doc = extract_pdf(Path(sys.argv[1]), Settings(), pages=range(1, int(sys.argv[2]) + 1))
print(json.dumps({"blocks": len(doc.blocks), "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _long_pdf(path: Path, pages: int) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path), pagesize=A4, invariant=1)
    for n in range(1, pages + 1):
        canvas.setFont("Helvetica", 8)
        canvas.drawString(72, 810, "ORION long note")
        canvas.drawString(290, 30, f"Page {n}")
        canvas.setFont("Helvetica-Bold", 12)
        canvas.drawString(72, 780, f"{n} Section {n}")
        canvas.setFont("Helvetica", 10)
        for i in range(50):
            canvas.drawString(72, 760 - 12.5 * i, f"Line {i} of page {n}: the detector measures the muon momentum in the barrel.")
        canvas.showPage()
    canvas.save()
    return path


@pytest.mark.slow
def test_a_500_page_pdf_streams_in_bounded_memory(tmp_path):
    """Peak RSS of a process extracting 500 pages stays close to one extracting 50."""
    pdf = _long_pdf(tmp_path / "long.pdf", 500)

    def peak(pages: int) -> dict:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        out = subprocess.run([sys.executable, "-c", _PEAK_RSS, str(pdf), str(pages)], capture_output=True, text=True, env=env, check=True)
        return json.loads(out.stdout)

    short, full = peak(50), peak(500)
    assert full["blocks"] > 9 * short["blocks"]
    assert full["peak_mb"] - short["peak_mb"] < 40, (short, full)


@pytest.mark.slow
def test_real_two_column_paper_page(hep_pdfs):
    doc = extract_pdf(hep_pdfs / "1207.7214v2.pdf", Settings(), pages=[2, 3])
    assert doc.title.startswith("Observation of a New Particle in the Search for the Standard Model Higgs Boson")
    assert doc.abstract.startswith("A search for the Standard Model Higgs boson in proton-proton collisions")
    kinds = [(b.kind, b.text) for b in doc.blocks]
    headings = [t for k, t in kinds if k is BlockKind.heading]
    assert headings[1:] == ["1 Introduction", "2 The ATLAS detector", "3 Signal and background simulation samples"]
    body = [t for k, t in kinds if k is BlockKind.body]
    # The left column's last paragraph is read before the right column's first one.
    left = next(i for i, t in enumerate(body) if t.startswith("Both the ATLAS and CMS Collaborations"))
    assert body[left + 1].startswith("deviations (σ), respectively [17, 18]")
    assert (BlockKind.page_number, "2") in kinds
    assert (BlockKind.footer, "Preprint submitted to Physics Letters B") in kinds


@pytest.mark.slow
def test_ocr_of_a_real_page_agrees_with_its_text_layer(hep_pdfs):
    from rapidfuzz.distance import Levenshtein

    text = extract_pdf(hep_pdfs / "1207.7235v2.pdf", Settings(), pages=[4])
    ocr = extract_pdf(hep_pdfs / "1207.7235v2.pdf", Settings(), pages=[4], force_ocr=True)

    def body(doc) -> str:
        return " ".join(b.text for b in doc.blocks if b.kind is BlockKind.body)

    assert Levenshtein.normalized_distance(body(text), body(ocr)) < 0.1
