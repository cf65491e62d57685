"""The ``mixed`` set's renderers: each writes a file the readers take as its type, and
every section's words come back through the intake (``prepare_version``)."""

from __future__ import annotations

import pytest

from benchmarks.corpora.render import FORMATS, Block, Paper, Section, headings, render, slides
from ingest.extract.readers import detect_format
from ingest.stages import VersionJob, prepare_version
from mitra.core.settings import Settings
from mitra.core.types import Analysis, ChunkKind, Document

PAPER = Paper("Dimuon resonances as a momentum scale", [
    Section(("1 Introduction",), [Block("Quarkonium decays calibrate the tracker momentum scale.")]),
    Section(("1 Introduction", "1.1 Samples"), [Block("The sample holds four million upsilon candidates."),
                                                Block("Figure 1: Invariant mass of the candidates.", ChunkKind.caption)]),
    Section(("2 Results",), [Block("The residual bias stays below one per mille. " * 3),
                             Block("Table 1: Scale per region.\n| Region | Scale |\n|---|---|\n| Barrel | 1.0002 |",
                                   ChunkKind.table)]),
])
PHRASES = ("tracker momentum scale", "four million upsilon", "invariant mass of the candidates",
           "residual bias stays below", "barrel")
DETECTED = {"pdf-slides": "pdf"}  # the rest are detected as what they were rendered as


def test_headings_open_only_what_changes():
    assert [opened for _, opened in headings(PAPER)] == [
        [(1, "1 Introduction")], [(2, "1.1 Samples")], [(1, "2 Results")]]


def test_a_talk_holds_a_section_a_slide_group_and_the_table_on_its_own_slide():
    deck = slides(PAPER, notes=True)
    assert [s.title for s in deck] == [PAPER.title, "1 Introduction", "1.1 Samples", "2 Results", "2 Results"]
    assert deck[2].notes == ["Figure 1: Invariant mass of the candidates."]
    assert deck[4].table == [["Region", "Scale"], ["Barrel", "1.0002"]]


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_rendering_is_read_back_whole(fmt, tmp_path):
    path = render(PAPER, fmt, tmp_path / "paper.v1")
    assert path.name.startswith("paper.v1.") and detect_format(path) == DETECTED.get(fmt, fmt)
    settings = Settings(_env_file=None, data_dir=tmp_path / "kb", chunk_min_chars=40, chunk_max_chars=600)
    job = VersionJob(path, Analysis(id="T-1", title="t"), Document(analysis_id="T-1", doc_id="paper", version="1"))
    prepared = prepare_version(settings, job)
    assert prepared.document.format == fmt
    text = " ".join([c.text for c in prepared.chunks] + [" ".join(c.section) for c in prepared.chunks]).lower()
    assert [p for p in PHRASES if p not in text] == []
