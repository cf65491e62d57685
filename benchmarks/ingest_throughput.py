"""Ingestion throughput and OCR quality on the real ATLAS/CMS papers; prints JSON.

* text layer: pages/s of ``extract_pdf`` + ``chunk_document`` over every page (or the
  first ``--pages``) of each PDF;
* forced OCR: pages/s of rendering + Tesseract + layout on the first ``--ocr-pages``
  pages of each PDF;
* character error rate of OCR against the text layer of the same pages: Levenshtein
  distance between the two extractions' text (every block but figure text and line
  numbers, in reading order, NFKC and whitespace normalised, without the markup of
  recovered scripts, ``$^_{}``, which OCR does not write), divided by the text layer's
  length. It counts OCR misreadings (maths above all) and the differences in reading
  order between the two paths, so it bounds pure recognition errors from above;
* symbol error rate of OCR, before and after its physics fixes (``ocr_physics_fixes``):
  for each of ±, √, ℓ, superscript −1 and μ, the occurrences OCR read against those of
  the text layer, counted per page; (missed + spurious) / expected. On the same forced
  OCR pages, and on the demo's scanned note (``demo/corpus/SMP-24-002.yaml``), whose
  truth is the text layer of the same note rendered born-digital. The CER of the note
  is printed beside it;
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
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from ingest.chunk.from_blocks import chunk_document
from ingest.extract.base import ExtractedDocument
from ingest.extract.pdf import extract_pdf
from ingest.extract.layout import BlockKind, nfkc
from mitra.core.settings import Settings
from mitra.core.types import Document

REPO = Path(__file__).resolve().parents[1]
# Plots are found from drawing objects, which a scan does not have: leave their text out.
NOT_COMPARED = {BlockKind.figure, BlockKind.line_numbers}


def page_text(doc: ExtractedDocument, page: int | None = None) -> str:
    blocks = [b for b in doc.blocks if b.kind not in NOT_COMPARED and page in (None, b.page)]
    return " ".join(nfkc(" ".join(b.text for b in blocks)).split())


def plain(text: str) -> str:
    """``text`` without the LaTeX-like markup of scripts ("$fb^{-1}$" -> "fb-1")."""
    return re.sub(r"[$^_{}]", "", text)


# The notation OCR loses most: each symbol and how it is written in extracted text.
SYMBOLS = {"±": "±", "√": "√", "ℓ": "ℓ", "^{-1}": r"\^\{-1\}", "μ": "μ"}


def symbol_counts(pages: list[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """Per symbol, expected (text layer) and found (OCR) occurrences, summed over pages
    (truth, read); a page's surplus is spurious, its shortfall missed."""
    out = {name: Counter() for name in SYMBOLS}
    for truth, read in pages:
        for name, pattern in SYMBOLS.items():
            expected, found = len(re.findall(pattern, truth)), len(re.findall(pattern, read))
            out[name].update(expected=expected, found=min(found, expected), spurious=max(found - expected, 0))
    return {name: dict(counts) for name, counts in out.items()}


def symbol_error_rate(counts: dict[str, dict[str, int]]) -> float:
    expected = sum(c.get("expected", 0) for c in counts.values())
    errors = sum(c.get("expected", 0) - c.get("found", 0) + c.get("spurious", 0) for c in counts.values())
    return round(errors / max(expected, 1), 4)


def ocr_quality(cases: list[tuple[Path, Path, list[int]]], settings: Settings) -> dict:
    """CER and symbol error rate of OCR against a text layer, without and with the
    physics fixes, and the OCR time of the pass with them (the default).
    ``cases``: (PDF with the true text layer, PDF to OCR, pages)."""
    truths = [extract_pdf(truth_pdf, settings, pages=sample) for truth_pdf, _, sample in cases]
    out: dict = {}
    for fixes in (False, True):
        pages: list[tuple[str, str]] = []
        distance = reference = 0
        per_file, seconds, ocr_pages = {}, 0.0, 0
        for layer, (_, scanned_pdf, sample) in zip(truths, cases):
            start = time.perf_counter()
            ocr = extract_pdf(scanned_pdf, settings.model_copy(update={"ocr_physics_fixes": fixes}), pages=sample,
                              force_ocr=True)
            seconds += time.perf_counter() - start
            ocr_pages += len(ocr.ocr_pages)
            pages += [(page_text(layer, n), page_text(ocr, n)) for n in sample]
            truth, read = plain(page_text(layer)), plain(page_text(ocr))
            errors = Levenshtein.distance(truth, read)
            distance += errors
            reference += len(truth)
            per_file[scanned_pdf.name] = round(errors / max(len(truth), 1), 4)
        counts = symbol_counts(pages)
        out["after_fixes" if fixes else "before_fixes"] = {
            "cer": round(distance / max(reference, 1), 4),
            "reference_chars": reference,
            "symbol_error_rate": symbol_error_rate(counts),
            "symbols": counts,
            "per_file_cer": per_file,
            "ocr_pages": ocr_pages,
            "ocr_seconds": round(seconds, 1),
        }
    return out


def _summary(quality: dict) -> dict:
    return {k: quality[k] for k in ("cer", "symbol_error_rate", "symbols")}


def demo_scanned_note(directory: Path) -> tuple[Path, Path, list[int]]:
    """The demo's scanned note, rendered born-digital (its truth) and scanned, as the
    demo corpus renders it."""
    import zlib

    from demo.corpus_specs import load_specs, resolve_versions
    from demo.render_note import _register_fonts, _Renderer
    from demo.scan import scan

    _register_fonts()
    spec = next(s for s in load_specs() if s.id == "SMP-24-002")
    doc = next(d for raw in spec.documents for d in resolve_versions(raw) if d.scanned)
    born_digital, pages = _Renderer(spec, doc).render()
    scanned, _ = scan(born_digital, zlib.crc32(f"{doc.doc_id}/{doc.version.label}".encode()), doc.version.date)
    truth, image = directory / "note.pdf", directory / "note-scanned.pdf"
    truth.write_bytes(born_digital)
    image.write_bytes(scanned)
    return truth, image, list(range(1, pages + 1))


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

    sample = list(range(1, args.ocr_pages + 1))
    papers = ocr_quality([(pdf, pdf, sample) for pdf in pdfs], settings)
    with tempfile.TemporaryDirectory() as tmp:
        note = ocr_quality([demo_scanned_note(Path(tmp))], settings)
    fixed = papers["after_fixes"]

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
                    "pages": fixed["ocr_pages"],
                    "seconds": fixed["ocr_seconds"],
                    "pages_per_s": round(fixed["ocr_pages"] / fixed["ocr_seconds"], 3),
                },
                "ocr_cer_vs_text_layer": {
                    "overall": fixed["cer"],
                    "reference_chars": fixed["reference_chars"],
                    "per_file": fixed["per_file_cer"],
                },
                "ocr_symbol_error_rate": {
                    "symbols": list(SYMBOLS),
                    "papers_forced_ocr": {k: _summary(v) for k, v in papers.items()},
                    "demo_scanned_note": {k: _summary(v) for k, v in note.items()},
                },
                "index_jsonl_memory": memory,
            },
            indent=2,
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main()
