"""Chunk stage: extracted PDFs -> Chunk records, on hand-made PDFs, the demo corpus and real papers."""

from __future__ import annotations

import re

import pytest

from demo.corpus_specs import load_specs, resolve_versions
from ingest.chunk.from_blocks import abstract_of, chunk_document
from ingest.extract.pdf import extract_pdf
from ingest.extract.layout import BlockKind
from mitra.core.settings import Settings
from mitra.core.types import ChunkKind, Document
from tests.conftest import NOTE_ABSTRACT, NOTE_HEADER

SETTINGS = Settings(chunk_min_chars=40, chunk_max_chars=600)


def line_number_run(text: str) -> str | None:
    """Four or more consecutive integers separated by spaces only ("57 58 59 60"):
    line numbers left in the text. Citations ("[6, 7]") and numbers in prose do not count."""
    for run in re.finditer(r"(?<![\w.,])\d{1,4}(?:\s+\d{1,4}){3,}(?![\w.])", text):
        values = [int(v) for v in run.group().split()]
        for i in range(len(values) - 3):
            if all(values[i + k] == values[i] + k for k in range(4)):
                return run.group()
    return None


def document(doc_id: str, version: str = "v1") -> Document:
    return Document(analysis_id="TEST-01", doc_id=doc_id, version=version)


@pytest.fixture(scope="module")
def note_chunks(note_pdf):
    return chunk_document(extract_pdf(note_pdf, SETTINGS), document("AN-TEST-01"), SETTINGS).chunks


def test_chunks_carry_provenance_sections_and_page_spans(note_chunks):
    assert [c.position for c in note_chunks] == list(range(len(note_chunks)))
    assert all(c.analysis_id == "TEST-01" and c.doc_id == "AN-TEST-01" and c.version == "v1" for c in note_chunks)
    sections = [(c.section_path, c.kind, c.page_label) for c in note_chunks]
    assert sections == [
        ("Abstract", ChunkKind.body, "p. 1"),
        ("1 Introduction", ChunkKind.body, "p. 1"),
        ("1 Introduction", ChunkKind.body, "pp. 1-2"),
        ("2 Event selection", ChunkKind.body, "p. 2"),
        ("2 Event selection > 2.1 Muon identification", ChunkKind.body, "p. 2"),
        ("2 Event selection > 2.1 Muon identification", ChunkKind.caption, "p. 2"),
        ("2 Event selection > 2.1 Muon identification", ChunkKind.table, "p. 3"),
        ("3 Results", ChunkKind.body, "p. 3"),
    ]
    crossing = note_chunks[2].text
    assert "The calibration is derived from events recorded in 2023" in crossing  # joined over the page break


def test_pdf_coverage_counts_the_page_text_that_reaches_chunks(note_pdf):
    chunked = chunk_document(extract_pdf(note_pdf, SETTINGS), document("AN-TEST-01"), SETTINGS)
    assert chunked.format == "pdf" and chunked.coverage == pytest.approx(1.0, abs=0.02)


def test_furniture_and_references_stay_out_of_the_text(note_chunks):
    text = "\n".join(c.text for c in note_chunks)
    assert NOTE_HEADER not in text and "Page 2 of 3" not in text
    assert "ORION Collaboration, Muon reconstruction" not in text  # references dropped
    assert "Okafor" not in text  # author list dropped
    assert not re.search(r"\b(1[0-6]|[1-9])\b (The|in|events|Events|Muons)\b", text)
    assert note_chunks[0].text == " ".join(NOTE_ABSTRACT)


def test_table_chunk_keeps_caption_and_cells(note_chunks):
    table = next(c for c in note_chunks if c.kind is ChunkKind.table)
    assert table.text.splitlines()[:3] == [
        "Table 1: Momentum scale corrections per detector region.",
        "Region | Scale | Resolution",
        "Barrel | 1.0002 | 1.1%",
    ]


def test_ids_are_deterministic(note_pdf, note_chunks):
    again = chunk_document(extract_pdf(note_pdf, SETTINGS), document("AN-TEST-01"), SETTINGS).chunks
    assert [c.id for c in again] == [c.id for c in note_chunks]
    assert note_chunks[0].id.startswith("AN-TEST-01@v1#00000-")


def test_abstract_of(note_pdf):
    assert abstract_of(extract_pdf(note_pdf, SETTINGS, pages=[1])) == " ".join(NOTE_ABSTRACT)


# ------------------------------------------------------------------ the demo corpus
def _demo_chunks(demo_corpus, analysis: str, doc_id: str, version: str = "v1", **kwargs):
    path = demo_corpus.path(demo_corpus.document(analysis, doc_id, version))
    extracted = extract_pdf(path, SETTINGS, **kwargs)
    return extracted, chunk_document(extracted, document(doc_id, version), SETTINGS).chunks


