"""Loaders for the public evaluation sets in ``../shared/data`` (never copied into the
repository): each gives the analyses to index and the gold questions to ask.

Sets (``load_sets``):

* ``lhcb``     — 780 LHCb abstracts (routing) + the LaTeX full text of the 5 papers
                 that the 31 answerable expert questions are about (locked tier).
* ``lhcb-md``  — the same 5 papers rendered to Markdown with LaTeX maths, the usual
                 output of PDF-to-Markdown converters (``latex_markdown``); same questions.
* ``lhcb-conv`` — the same 5 papers as a PDF-to-Markdown converter really writes them:
                 "## 3.2." headings, image lines, affiliations, and a reference list
                 with no heading (``latex_markdown``, ``converter=True``); same questions.
* ``qasper``   — 14 NLP papers in plain text (section names on their own lines),
                 87 questions with evidence paragraphs (locked tier).
* ``rivet``    — 361 LHC analysis descriptions; routing from each analysis's title.
* ``mixed``    — the lhcb and qasper papers as files of every type the readers take
                 (wiki page, Word, PowerPoint, Markdown, PDF slides, plain text),
                 indexed through the readers; their 98 questions (``mixed``).
* ``long``     — long papers with dense maths and large tables: 15 ATLAS/CMS PDFs through
                 the PDF reader and the longest LHCb papers as converter Markdown, with
                 caption and re-posed expert questions made mechanically (``long``).

Gold evidence is matched to chunks by ``mitra.evaluation.metrics.evidence_matches`` (token
containment after the LaTeX cleaning and stemming BM25 uses), so one rule serves
every text format.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from mitra.evaluation.retrieval import GoldQuery
from ingest.sources.jsonl import JsonlAnalysis


def shared_dir() -> Path | None:
    """``$MITRA_SHARED_DIR``, else ``../shared`` beside the repository, if present."""
    named = os.environ.get("MITRA_SHARED_DIR")
    candidate = Path(named) if named else Path(__file__).resolve().parents[3] / "shared"
    return candidate if (candidate / "data").is_dir() else None


@dataclass(frozen=True)
class SetFile:
    """A document given as a file (its analysis without text), indexed through the readers."""

    analysis: JsonlAnalysis
    path: Path
    format: str  # what it was rendered as


@dataclass
class BenchmarkSet:
    """One knowledge base to build and the questions to ask it."""

    name: str
    records: list[JsonlAnalysis]
    locked: list[GoldQuery] = field(default_factory=list)  # asked inside their gold analysis
    routing: list[GoldQuery] = field(default_factory=list)  # route_query asked among all analyses
    files: list[SetFile] = field(default_factory=list)  # documents as files, beside the records' texts


SET_NAMES = ("lhcb", "lhcb-md", "lhcb-conv", "qasper", "rivet", "route-ft")  # texts, indexed as JSONL records
FILE_SET_NAMES = ("mixed", "long")  # files, read by the readers of each type (long: beside texts)


def load_set(name: str, root: Path, files_dir: Path | None = None) -> BenchmarkSet:
    """``files_dir``: where a set of files (``mixed``) writes them (default: the temp dir)."""
    from benchmarks.corpora import lhcb, long, mixed, qasper, rivet, routing

    files_dir = files_dir or Path(tempfile.gettempdir()) / "mitra-benchmark-files"
    loaders = {"lhcb": lhcb.lhcb_set, "lhcb-md": lhcb.lhcb_markdown_set, "lhcb-conv": lhcb.lhcb_converter_set,
               "qasper": qasper.qasper_set, "rivet": rivet.rivet_set, "route-ft": routing.routing_full_text_set,
               "mixed": lambda root: mixed.mixed_set(root, files_dir / name),
               "long": lambda root: long.long_set(root, files_dir / name)}
    if name not in loaders:
        raise ValueError(f"unknown set '{name}': choose from {', '.join(SET_NAMES + FILE_SET_NAMES)}")
    return loaders[name](root)
