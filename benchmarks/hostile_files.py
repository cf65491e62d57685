"""Hostile files: how fast each is refused, and what reading it costs in memory.

Each decompression bomb of ``tests/fixtures/hostile.py`` (the issue's .docx whose
``word/document.xml`` inflates to 2 GB, a member that lies about its size, a ratio and a
media bomb in a .pptx, a PDF stream inflating to 2 GB, a PDF image declaring 10^10 pixels,
a PDF of 100,000 pages) is read by ``read_document`` in a fresh process, whose own peak
memory (VmHWM) and wall time (Python's start and the readers' imports, ~1 s, included) are
reported with the reason it gave. ``--unguarded-mb N`` also reads a valid .docx whose
document part inflates to ``N`` MB of paragraphs with the limits lifted: what reading cost
before them (the issue's 2 GB part reached 3 GB; N = 300 shows the slope).

``--pdfs DIR`` reports, for each real PDF there (the 16 ATLAS/CMS papers of
``../shared/data/hep_pdfs``), what its Flate streams inflate to and what the check costs:
the limits' headroom on real documents.

Prints JSON.

    python benchmarks/hostile_files.py [--unguarded-mb 300] [--pdfs ../shared/data/hep_pdfs]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fixtures.hostile import bombs, long_note, measured  # noqa: E402

_READ = ("import sys; from pathlib import Path; from mitra.core.settings import Settings\n"
         "from ingest.extract.readers import read_document\n"
         "from ingest.extract.base import ExtractionError\n"
         "try: print('read', len(read_document(Path(sys.argv[1]), Settings()).blocks), 'blocks')\n"
         "except ExtractionError as e: print(e.reason)\n")


def read(path: Path, env: dict[str, str] | None = None) -> dict:
    code, out, err, peak_mb, seconds = measured(["-c", f"sys.argv = ['read', {str(path)!r}]\n" + _READ], env)
    return {"file": path.name, "kB": path.stat().st_size // 1024, "seconds": round(seconds, 2),
            "peak_mb": round(peak_mb), "outcome": out.strip() or err.strip().splitlines()[-1]}


def real_pdf(path: Path) -> dict:
    """What the streams of a real PDF inflate to, and the time ``check_pdf`` takes on it."""
    import mmap
    import time

    from ingest.extract import inflation
    from mitra.core.settings import Settings

    sizes = []
    with path.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        for match in inflation._STREAM.finditer(data):
            head = data[max(0, match.start() - 4096):match.start()]
            if inflation._FLATE.search(head[head.rfind(b"obj") + 3:] if b"obj" in head else head):
                end = data.find(b"endstream", match.end())
                sizes.append(inflation._inflated_size(data, match.end(), end, 1 << 40))
    start = time.perf_counter()
    inflation.check_pdf(path, Settings())
    size = path.stat().st_size
    return {"file": path.name, "mb": round(size / 2**20, 1), "streams": len(sizes),
            "largest_stream_mb": round(max(sizes, default=0) / 2**20, 1), "inflated_mb": round(sum(sizes) / 2**20, 1),
            "ratio": round(sum(sizes) / size, 1), "check_s": round(time.perf_counter() - start, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--unguarded-mb", type=int, default=0, help="also read an N MB member with no limits")
    parser.add_argument("--pdfs", type=Path, help="a folder of real PDFs: what their streams inflate to")
    args = parser.parse_args()
    if args.pdfs:
        print(json.dumps([real_pdf(path) for path in sorted(args.pdfs.glob("*.pdf"))], indent=2))
        return
    with tempfile.TemporaryDirectory(prefix="mitra-hostile-") as scratch:
        report = {"refused": [read(path) for path in bombs(Path(scratch) / "bombs").values()]}
        if args.unguarded_mb:
            issue = long_note(Path(scratch) / "unguarded.docx", args.unguarded_mb)
            report["unguarded"] = read(issue, {"MITRA_MAX_INFLATED_MB": "1000000", "MITRA_MAX_INFLATION_RATIO": "1e9"})
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
