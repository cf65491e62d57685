"""A cited slide in a real browser: a talk (a real PPTX) is indexed through `mitra ingest
files`, an answer's passage from it is labelled by its slide, the slide's text is shown
with the passage marked in the PDF page's yellow, and the download serves the original
file's bytes."""

from __future__ import annotations

import time

import pytest

from tests.conftest import app_environment, closed_port
from tests.fixtures.browser import open_tab, serve_app
from tests.fixtures.documents import PHRASES, TALK_TABLE_SLIDE, write_pptx
from tests.integration.test_ingest_files import mitra

ANALYSIS = "EXO-24-011"


@pytest.fixture(scope="module")
def talk_app(tmp_path_factory):
    """The app on a knowledge base holding one analysis whose only document is the talk."""
    root = tmp_path_factory.mktemp("talk-app")
    talk = write_pptx(root / "talk.pptx")
    result = mitra(root / "kb", "ingest", "files", str(talk), "--analysis", ANALYSIS, "--title", "Monojet search")
    assert result.exit_code == 0, result.output
    # No language model (its server is down): the passages are shown all the same, and sooner.
    down = {"llm_backend": "openai", "openai_base_url": f"http://127.0.0.1:{closed_port()}/v1"}
    with serve_app(app_environment(root / "kb", **down), tmp_path_factory.mktemp("streamlit")) as url:
        yield url, talk


def test_a_cited_slide_shows_its_text_with_the_passage_marked_and_serves_the_original(browser, talk_app, tmp_path):
    url, talk = talk_app
    slide = f"slide {TALK_TABLE_SLIDE}"
    tab = open_tab(browser, url, new=False)
    tab.ask(f"What does the {PHRASES['talk.pptx']['notes']} agree within?")
    tab.pick(ANALYSIS)
    label = tab.cited_source(f"Speaker notes · {slide}", f"Show {slide} with the passage")
    assert label.split(" ", 1)[1].startswith(f"talk v1 · Yields per region > Speaker notes · {slide}"), label
    marked = tab.find("[class*='st-key-passage-']")[0]
    assert PHRASES["talk.pptx"]["notes"] in marked.text
    assert marked.value_of_css_property("background-color") == "rgba(255, 214, 0, 0.38)"  # the drawn page's yellow
    view = tab.find("[class*='st-key-cited-text-']")[0]  # the slide's title and its table, unmarked, beside the notes
    assert view.text.startswith(f"{slide} · Yields per region") and PHRASES["talk.pptx"]["table"] in view.text
    assert "Speaker notes" in view.text and PHRASES["talk.pptx"]["body"] not in view.text  # slide 2's

    browser.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    button = tab.find("[class*='st-key-original-'] button")[0]  # not the sidebar's feedback export
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
    button.click()
    saved = tmp_path / talk.name
    deadline = time.monotonic() + 30
    while not (saved.is_file() and saved.read_bytes() == talk.read_bytes()) and time.monotonic() < deadline:
        time.sleep(0.3)
    assert saved.is_file() and saved.read_bytes() == talk.read_bytes(), list(tmp_path.iterdir())
