"""The ``long`` set: long papers with dense maths and large tables, like the unseen set
of long expert-annotated papers (123-449 passages each) no public set resembled.

* The 15 ATLAS and CMS papers of ``../shared/data/hep_pdfs`` (28-76 pages; the 10-page
  proceedings is left out), read through the real PDF path as ``mitra ingest pdf``
  reads them (``SetFile``).
* The ``LHCB_PAPERS`` longest LHCb papers whose Markdown makes ``LONG_PASSAGES``
  passages, written as a PDF-to-Markdown converter that keeps maths writes them
  (``latex_markdown``, ``converter=True, dense=True``: maths in table cells, every
  second table in HTML) and indexed from JSONL, as the unseen set was.

Questions (``long_questions``): caption questions and the experts' questions re-posed
with answer-pattern gold, made from the PDF's blocks and the LaTeX source. What the
PDF reader gives is cached beside the benchmark's files (keyed by the file's sha256).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from benchmarks.corpora import BenchmarkSet, SetFile
from benchmarks.corpora.latex_markdown import latex_to_markdown
from benchmarks.corpora.lhcb import LHCbPaper, iter_papers
from benchmarks.corpora.long_questions import (
    Passage, PaperText, caption_questions, expert_questions, latex_paper, pdf_paper,
)
from ingest.chunk.from_text import chunk_text
from ingest.sources.jsonl import JsonlAnalysis, JsonlDocument
from ingest.sources.manifest import file_sha256
from mitra.core.types import Document

LHCB_PAPERS = 12
LONG_PASSAGES = (123, 500)  # the unseen set's 123-449, rounded up
MIN_PDF_PAGES = 20


def long_set(root: Path, files_dir: Path) -> BenchmarkSet:
    files_dir.mkdir(parents=True, exist_ok=True)
    records, files, papers = [], [], []
    for paper in long_lhcb_papers(root):
        record = paper.record(full_text=True)
        text = latex_to_markdown(paper.text, converter=True, title=paper.title, dense=True)
        records.append(record.model_copy(update={"documents": [JsonlDocument(doc_id="paper", title=paper.title,
                                                                              text=text)]}))
        papers.append(latex_paper(record.analysis_id, paper.text))
    for pdf in sorted((root / "data/hep_pdfs").glob("*.pdf")):
        read = _read_pdf(pdf, files_dir)
        if read is None:
            continue
        title, abstract, paper = read
        analysis = JsonlAnalysis(analysis_id=paper.paper_id, title=title or pdf.stem, abstract=abstract)
        records.append(analysis)
        files.append(SetFile(analysis, pdf, "pdf"))
        papers.append(paper)
    locked = []
    for paper in papers:
        locked += caption_questions(paper, random.Random(paper.paper_id)) + expert_questions(paper)
    return BenchmarkSet(name="long", records=records, locked=locked, files=files)


def long_lhcb_papers(root: Path) -> list[LHCbPaper]:
    """The ``LHCB_PAPERS`` longest (in words) whose converter Markdown makes between
    ``LONG_PASSAGES`` passages."""
    chosen = []
    for paper in sorted(iter_papers(root), key=lambda p: (-len(p.text.split()), p.arxiv_id)):
        text = latex_to_markdown(paper.text, converter=True, title=paper.title, dense=True)
        passages = len(chunk_text(Document(analysis_id="x", doc_id="paper"), text, 200, 1200).chunks)
        if LONG_PASSAGES[0] <= passages <= LONG_PASSAGES[1]:
            chosen.append(paper)
        if len(chosen) == LHCB_PAPERS:
            break
    return chosen


def _read_pdf(pdf: Path, cache_dir: Path) -> tuple[str, str, PaperText] | None:
    """(title, abstract, passages) of a paper PDF of at least ``MIN_PDF_PAGES`` pages, read
    once by the PDF reader and cached; None for a shorter one."""
    cache = cache_dir / f"{pdf.stem}.{file_sha256(pdf)[:16]}.json"
    if not cache.is_file():
        from ingest.extract.pdf import extract_pdf
        from mitra.core.settings import Settings

        extracted = extract_pdf(pdf, Settings(_env_file=None))
        paper = pdf_paper(f"HEP-{pdf.stem}", extracted.blocks)
        cache.write_text(json.dumps({"pages": extracted.pages, "title": extracted.title,
                                     "abstract": extracted.abstract,
                                     "passages": [_json(p) for p in paper.passages]}))
    data = json.loads(cache.read_text())
    if data["pages"] < MIN_PDF_PAGES:
        return None
    passages = [Passage(kind=p["kind"], text=p["text"], sentences=tuple(p["sentences"]),
                        refs=tuple(frozenset(r) for r in p["refs"]), label=frozenset(p["label"]), rows=p["rows"])
                for p in data["passages"]]
    return data["title"], data["abstract"], PaperText(f"HEP-{pdf.stem}", passages)


def _json(p: Passage) -> dict:
    return {"kind": p.kind, "text": p.text, "sentences": list(p.sentences), "refs": [sorted(r) for r in p.refs],
            "label": sorted(p.label), "rows": p.rows}
