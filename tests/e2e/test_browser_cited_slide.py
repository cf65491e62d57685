"""The cited source of every document type, on a folder of real documents indexed through
`mitra ingest files`: in a real browser, an answer's passage from a talk (a PPTX) is
labelled by its slide, the slide's text is shown with the passage marked in the PDF
page's yellow, and the download serves the original file's bytes; in the app (AppTest),
a web page's passage opens in its section, named by its anchor, with the page to download."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.conftest import app_environment, closed_port
from tests.fixtures.browser import open_tab, serve_app
from tests.fixtures.documents import PHRASES, TALK_TABLE_SLIDE, write_folder
from tests.integration.ingest.test_ingest_files import mitra

ANALYSIS = "EXO-24-011"
# No language model (its server is down): the passages are shown all the same, and sooner.
DOWN = {"llm_backend": "openai", "openai_base_url": f"http://127.0.0.1:{closed_port()}/v1"}


@pytest.fixture(scope="module")
def documents_kb(tmp_path_factory) -> tuple[Path, Path]:
    """One analysis holding a file of every type (talk, Word note, wiki page, Markdown, text):
    the data dir and the folder."""
    root = tmp_path_factory.mktemp("documents-app")
    folder = write_folder(root / "monojet")
    result = mitra(root / "kb", "ingest", "files", str(folder), "--analysis", ANALYSIS, "--title", "Monojet search")
    assert result.exit_code == 0, result.output
    return root / "kb", folder


@pytest.fixture(scope="module")
def talk_app(documents_kb, tmp_path_factory):
    data_dir, folder = documents_kb
    with serve_app(app_environment(data_dir, **DOWN), tmp_path_factory.mktemp("streamlit")) as url:
        yield url, folder / "talk.pptx"


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


def test_a_web_pages_passage_opens_in_its_section_named_by_its_anchor(app_env, documents_kb):
    from tests.e2e.test_app import ask, pick, start

    data_dir, _ = documents_kb
    app_env(data_dir=data_dir, **DOWN)
    at = pick(ask(start(), f"What does the {PHRASES['page.html']['body']} remove?"), ANALYSIS)
    label = next(e.label for e in at.expander if "#EventSelection" in e.label)
    key = next(e.toggle[0].key for e in at.expander if e.label == label and e.toggle)
    assert at.toggle(key=key).label == "Show in its section"
    at.toggle(key=key).set_value(True).run()
    assert not at.exception, at.exception
    card = next(e for e in at.expander if any(t.key == key for t in e.toggle))  # not a card drawn while reading
    shown = [m.value for m in card.markdown]
    assert "**section Event selection · #EventSelection**" in shown
    marked = at.get_by_key(key.replace("source-", "passage-", 1))  # the cited passage, in the highlight's container
    assert PHRASES["page.html"]["body"] in marked.markdown[0].value
    download = card.get("download_button")
    assert len(download) == 1 and "Download the original" in str(download[0].proto) and "page.html" in str(download[0].proto)