def test_demo_note_is_clean(demo_corpus):
    extracted, chunks = _demo_chunks(demo_corpus, "HIG-24-001", "AN-2024-017")
    assert extracted.title == "Search for H → μμ with the 2022–2023 ORION dataset"
    text = "\n".join(c.text for c in chunks)
    assert "DRAFT — HIG-24-001" not in text and "– 2 –" not in text
    assert line_number_run(text) is None, line_number_run(text)
    assert "A. Okafor" not in text and "[1] ORION Collaboration" not in text
    kinds = {c.kind for c in chunks}
    assert kinds == {ChunkKind.body, ChunkKind.caption, ChunkKind.table}
    captions = [c.text for c in chunks if c.kind is ChunkKind.caption]
    assert captions[0].startswith("Figure 1: Dimuon invariant mass distribution")
    tables = [c.text for c in chunks if c.kind is ChunkKind.table]
    assert tables[0].startswith("Table 1:") and "ggH (5 BDT bins) | 312" in tables[0]
    assert {"1 Introduction", "3 Event selection > 3.1 Event categories"} <= {c.section_path for c in chunks}


def test_demo_two_column_summary_reads_column_by_column(demo_corpus):
    _, chunks = _demo_chunks(demo_corpus, "EXO-24-003", "PAS-EXO-24-003")
    order = [c.section_path for c in chunks if c.kind is ChunkKind.body]
    numbers = [int(s.split()[0]) for s in order if s[:1].isdigit()]
    assert numbers == sorted(numbers) and numbers[0] == 1 and numbers[-1] == 7


def test_demo_scanned_note_is_read_by_ocr(demo_corpus):
    spec = next(a for a in load_specs() if a.id == "SMP-24-002")
    note = next(d for raw in spec.documents for d in resolve_versions(raw) if d.doc_id == "AN-2024-031")
    source = " ".join(block.text for section in note.sections[:2] for block in section.blocks)
    extracted, chunks = _demo_chunks(demo_corpus, "SMP-24-002", "AN-2024-031", pages=[2])
    assert extracted.ocr_pages == [2]
    expected = re.findall(r"[a-z]{3,}", re.sub(r"<[^>]+>", " ", source).lower())
    found = set(re.findall(r"[a-z]{3,}", " ".join(c.text for c in chunks).lower()))
    assert sum(w in found for w in expected) >= 0.9 * len(expected)
    assert [c.section_path for c in chunks][:2] == ["1 Introduction", "1 Introduction"]


# ------------------------------------------------------------------ slow: real papers
@pytest.mark.slow
def test_real_paper_pages_chunk_cleanly(hep_pdfs):
    extracted = extract_pdf(hep_pdfs / "1207.7235v2.pdf", SETTINGS, pages=[3, 4, 5, 28, 29])
    chunks = chunk_document(extracted, document("CMS-HIG-12-028"), SETTINGS).chunks
    text = "\n".join(c.text for c in chunks)
    assert line_number_run(text) is None
    # CMS running header: page number and current section, e.g. "2   2 The CMS experiment".
    assert [b.text for b in extracted.blocks if b.kind is BlockKind.header][:1] == ["2 The CMS experiment"]
    assert not any(c.text.startswith("2 The CMS experiment") for c in chunks)
    captions = [c.text[:10] for c in chunks if c.kind is ChunkKind.caption]
    assert captions == ["Figure 14:", "Figure 15:", "Figure 16:"]
    table = next(c for c in chunks if c.kind is ChunkKind.table)
    assert table.text.startswith("Table 6:") and "γγ | 2.8 | 4.1" in table.text
    assert "2 The CMS experiment" in {c.section_path for c in chunks}


@pytest.mark.slow
def test_real_two_column_paper_has_no_repeated_headers(hep_pdfs):
    extracted = extract_pdf(hep_pdfs / "ATL-PHYS-PROC-2023-080.pdf", SETTINGS)
    chunks = chunk_document(extracted, document("ATL-PHYS-PROC-2023-080"), SETTINGS).chunks
    text = "\n".join(c.text for c in chunks)
    assert "Tatsuya Masubuchi" not in text  # running header (and the author on the title page)
    assert line_number_run(text) is None
    assert sum(c.kind is ChunkKind.caption for c in chunks) >= 5
    assert all(not c.section or c.section[0] != "References" for c in chunks)


@pytest.mark.slow
def test_every_real_pdf_keeps_its_text(hep_pdfs):
    """The coverage check must not refuse any of the 16 real ATLAS/CMS papers."""
    for pdf in sorted(hep_pdfs.glob("*.pdf")):
        chunked = chunk_document(extract_pdf(pdf, SETTINGS), document(pdf.stem), SETTINGS)
        assert chunked.coverage >= SETTINGS.min_coverage, (pdf.name, chunked.coverage)
