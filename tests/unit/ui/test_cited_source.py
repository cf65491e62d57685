"""The cited-source view's choices: which text a slide's or a section's passage is shown
among, which view a source gets, and which original file a member may download."""

from __future__ import annotations

from pathlib import Path

import pytest

from mitra.chat.cited_page import CitedText, cited_text
from mitra.core.types import Chunk, Document, Hit


def chunk(position: int, text: str, doc: str = "TALK", page: int | None = None, end: int | None = None,
          section: tuple[str, ...] = (), unit: str = "page", anchor: str = "", version: str = "1") -> Chunk:
    return Chunk(id=f"{doc}@{version}#{position}", analysis_id="A", doc_id=doc, version=version, position=position,
                 section=list(section), page_start=page, page_end=end or page, text=text, unit=unit, anchor=anchor)


def passages(shown: CitedText) -> list[tuple[str, bool, str]]:
    return [(p.chunk.text, p.cited, p.heading) for p in shown.passages]


def test_a_slides_passage_is_shown_among_its_slides_text_in_reading_order():
    slide = dict(unit="slide", section=("Fake leptons",))
    cited = chunk(4, "Fakes are estimated from a tight-to-loose ratio.", page=3, **slide)
    notes = chunk(7, "Say the closure is good.", page=3, unit="slide", section=("Fake leptons", "Speaker notes"))
    store = [
        chunk(5, "Closure within 20 % in the control region.", page=3, **slide),
        chunk(2, "Motivation and samples.", page=2, unit="slide", section=("Samples",)),
        cited,
        chunk(3, "The fake rate is measured in multijet events.", page=3, **slide),
        chunk(6, "Across two slides.", page=3, end=4, **slide),
        notes,
        chunk(4, "Another talk's slide 3.", doc="OTHER", page=3, **slide),
        chunk(4, "The previous version's slide 3.", page=3, version="0", **slide),
    ]
    shown = cited_text(store, cited)
    assert shown.title == "slide 3 · Fake leptons"
    assert passages(shown) == [("The fake rate is measured in multijet events.", False, ""),
                               ("Fakes are estimated from a tight-to-loose ratio.", True, ""),
                               ("Closure within 20 % in the control region.", False, ""),
                               ("Across two slides.", False, ""),
                               ("Say the closure is good.", False, "Speaker notes")]
    from_notes = cited_text(store, notes)  # the slide's title, not the notes' section path
    assert from_notes.title == "slide 3 · Fake leptons"
    assert passages(from_notes)[-1] == ("Say the closure is good.", True, "Speaker notes")


def test_a_web_pages_passage_is_shown_in_its_section_named_by_its_anchor():
    section = dict(section=("Event selection",), anchor="event-selection")
    cited = chunk(2, "Muons need pT above 20 GeV.", **section)
    store = [chunk(1, "Events are triggered on one muon.", **section), cited,
             chunk(3, "Jets are clustered with anti-kt.", section=("Jets",), anchor="jets")]
    shown = cited_text(store, cited)
    assert shown.title == "section Event selection · #event-selection"
    assert passages(shown) == [("Events are triggered on one muon.", False, ""), ("Muons need pT above 20 GeV.", True, "")]


def test_a_passage_the_store_no_longer_holds_is_still_shown():
    cited = chunk(1, "Re-indexed since.", page=1, unit="slide")
    assert passages(cited_text([], cited)) == [("Re-indexed since.", True, "")]
    assert cited_text([], chunk(1, "Text before any heading.")).title == "before the first heading"


def test_the_view_a_source_gets(tmp_path):
    from mitra.ui import cited_view

    pdf = tmp_path / "deck.pdf"
    pdf.write_bytes(b"%PDF-1.4")
    pptx = tmp_path / "talk.pptx"
    pptx.write_bytes(b"PK")
    deck = Document(analysis_id="A", doc_id="D", format="pdf-slides", kept=str(pdf))
    talk = Document(analysis_id="A", doc_id="T", format="pptx", kept=str(pptx), source=str(pptx))
    page = Document(analysis_id="A", doc_id="W", format="html", source="https://twiki/Main/Higgs")
    assert cited_view(deck, Hit(chunk=chunk(1, "x", page=3, unit="slide"))) == ("Show slide 3 with the passage", True)
    assert cited_view(talk, Hit(chunk=chunk(1, "x", page=3, unit="slide"))) == ("Show slide 3 with the passage", False)
    assert cited_view(page, Hit(chunk=chunk(1, "x", anchor="jets"))) == ("Show in its section", False)
    assert cited_view(None, Hit(chunk=chunk(1, "x", page=2))) == ("Show in its section", False)
    pdf.unlink()  # a PDF no longer here: its passage is shown among its slide's indexed text
    assert cited_view(deck, Hit(chunk=chunk(1, "x", page=3, unit="slide"))) == ("Show slide 3 with the passage", False)


