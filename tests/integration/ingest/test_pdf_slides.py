"""A talk exported as PDF is read slide by slide: detected by its shape (landscape pages
of few words under a large title), each page one section named by its title, cited as
"slide N"; a paper, portrait or landscape, is never taken for a deck."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.corpora.render import Block, Paper, Section, render
from ingest.chunk.from_blocks import chunk_document
from ingest.extract.layout import BlockKind
from ingest.extract.pdf import extract_pdf
from mitra.core.settings import Settings
from mitra.core.types import ChunkKind, Document

SETTINGS = Settings(chunk_min_chars=40, chunk_max_chars=600)
TALK = Paper("Muon momentum calibration with dimuon resonances", [
    Section(("Motivation",), [Block("The momentum scale drifts by two per mille over the run. "
                                    "A calibration per detector region is needed.")]),
    # Ends mid-sentence: a paper's paragraph would run on into the next page.
    Section(("Event selection",), [Block("Dimuon triggers select quarkonium candidates whose muons both carry "
                                         "a transverse momentum above three GeV and")]),
    Section(("Results",), [Block("residual scale bias stays below one per mille after the correction. "
                                 "The resolution improves by eight percent in the endcaps."),
                           Block("Table 1: Scale per region.\n| Region | Scale |\n|---|---|\n| Barrel | 1.0002 |\n"
                                 "| Endcap | 0.9991 |", ChunkKind.table)]),
])
TITLES = [TALK.title, "Motivation", "Event selection", "Results", "Results"]  # the table has a slide of its own


@pytest.fixture(scope="module")
def deck(tmp_path_factory) -> Path:
    return render(TALK, "pdf-slides", tmp_path_factory.mktemp("talk") / "talk")


@pytest.fixture(scope="module")
def extracted(deck):
    return extract_pdf(deck, SETTINGS)


def _landscape_paper(path: Path) -> Path:
    """Landscape pages under a large title, but each a page of prose: a report, not a talk."""
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path), pagesize=(842, 595), invariant=1)
    sentence = "The measured cross section agrees with the prediction within the quoted uncertainties. "
    for page in range(3):
        canvas.setFont("Helvetica-Bold", 20)
        canvas.drawString(50, 550, f"Section {page + 1} of the landscape report")
        canvas.setFont("Helvetica", 9)
        for line in range(45):
            canvas.drawString(50, 520 - 11 * line, sentence * 2)
        canvas.showPage()
    canvas.save()
    return path


def _deck_with_a_box(path: Path) -> Path:
    """Slides whose key sentence sits in a box with rounded corners (a Beamer block,
    a callout), which a paper's layout would take for a figure."""
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path), pagesize=(720, 540), invariant=1)
    for number, title in enumerate(("Signal extraction", "Key result", "Outlook"), 1):
        canvas.setFont("Helvetica-Bold", 26)
        canvas.drawString(40, 480, title)
        canvas.setFont("Helvetica", 16)
        canvas.drawString(60, 420, f"Point {number}: the fit uses both categories together.")
        if title == "Key result":
            canvas.roundRect(50, 250, 620, 90, 12, stroke=1, fill=0)
            canvas.drawString(70, 300, "The excess is driven by the vector boson fusion category.")
        canvas.showPage()
    canvas.save()
    return path


def test_a_deck_is_read_slide_by_slide(extracted):
    assert (extracted.unit, extracted.format, extracted.pages) == ("slide", "pdf-slides", 5)
    assert extracted.title == TALK.title and extracted.abstract == ""
    headings = [(b.page, b.text, b.level, b.anchor) for b in extracted.blocks if b.kind is BlockKind.heading]
    assert headings == [(n, title, 1, "") for n, title in enumerate(TITLES, 1)]


def test_slide_chunks_name_their_slide_and_keep_bullets_as_lines(extracted):
    chunked = chunk_document(extracted, Document(analysis_id="TALK-1", doc_id="talk", version="1"), SETTINGS)
    assert chunked.format == "pdf-slides" and chunked.coverage == pytest.approx(1.0, abs=0.01)
    by_text = {c.text: c for c in chunked.chunks}
    motivation = next(c for t, c in by_text.items() if "drifts by two per mille" in t)
    assert (motivation.section_path, motivation.page_label) == ("Motivation", "slide 2")
    assert motivation.text.splitlines() == ["• The momentum scale drifts by two per mille over the run.",
                                            "• A calibration per detector region is needed."]
    results = next(c for t, c in by_text.items() if "residual scale bias" in t)
    assert (results.section_path, results.page_label) == ("Results", "slide 4")
    assert "above three GeV" not in results.text  # no paragraph runs on into the next slide
    table = next(c for c in chunked.chunks if c.kind.value == "table")
    assert table.page_label == "slide 5" and "Barrel | 1.0002" in table.text
    everything = "\n".join(c.text for c in chunked.chunks)
    assert TALK.title not in everything.replace(motivation.text, "")  # the footer repeated on every slide is furniture
    assert all(c.page_start == c.page_end for c in chunked.chunks)


def test_text_in_a_rounded_box_is_the_slides_not_a_figures(tmp_path):
    chunked = chunk_document(extract_pdf(_deck_with_a_box(tmp_path / "boxed.pdf"), SETTINGS),
                             Document(analysis_id="TALK-2", doc_id="boxed", version="1"), SETTINGS)
    boxed = next(c for c in chunked.chunks if "vector boson fusion" in c.text)
    assert (boxed.section_path, boxed.page_label) == ("Key result", "slide 2")


def test_papers_are_never_decks(note_pdf, two_column_pdf, tmp_path):
    for paper in (note_pdf, two_column_pdf, _landscape_paper(tmp_path / "landscape.pdf")):
        extracted = extract_pdf(paper, SETTINGS)
        assert (extracted.unit, extracted.format) == ("page", "pdf"), paper.name


def test_a_slide_is_found_and_cited_by_its_number_through_the_cli(cli, deck):
    result = cli("ingest", "pdf", str(deck), "--analysis", "TALK-1", "--title", "Muon calibration", "--json")
    assert result.exit_code == 0, result.output
    stats = json.loads(cli("stats", "--json").stdout)
    assert [d["format"] for a in stats["per_analysis"] for d in a["documents"]] == ["pdf-slides"]
    found = cli("search", "--analysis", "TALK-1", "residual scale bias after the correction", "--json")
    top = json.loads(found.stdout)["hits"][0]
    assert (top["page"], top["section"]) == ("slide 4", "Results")
    assert top["label"] == "talk v1 · Results · slide 4"


@pytest.mark.slow
def test_no_real_paper_is_taken_for_a_deck(shared_root):
    papers = sorted((shared_root / "data/hep_pdfs").glob("*.pdf"))
    assert len(papers) == 16
    decks = [p.name for p in papers if extract_pdf(p, Settings()).unit == "slide"]
    assert decks == []
