"""How exactly OCR reads the numbers in the tables of the demo's scanned note.

The demo's scanned note (SMP-24-002's AN-2024-031) is rendered twice, as ``scripts/demo.sh``
builds it: with its text layer, and scanned (``demo/scan.py``: 200 dpi, grey, rotated,
noisy, JPEG). The pages whose text layer holds a table are read both ways by the real
reader (``ingest.extract.pdf``: the text layer, and Tesseract at ``ocr_dpi`` as ingestion
OCRs a scan); each table's numbers (the numeric runs of its text, in order) are compared,
page by page: OCR's numbers against the text layer's (tables a "Table N:" caption names:
the text of a plot can read as a table too).

Reported: numbers in the text layer's tables, how many OCR read exactly (with a Wilson
95 % interval), how many it read wrong, marked unsure, or missed, the numbers holding a
":" between digits (never a number in these tables), and each mismatch. Prints JSON.

    python benchmarks/ocr_tables.py [--dpi 300]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.intervals import wilson  # noqa: E402
from demo.corpus_specs import load_specs, resolve_versions  # noqa: E402
from demo.render_note import _register_fonts, _Renderer  # noqa: E402
from demo.scan import scan  # noqa: E402
from ingest.extract.layout import BlockKind  # noqa: E402
from ingest.extract.ocr_digits import NUMBER_IN_TEXT, UNSURE  # noqa: E402
from ingest.extract.pdf import extract_pdf  # noqa: E402
from mitra.core.settings import Settings  # noqa: E402


_CAPTIONED = re.compile(r"^Table \d+[:.]")


def _numbers(text: str) -> list[str]:
    return [m.group(0) for m in NUMBER_IN_TEXT.finditer(text)]


def _tables(path: Path, settings: Settings) -> dict[int, list[tuple[tuple, list[str]]]]:
    """Each page's captioned tables: their box and their numbers, in reading order."""
    found: dict[int, list] = {}
    for block in extract_pdf(path, settings).blocks:
        # A table its caption names: the text drawn in a plot can read as one too.
        if block.kind is BlockKind.table and _CAPTIONED.match(block.text):
            found.setdefault(block.page, []).append((block.bbox, _numbers(block.text)))
    return found


def _read_in(path: Path, settings: Settings, tables: dict[int, list]) -> tuple[dict, dict]:
    """OCR's numbers, page by page: those of its table blocks, and those of any block whose
    middle lies in a text-layer table's box (a table OCR's layout did not see as one)."""
    as_tables: dict[int, list[str]] = {}
    in_area: dict[int, list[str]] = {}
    for block in extract_pdf(path, settings, pages=sorted(tables)).blocks:
        middle = ((block.bbox[0] + block.bbox[2]) / 2, (block.bbox[1] + block.bbox[3]) / 2)
        if block.kind is BlockKind.table:
            as_tables.setdefault(block.page, []).extend(_numbers(block.text))
        if any(x0 - 6 <= middle[0] <= x1 + 6 and top - 6 <= middle[1] <= bottom + 6
               for (x0, top, x1, bottom), _ in tables.get(block.page, [])):
            in_area.setdefault(block.page, []).extend(_numbers(block.text))
    return as_tables, in_area


def _compare(truth: dict[int, list[str]], read: dict[int, list[str]]) -> dict:
    """OCR's table numbers against the text layer's, page by page (as multisets: a number read
    wrong counts once as missed and once as wrong)."""
    right = wrong = unsure = missed = 0
    mismatches = []
    for page, expected in sorted(truth.items()):
        got = Counter(n.removesuffix(UNSURE) for n in read.get(page, []))
        marked = Counter(n.removesuffix(UNSURE) for n in read.get(page, []) if n.endswith(UNSURE))
        for number in expected:
            if got[number] > 0 and marked[number] < got[number]:
                right += 1
            elif got[number] > 0:
                unsure += 1
                marked[number] -= 1
            else:
                missed += 1
                mismatches.append({"page": page, "text_layer": number})
                continue
            got[number] -= 1
        extra = [n for n, k in got.items() for _ in range(max(k, 0))]
        wrong += len(extra)
        mismatches.extend({"page": page, "ocr": n} for n in extra)
    return {"pages_with_tables": sorted(truth), "numbers": sum(len(v) for v in truth.values()), "read_exactly": right,
            "marked_unsure": unsure, "missed": missed, "extra_or_wrong_in_ocr": wrong,
            "colon_between_digits": [n for ns in read.values() for n in ns if ":" in n.removesuffix(UNSURE)],
            "mismatches": mismatches}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dpi", type=int, default=300, help="ocr_dpi: the resolution pages are OCR'd at")
    parser.add_argument("--all", action="store_true", help="also every other demo note, scanned the demo's way: "
                        "notes the re-read was not tuned on")
    args = parser.parse_args()
    _register_fonts()
    settings = Settings(_env_file=None, ocr_dpi=args.dpi, ocr_backend="tesseract")
    notes = [(spec, doc) for spec in load_specs() for raw in spec.documents for doc in resolve_versions(raw)
             if doc.scanned or args.all]
    report, started = [], time.perf_counter()
    totals = {"in_table_blocks": Counter(), "in_the_tables_area": Counter()}
    with tempfile.TemporaryDirectory() as tmp:
        for spec, doc in notes:
            text_pdf, scanned_pdf = Path(tmp) / "text.pdf", Path(tmp) / "scanned.pdf"
            pdf, _ = _Renderer(spec, doc).render()
            text_pdf.write_bytes(pdf)
            seed = zlib.crc32(f"{doc.doc_id}/{doc.version.label}".encode())
            scanned_pdf.write_bytes(scan(pdf, seed, doc.version.date)[0])
            tables = _tables(text_pdf, settings)
            if not tables:
                continue
            truth = {page: [n for _, numbers in found for n in numbers] for page, found in tables.items()}
            as_tables, in_area = _read_in(scanned_pdf, settings, tables)
            row = {"document": f"{spec.id} {doc.doc_id} {doc.version.label}", "scanned_in_the_demo": doc.scanned,
                   "in_table_blocks": _compare(truth, as_tables), "in_the_tables_area": _compare(truth, in_area)}
            report.append(row)
            for way in ("in_table_blocks", "in_the_tables_area"):
                for key in ("numbers", "read_exactly", "marked_unsure", "missed", "extra_or_wrong_in_ocr"):
                    totals[way][key] += row[way][key]
                totals[way]["colons"] += len(row[way]["colon_between_digits"])
    print(json.dumps({
        "scan": "demo/scan.py (200 dpi, grey, rotated, noisy, JPEG)", "ocr_dpi": args.dpi,
        **{way: {"read_exactly": wilson(t["read_exactly"], t["numbers"]), **t} for way, t in totals.items()},
        "seconds": round(time.perf_counter() - started, 1), "documents": report,
    }, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
