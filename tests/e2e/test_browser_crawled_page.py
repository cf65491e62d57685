"""The cited page of a crawled document, in a real browser, with the portal stopped: the
crawler kept every PDF it downloaded, the stores know that copy per document version,
and the app draws the page (passage highlighted) from it; no link to the stopped portal is
offered, and the Library offers the kept copy, not the portal's address."""

from __future__ import annotations

import httpx
import pytest
from selenium.webdriver.common.by import By

from mitra.core.settings import Settings
from tests.conftest import app_environment
from tests.e2e.test_browser_cited_page import highlighted_pixels
from tests.fixtures.browser import open_tab, serve_app

pytestmark = pytest.mark.skipif(
    not (Settings().chromedriver_binary.is_file() and Settings().chromium_binary.is_file()),
    reason="Debian chromium and chromium-driver are not installed",
)


@pytest.fixture(scope="module")
def crawled_kb(demo_corpus, tmp_path_factory, embedder):
    """The demo's intake: crawl the portal, stop it, index what was downloaded."""
    from demo.portal import PortalConfig, serve_portal
    from ingest.pipeline import index_manifest
    from ingest.sources.login import Credentials
    from ingest.sources.manifest import Manifest
    from ingest.sources.profiles import load_profile
    from ingest.sources.crawl import crawl
    from mitra.store.knowledge_base import KnowledgeBase

    data_dir = tmp_path_factory.mktemp("crawled-app") / "kb"
    settings = Settings(data_dir=data_dir, reranker="none", crawl_delay_s=0)
    config = PortalConfig(corpus_dir=demo_corpus.root, username="physicist", password="pw-1234", render_delay_ms=0)
    with serve_portal(config) as portal:
        report = crawl(load_profile("local_portal"), settings, base_url=portal.url,
                       credentials=Credentials(username="physicist", password="pw-1234"))
        portal_url = portal.url
    assert report.ok
    kb = KnowledgeBase(settings, embedder)
    with Manifest.open(settings) as manifest:
        index_manifest(kb, manifest, settings)
    documents = kb.documents("HIG-24-001")
    assert documents and all(d.document.source.startswith(portal_url) for d in documents)
    assert all(d.document.kept.endswith((".pdf", ".html", ".pptx")) and d.document.kept.startswith(str(data_dir))
               for d in documents)  # the notes, the wiki topic and its talk
    with pytest.raises(httpx.TransportError):  # the portal is really gone
        httpx.get(documents[0].document.source, timeout=2)
    return data_dir


@pytest.fixture(scope="module")
def crawled_app(crawled_kb, tmp_path_factory):
    with serve_app(app_environment(crawled_kb), tmp_path_factory.mktemp("streamlit")) as url:
        yield url


def test_a_crawled_pdfs_cited_page_is_drawn_from_the_kept_copy_with_the_portal_stopped(browser, crawled_app):
    tab = open_tab(browser, crawled_app, new=False)
    tab.ask("What is the dominant background in the search for the Higgs boson decaying to muons?")
    tab.pick("HIG-24-001")
    label, caption = tab.cited_page()
    assert "the cited passage highlighted" in caption, (caption, label)
    source = tab.find("[data-testid=stImage] img")[0].get_attribute("src")
    png = httpx.get(source if source.startswith("http") else crawled_app + source, timeout=10).content
    assert highlighted_pixels(png) > 500
    # The portal is down: no dead link to it (issue 47), only what is the case.
    assert not browser.find_elements(By.PARTIAL_LINK_TEXT, "on its portal")
    assert any("is not reachable now" in text for text in tab.texts("[data-testid=stExpanderDetails]"))


def test_the_library_offers_the_kept_pdf_not_a_dead_portal_link(app_env, crawled_kb):
    from tests.fixtures.app_pages import app_page

    app_env(data_dir=crawled_kb)
    at = app_page("1_Library.py")
    assert not at.exception, at.exception
    tables = [frame.value for frame in at.dataframe]
    assert tables and all((t["original"] == "on this machine").all() for t in tables)
    assert not any(t.astype(str).apply(lambda column: column.str.contains("http")).any().any() for t in tables)
    at.selectbox[0].select(at.selectbox[0].options[0]).run()
    assert [b for b in at.get("download_button") if "Download the PDF" in str(b.proto)]
