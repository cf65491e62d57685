"""Ingestion throughput and OCR quality on the real ATLAS/CMS papers; prints JSON.

* text layer: pages/s of ``extract_pdf`` + ``chunk_document`` over every page (or the
  first ``--pages``) of each PDF;
* forced OCR: pages/s of rendering + Tesseract + layout on the first ``--ocr-pages``
  pages of each PDF;
* character error rate of OCR against the text layer of the same pages: Levenshtein
  distance between the two extractions' text (every block but figure text and line
  numbers, in reading order, NFKC and whitespace normalised), divided by the text
  layer's length. It counts OCR misreadings (maths above all) and the differences in
  reading order between the two paths, so it bounds pure recognition errors from above.

Usage: python benchmarks/ingest_throughput.py [--pdf-dir DIR] [--files N] [--pages N]
       [--ocr-pages N] [--dpi DPI]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
import unicodedata
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from ingest.chunk import chunk_document
from ingest.extract import ExtractedDocument, extract_pdf
from ingest.layout import BlockKind
from mitra.settings import Settings
from mitra.types import Document

REPO = Path(__file__).resolve().parents[1]
# Plots are found from drawing objects, which a scan does not have: leave their text out.
NOT_COMPARED = {BlockKind.figure, BlockKind.line_numbers}


def page_text(doc: ExtractedDocument) -> str:
    text = " ".join(b.text for b in doc.blocks if b.kind not in NOT_COMPARED)
    return " ".join(unicodedata.normalize("NFKC", text).split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdf-dir", type=Path, default=REPO.parent / "shared" / "data" / "hep_pdfs")
    parser.add_argument("--files", type=int, default=None, help="only the first N PDFs")
    parser.add_argument("--pages", type=int, default=None, help="text layer: only the first N pages of each PDF")
    parser.add_argument("--ocr-pages", type=int, default=2, help="forced OCR: the first N pages of each PDF")
    parser.add_argument("--dpi", type=int, default=Settings().ocr_dpi)
    args = parser.parse_args()

    pdfs = sorted(args.pdf_dir.glob("*.pdf"))[: args.files]
    if not pdfs:
        raise SystemExit(f"no PDFs in {args.pdf_dir}")
    settings = Settings(ocr_dpi=args.dpi)

    text_pages = text_seconds = 0.0
    chunks = 0
    for pdf in pdfs:
        selected = range(1, args.pages + 1) if args.pages else None
        start = time.perf_counter()
        doc = extract_pdf(pdf, settings, pages=selected)
        chunks += len(chunk_document(doc, Document(analysis_id="bench", doc_id=pdf.stem), settings).chunks)
        text_seconds += time.perf_counter() - start
        text_pages += min(doc.pages, args.pages or doc.pages)

    ocr_pages = ocr_seconds = 0.0
    distance = reference = 0
    per_file = {}
    for pdf in pdfs:
        sample = range(1, args.ocr_pages + 1)
        layer = extract_pdf(pdf, settings, pages=sample)
        start = time.perf_counter()
        ocr = extract_pdf(pdf, settings, pages=sample, force_ocr=True)
        ocr_seconds += time.perf_counter() - start
        ocr_pages += len(ocr.ocr_pages)
        truth, read = page_text(layer), page_text(ocr)
        errors = Levenshtein.distance(truth, read)
        distance += errors
        reference += len(truth)
        per_file[pdf.name] = round(errors / max(len(truth), 1), 4)

    print(
        json.dumps(
            {
                "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
                "files": len(pdfs),
                "text_layer": {
                    "pages": int(text_pages),
                    "seconds": round(text_seconds, 1),
                    "pages_per_s": round(text_pages / text_seconds, 2),
                    "chunks": chunks,
                },
                "forced_ocr": {
                    "engine": "tesseract",
                    "dpi": args.dpi,
                    "pages": int(ocr_pages),
                    "seconds": round(ocr_seconds, 1),
                    "pages_per_s": round(ocr_pages / ocr_seconds, 3),
                },
                "ocr_cer_vs_text_layer": {
                    "overall": round(distance / max(reference, 1), 4),
                    "reference_chars": reference,
                    "per_file": per_file,
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
