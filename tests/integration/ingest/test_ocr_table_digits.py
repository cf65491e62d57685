"""The scanned demo note's table, read by the real Tesseract as ingestion reads a scan
(issue 47): its numbers are the text layer's, "3.5" and "3.1" no longer "3:0" and "3:1";
a digits-colon-digits word that stays unsure says so beside it."""

from __future__ import annotations

import re
import zlib

from PIL import Image

from demo.corpus_specs import load_specs, resolve_versions
from demo.render_note import _register_fonts, _Renderer
from demo.scan import scan
from ingest.extract.layout import BlockKind, Word
from ingest.extract.ocr_digits import NUMBER_IN_TEXT, UNSURE, checked_numbers
from ingest.extract.pdf import extract_pdf
from mitra.core.settings import Settings


def _table_numbers(path, pages=None) -> list[str]:
    blocks = extract_pdf(path, Settings(_env_file=None, ocr_backend="tesseract"), pages=pages).blocks
    return [m.group(0) for b in blocks if b.kind is BlockKind.table and re.match(r"Table \d+:", b.text)
            for m in NUMBER_IN_TEXT.finditer(b.text)]


def test_the_scanned_notes_table_reads_as_its_text_layer(tmp_path):
    _register_fonts()
    spec = next(s for s in load_specs() if s.id == "SMP-24-002")
    doc = next(d for raw in spec.documents for d in resolve_versions(raw) if d.scanned)
    pdf, _ = _Renderer(spec, doc).render()
    (tmp_path / "text.pdf").write_bytes(pdf)
    seed = zlib.crc32(f"{doc.doc_id}/{doc.version.label}".encode())  # as demo/make_corpus.py scans it
    (tmp_path / "scanned.pdf").write_bytes(scan(pdf, seed, doc.version.date)[0])
    truth = _table_numbers(tmp_path / "text.pdf", pages=[3])
    assert "3.5" in truth and "3.1" in truth
    assert _table_numbers(tmp_path / "scanned.pdf", pages=[3]) == truth


def test_a_number_that_stays_unsure_is_marked():
    blank = Image.new("L", (400, 200), 255)  # nothing to read again there
    words = [Word("3:0", 10, 10, 30, 20, 9.0), Word("(1:3).", 40, 10, 70, 20, 9.0), Word("3.1", 80, 10, 95, 20, 9.0)]
    assert [w.text for w in checked_numbers(words, blank, 72 / 300)] == [f"3:0{UNSURE}", f"(1:3{UNSURE}).", "3.1"]
