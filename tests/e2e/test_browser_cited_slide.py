"""A cited slide in a real browser: a talk (a real PPTX) is indexed, an answer's passage
from it is labelled by its slide, the slide's text is shown with the passage marked in
the PDF page's yellow, and the download serves the original file's bytes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.conftest import app_environment
from tests.fixtures.browser import open_tab, serve_app

ANALYSIS = "SUS-24-007"
# slide -> (title, body paragraphs); slide 2 holds the phrase only it has.
SLIDES = {
    1: ("Search for top squarks", ["Two leptons, missing transverse momentum, 140 fb-1 at 13 TeV."]),
    2: ("Fake lepton background", ["Nonprompt leptons are estimated with the tight-to-loose ratio measured in multijet events.",
                                   "The closure of the ratio method holds within twenty percent in the control region."]),
    3: ("Results", ["No excess is observed; top squarks below 1.1 TeV are excluded."]),
}
CITED = SLIDES[2][1][0]


def build_talk(path: Path) -> Path:
    from pptx import Presentation

    talk = Presentation()
    for title, body in SLIDES.values():
        slide = talk.slides.add_slide(talk.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = "\n".join(body)
    talk.save(path)
    return path


@pytest.fixture(scope="module")
def talk_app(tmp_path_factory, embedder):
    """The app on a knowledge base holding one analysis whose only document is the talk."""
    from mitra.core.settings import Settings
    from mitra.core.types import Analysis, Chunk, Document, chunk_id
    from mitra.store.knowledge_base import KnowledgeBase

    root = tmp_path_factory.mktemp("talk-app")
    talk = build_talk(root / "stop-fakes.pptx")
    kb = KnowledgeBase(Settings(data_dir=root / "kb", reranker="none"), embedder)
    document = Document(analysis_id=ANALYSIS, doc_id="TALK-fakes", source=str(talk), format="pptx", pages=len(SLIDES))
    texts = [(n, title, text) for n, (title, body) in SLIDES.items() for text in body]
    chunks = [Chunk(id=chunk_id("TALK-fakes", "1", i, text), analysis_id=ANALYSIS, doc_id="TALK-fakes", version="1",
                    position=i, section=[title], page_start=n, page_end=n, text=text, unit="slide")
              for i, (n, title, text) in enumerate(texts)]
    kb.replace_analysis(Analysis(id=ANALYSIS, title="Top squarks in dilepton final states"), [document], chunks)
    with serve_app(app_environment(root / "kb"), tmp_path_factory.mktemp("streamlit")) as url:
        yield url, talk


def test_a_cited_slide_shows_its_text_with_the_passage_marked_and_serves_the_original(browser, talk_app, tmp_path):
    url, talk = talk_app
    tab = open_tab(browser, url, new=False)
    tab.ask("How are the nonprompt leptons estimated with the tight-to-loose ratio?")
    tab.pick(ANALYSIS)
    label = tab.cited_source("slide 2", "Show slide 2")
    assert label.split(" ", 1)[1].startswith("TALK-fakes v1 · Fake lepton background · slide 2"), label
    marked = tab.find("[class*='st-key-passage-']")[0]
    assert marked.text == CITED
    assert marked.value_of_css_property("background-color") == "rgba(255, 214, 0, 0.38)"  # the drawn page's yellow
    view = tab.find("[class*='st-key-cited-text-']")[0]  # the slide's title and its other passage, unmarked, beside it
    assert "slide 2 · Fake lepton background" in view.text and SLIDES[2][1][1] in view.text
    assert SLIDES[3][1][0] not in view.text

    browser.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    button = tab.find("[class*='st-key-original-'] button")[0]  # not the sidebar's feedback export
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
    button.click()
    saved = tmp_path / talk.name
    deadline = time.monotonic() + 30
    while not (saved.is_file() and saved.read_bytes() == talk.read_bytes()) and time.monotonic() < deadline:
        time.sleep(0.3)
    assert saved.is_file() and saved.read_bytes() == talk.read_bytes(), list(tmp_path.iterdir())