def test_the_original_file_and_its_name(tmp_path):
    from mitra.ui import local_pdf, original_file, original_name, page_link

    kept = tmp_path / "downloads" / "1.html"
    kept.parent.mkdir()
    kept.write_text("<html></html>")
    wiki = Document(analysis_id="A", doc_id="W", format="html", source="https://twiki/bin/view/Main/Higgs%20Note",
                    kept=str(kept))
    assert original_file(wiki) == kept and local_pdf(wiki) is None
    assert original_name(wiki, kept) == "Higgs Note.html"  # the portal's page name, the kept copy's suffix
    assert page_link(wiki, None, "jets") == "https://twiki/bin/view/Main/Higgs%20Note#jets"
    talk = tmp_path / "talk.pptx"
    talk.write_bytes(b"PK")
    local = Document(analysis_id="A", doc_id="T", format="pptx", source=str(talk))
    assert original_file(local) == talk and original_name(local, talk) == "talk.pptx" and local_pdf(local) is None
    moved = Document(analysis_id="A", doc_id="T", format="pptx", source=str(talk), kept=str(tmp_path / "gone.pptx"))
    assert original_file(moved) == talk  # the indexed file stands in for a kept copy that went
    crawled = Document(analysis_id="A", doc_id="N", format="pdf", source="https://portal/AN-1.pdf",
                       kept=str(tmp_path / "gone.pdf"))
    assert original_file(crawled) == tmp_path / "gone.pdf"  # not here any more: the app says so
    assert original_file(Document(analysis_id="A", doc_id="J", source="jsonl")) is None


@pytest.fixture
def downloads(tmp_path) -> dict[str, Path]:
    talk = tmp_path / "talk.pptx"
    talk.write_bytes(b"PK\x03\x04 the talk")
    return {"here": talk, "gone": tmp_path / "gone.pptx"}


@pytest.mark.parametrize("which", ["here", "gone"])
def test_the_original_is_offered_for_download_or_said_to_be_gone(downloads, which):
    from streamlit.testing.v1 import AppTest

    def page(path: str) -> None:
        from mitra import ui
        from mitra.core.types import Document

        ui.offer_original(Document(analysis_id="A", doc_id="T", format="pptx", kept=path), "k")

    at = AppTest.from_function(page, args=(str(downloads[which]),)).run()
    assert not at.exception, at.exception
    buttons = at.get("download_button")
    if which == "here":
        assert len(buttons) == 1 and "Download the original" in str(buttons[0].proto) and "talk.pptx" in str(buttons[0].proto)
    else:
        assert not buttons and "not on this machine any more (gone.pptx)" in at.caption[0].value


def test_the_view_reads_only_its_document_versions_passages():
    """One document version out of the analysis's (3 s for 10,000 chunks read whole, 50 ms filtered)."""
    from mitra.store.filters import SearchFilter

    one = SearchFilter(version="2", doc_id="TALK")
    assert one.chroma_where() == {"$and": [{"doc_id": "TALK"}, {"version": "2"}]}
    assert one.admits(chunk(1, "x", version="2")) and not one.admits(chunk(1, "x", doc="NOTE", version="2"))
    assert SearchFilter().chroma_where() == {"superseded": False} and SearchFilter(version="2").chroma_where() == {"version": "2"}


def test_a_table_stays_a_table_and_a_slides_items_stay_one_a_line():
    from mitra.ui.render import passage_markdown

    table = "Table 2: Impacts.\nSource | Impact on μ\nStatistical | +0.46 / −0.44\nJES | see ![x](http://evil/leak)"
    assert passage_markdown(table, table=True) == (
        "Table 2: Impacts.\n\n| Source | Impact on μ |\n| --- | --- |\n| Statistical | +0.46 / −0.44 |\n"
        "| JES | see [image: x] |")  # inert, as every passage
    assert passage_markdown("Category |\nggH 455", table=True) == "Category |  \nggH 455"  # no grid: its lines kept
    assert passage_markdown("Jets above 100 GeV\nLeptons vetoed", lines=True) == "Jets above 100 GeV  \nLeptons vetoed"
    assert passage_markdown("a $x$\n$$y$$") == "a $x$\n$$y$$"  # any other passage as it was


def test_a_pdf_slide_decks_page_is_captioned_as_its_slide():
    from mitra.chat.cited_page import CitedPage

    assert CitedPage(png=b"", page=3, pages=12, highlighted=2, unit="slide").caption == (
        "Slide 3 of 12, the cited passage highlighted.")
