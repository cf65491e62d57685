"""The ``mixed`` set: every paper of ``lhcb`` (5, as the Markdown of ``lhcb-md``) and
``qasper`` (14) rendered into one of the file types a collaboration writes
(``render.FORMATS``: a wiki page with its navigation chrome, Word, PowerPoint,
Markdown, a PDF of slides, plain text), round-robin, and indexed as files through the
readers ``mitra ingest files`` uses. The same 98 questions are asked; their gold
evidence is matched by tokens (``evidence_matches``), so it still finds its passage
in any rendering, and a question whose passage a reader lost scores zero: the set
measures what the intake of each type loses. The files are written under the
benchmark's work dir, never into the repository.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.corpora import BenchmarkSet, SetFile
from benchmarks.corpora.lhcb import lhcb_markdown_set
from benchmarks.corpora.qasper import qasper_set
from benchmarks.corpora.render import FORMATS, paper_from_text, render


def mixed_set(root: Path, files_dir: Path) -> BenchmarkSet:
    sources = [lhcb_markdown_set(root), qasper_set(root)]
    files_dir.mkdir(parents=True, exist_ok=True)
    files: list[SetFile] = []
    for i, record in enumerate(r for bench in sources for r in bench.records):
        fmt = FORMATS[i % len(FORMATS)]
        paper = paper_from_text(record.title, record.documents[0].text)
        path = render(paper, fmt, files_dir / record.analysis_id)
        files.append(SetFile(record.model_copy(update={"documents": []}), path, fmt))
    locked = [g.model_copy(update={"set": "mixed"}) for bench in sources for g in bench.locked]
    return BenchmarkSet(name="mixed", records=[f.analysis for f in files], locked=locked, files=files)
