"""Read + chunk time of every document type ``mitra ingest files`` reads; prints JSON.

The files are built here with the real libraries, each the size of a typical document
of its kind: a talk of ``--slides`` slides (title, two sentences, a 4x3 table and
speaker notes each), and a note of ``--sections`` sections (ten paragraphs and a 5x3
table each) as a Word file, a saved web page (with navigation and a footer) and
Markdown. Per file: ``prepare_version`` (format detection, reading, chunking; no
embedding, which costs the same per chunk whatever the type), the median of
``--runs`` runs after one warm-up, its chunks and the words per second they hold.

Usage: python benchmarks/ingest_types.py [--slides 50] [--sections 30] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
from pathlib import Path

from ingest.stages import VersionJob, prepare_version
from mitra.core.settings import Settings
from mitra.core.types import Analysis, Document

SENTENCE = ("The leading jet must have transverse momentum above 100 GeV and the missing transverse "
            "momentum above 250 GeV in every signal region. ")


def write_talk(path: Path, slides: int) -> Path:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    for n in range(slides):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = f"Signal region {n}"
        slide.placeholders[1].text_frame.text = SENTENCE * 2
        table = slide.shapes.add_table(4, 3, Inches(1), Inches(4), Inches(6), Inches(1.5)).table
        for r in range(4):
            for c in range(3):
                table.cell(r, c).text = f"SR{n} bin {r}.{c}"
        slide.notes_slide.notes_text_frame.text = SENTENCE
    deck.save(path)
    return path


def write_notes(root: Path, sections: int) -> list[Path]:
    """The same note as a Word file, a saved web page and Markdown."""
    import docx

    note = docx.Document()
    html = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>Note</title></head><body>"
            "<nav><a href='/'>Home</a> <a href='/changes'>Recent changes</a></nav><div id='content'>"]
    markdown = []
    rows = [[f"r{r}c{c}" for c in range(3)] for r in range(5)]
    for n in range(sections):
        note.add_heading(f"Section {n}", 1)
        html.append(f"<h2 id='section-{n}'>Section {n}</h2>")
        markdown.append(f"## Section {n}")
        for _ in range(10):
            note.add_paragraph(SENTENCE * 3)
            html.append(f"<p>{SENTENCE * 3}</p>")
            markdown.append(SENTENCE * 3)
        table = note.add_table(rows=5, cols=3)
        for cell, text in zip(table._cells, (t for row in rows for t in row)):
            cell.text = text
        html.append("<table>" + "".join("<tr>" + "".join(f"<td>{t}</td>" for t in row) + "</tr>" for row in rows)
                    + "</table>")
        markdown.append("\n".join("| " + " | ".join(row) + " |" for row in rows[:1] + [["---"] * 3] + rows[1:]))
    html.append("</div><footer>Copyright the collaboration</footer></body></html>")
    note.save(root / "note.docx")
    (root / "note.html").write_text("\n".join(html), encoding="utf-8")
    (root / "note.md").write_text("\n\n".join(markdown), encoding="utf-8")
    return [root / "note.docx", root / "note.html", root / "note.md"]


def measure(path: Path, settings: Settings, runs: int) -> dict:
    job = VersionJob(path, Analysis(id="BENCH", title="bench"), Document(analysis_id="BENCH", doc_id=path.stem))
    prepare_version(settings, job)  # warm-up: imports, trafilatura's configuration
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        prepared = prepare_version(settings, job)
        seconds.append(time.perf_counter() - start)
    median = statistics.median(seconds)
    words = sum(len(c.text.split()) for c in prepared.chunks)
    return {"format": prepared.document.format, "kb": round(path.stat().st_size / 1024),
            "pages": prepared.document.pages, "chunks": len(prepared.chunks), "words": words,
            "ms": round(1000 * median, 1), "words_per_s": round(words / median)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slides", type=int, default=50)
    parser.add_argument("--sections", type=int, default=30)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        settings = Settings(data_dir=root / "kb")
        files = [write_talk(root / "talk.pptx", args.slides), *write_notes(root, args.sections)]
        results = {path.name: measure(path, settings, args.runs) for path in files}
    print(json.dumps({"machine": platform.processor() or platform.machine(), "runs": args.runs, "files": results},
                     indent=2))


if __name__ == "__main__":
    main()
