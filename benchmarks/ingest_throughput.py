"""Ingestion throughput and OCR quality on the real ATLAS/CMS papers; prints JSON.

* text layer: pages/s of ``extract_pdf`` + ``chunk_document`` over every page (or the
  first ``--pages``) of each PDF;
* forced OCR: pages/s of rendering + Tesseract + layout on the first ``--ocr-pages``
  pages of each PDF;
* character error rate of OCR against the text layer of the same pages: Levenshtein
  distance between the two extractions' text (every block but figure text and line
  numbers, in reading order, NFKC and whitespace normalised), divided by the text
  layer's length. It counts OCR misreadings (maths above all) and the differences in
  reading order between the two paths, so it bounds pure recognition errors from above;
* peak memory of ``mitra index-jsonl`` (its own process, maximum resident set size)
  indexing the full text of 10, 100 and 780 LHCb papers (``--memory-papers``), with
  the time it took: memory must not grow with the corpus.

Usage: python benchmarks/ingest_throughput.py [--pdf-dir DIR] [--files N] [--pages N]
       [--ocr-pages N] [--dpi DPI] [--memory-papers 10,100,780] [--skip-pdf]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from ingest.chunk.from_blocks import chunk_document
from ingest.extract.pdf import ExtractedDocument, extract_pdf
from ingest.extract.layout import BlockKind
from mitra.core.settings import Settings
from mitra.core.types import Document

REPO = Path(__file__).resolve().parents[1]
# Plots are found from drawing objects, which a scan does not have: leave their text out.
NOT_COMPARED = {BlockKind.figure, BlockKind.line_numbers}


def page_text(doc: ExtractedDocument) -> str:
    text = " ".join(b.text for b in doc.blocks if b.kind not in NOT_COMPARED)
    return " ".join(unicodedata.normalize("NFKC", text).split())


# Runs one command and prints its peak resident memory (kB): RUSAGE_CHILDREN of a fresh
# process covers exactly that command.
_PEAK = "import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; " \
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)"


def index_memory(counts: list[int]) -> dict:
    """Peak memory and time of `mitra index-jsonl` over the full text of N LHCb papers."""
    from benchmarks.corpora import shared_dir
    from benchmarks.corpora.lhcb import iter_papers
    from mitra.core.jsonl import write_jsonl

    root = shared_dir()
    if root is None:
        return {"skipped": "../shared/data not found"}
    papers = list(iter_papers(root))
    out = {}
    for n in counts:
        with tempfile.TemporaryDirectory() as tmp:
            jsonl = Path(tmp) / "papers.jsonl"
            write_jsonl(jsonl, (p.record(full_text=True).model_dump() for p in papers[:n]))
            command = [sys.executable, "-m", "mitra", "index-jsonl", str(jsonl), "--json"]
            env = {**os.environ, "MITRA_DATA_DIR": str(Path(tmp) / "kb"), "MITRA_RERANKER": "none"}
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", _PEAK, *command], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
            peak_kb, code = done.stdout.strip().splitlines()[-1].split()
            out[str(n)] = {"papers": n, "exit": int(code), "peak_rss_mb": round(int(peak_kb) / 1024),
                           "seconds": round(time.perf_counter() - start, 1)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdf-dir", type=Path, default=REPO.parent / "shared" / "data" / "hep_pdfs")
    parser.add_argument("--files", type=int, default=None, help="only the first N PDFs")
    parser.add_argument("--pages", type=int, default=None, help="text layer: only the first N pages of each PDF")
    parser.add_argument("--ocr-pages", type=int, default=2, help="forced OCR: the first N pages of each PDF")
    parser.add_argument("--dpi", type=int, default=Settings().ocr_dpi)
    parser.add_argument("--memory-papers", default="10,100,780", help="index-jsonl peak memory at these corpus sizes")
    parser.add_argument("--skip-pdf", action="store_true", help="only the index-jsonl memory figures")
    args = parser.parse_args()
    memory = index_memory([int(n) for n in args.memory_papers.split(",") if n])
    if args.skip_pdf:
        print(json.dumps({"machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
                          "index_jsonl_memory": memory}, indent=2))
        return

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
                "index_jsonl_memory": memory,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
