"""The cited page in a real browser: an answer's passage from an indexed PDF is shown as
its page, drawn in the app with the passage highlighted (a file:// link would be blocked)."""

from __future__ import annotations

import io

import httpx
import pytest

from tests.conftest import NOTE_TITLE, app_environment
from tests.fixtures.browser import open_tab, serve_app


@pytest.fixture(scope="module")
def pdf_app(note_pdf, tmp_path_factory, embedder):
    """The app on a knowledge base holding one analysis indexed from a real PDF."""
    from ingest.pipeline import ingest_files
    from mitra.core.settings import Settings
    from mitra.core.types import Analysis
    from mitra.retrieval.pipeline import build_pipeline

    data_dir = tmp_path_factory.mktemp("pdf-app") / "kb"
    kb = build_pipeline(Settings(data_dir=data_dir, reranker="none"), embedder=embedder, with_reranker=False).kb
    summary = ingest_files(kb, kb.settings, [note_pdf], Analysis(id="TEST-01", title=NOTE_TITLE))
    assert summary.chunks and not summary.failed
    with serve_app(app_environment(data_dir), tmp_path_factory.mktemp("streamlit")) as url:
        yield url


def highlighted_pixels(png: bytes) -> int:
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    return sum(1 for r, g, b in image.getdata() if r > 230 and 200 < g < 240 and b < 150)


def test_the_cited_page_opens_with_the_passage_highlighted(browser, pdf_app):
    tab = open_tab(browser, pdf_app, new=False)
    tab.ask("Which muons are selected in the event selection?")
    tab.pick("TEST-01")
    label, caption = tab.cited_page()
    page = label.split("p. ")[1].split()[0]
    assert caption.startswith(f"Page {page} of 3") and "the cited passage highlighted" in caption
    source = tab.find("[data-testid=stImage] img")[0].get_attribute("src")
    png = httpx.get(source if source.startswith("http") else pdf_app + source, timeout=10).content
    assert highlighted_pixels(png) > 500
    assert tab.find("[data-testid=stDownloadButton]")
