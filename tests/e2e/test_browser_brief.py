"""The brief in a real browser: each demo analysis shows its brief (indexed from the demo's
rendered PDF notes, which builds it), a value's switch draws the page it is stated on with the
value's sentence highlighted, and a member who may not read an analysis cannot reach its brief
by its address."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import app_environment
from tests.e2e.test_browser_cited_page import highlighted_pixels
from tests.fixtures.browser import open_tab, serve_app
PASSWORD = "correct horse battery"
POLICY = """admins: [mitra-admins]
analyses:
  - match: "HIG-*"
    groups: [higgs]
  - match: "EXO-*"
    groups: [exo]
"""


@pytest.fixture(scope="module")
def demo_pdfs_kb(demo_corpus, tmp_path_factory, embedder):
    """The demo analyses indexed from their rendered notes (the newest version of each text-layer
    note; the scanned one needs OCR, which other tests cover), as ``mitra ingest pdf`` would."""
    from ingest.pipeline import ingest_files
    from mitra.core.settings import Settings
    from mitra.retrieval.pipeline import build_pipeline

    data_dir = tmp_path_factory.mktemp("brief-app") / "kb"
    kb = build_pipeline(Settings(data_dir=data_dir, reranker="none"), embedder=embedder, with_reranker=False).kb
    newest = {}
    for d in demo_corpus.documents:
        if not d.scanned and d.source.endswith(".pdf"):
            newest[(d.analysis_id, d.doc_id)] = d  # versions are listed oldest first
    for analysis in demo_corpus.analyses:
        paths = [demo_corpus.root / d.source for (a, _), d in newest.items() if a == analysis.id]
        if paths:
            summary = ingest_files(kb, kb.settings, paths, analysis)
            assert not summary.failed, summary.failed
    return data_dir, sorted({a for a, _ in newest})


def _value_switch(tab) -> None:
    """Switches on the page of the brief's first cited value, clicking again until it is on."""
    from selenium.webdriver.common.by import By

    def on(_) -> bool:
        toggles = tab.driver.find_elements(By.CSS_SELECTOR, "[class*='st-key-brief-value-'] label")
        if not toggles:
            return False
        box = toggles[0].find_element(By.TAG_NAME, "input")
        if not box.is_selected():
            tab.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", toggles[0])
            toggles[0].click()
        return box.is_selected()

    tab._wait(on, "the page switch of a value")


def test_each_demo_analysis_shows_its_brief_and_a_value_opens_its_highlighted_page(browser, demo_pdfs_kb,
                                                                                   tmp_path_factory):
    data_dir, analyses = demo_pdfs_kb
    assert len(analyses) >= 4
    with serve_app(app_environment(data_dir), tmp_path_factory.mktemp("streamlit-brief")) as url:
        tab = open_tab(browser, f"{url}/Library", new=False)
        links = [e.get_attribute("href") for e in tab.find("a[href*='Brief?analysis=']")]  # one click from each
        assert {link.rsplit("=", 1)[1] for link in links} >= set(analyses)
        for analysis in analyses:
            browser.get(f"{url}/Brief?analysis={analysis}")
            heading = tab.text("h1")
            assert analysis in heading
            body = tab._wait(lambda d: [t for t in tab.texts("[data-testid=stMain]") if "Where to start" in t],
                             f"{analysis}'s whole brief")[0]  # drawn as it streams: its last part
            for part in ("What it found", "How it is organised", "Its vocabulary", "Where to start"):
                assert part in body, (analysis, part)
            assert tab.find(".st-key-brief-value-0"), f"{analysis} shows no headline value"
        _value_switch(tab)
        caption = tab._wait(lambda d: [e.text for e in d.find_elements("css selector", "[data-testid=stImageCaption]")
                                       if e.text], "the page's caption")[0]
        assert "highlighted" in caption
        source = tab.find("[data-testid=stImage] img")[0].get_attribute("src")
        png = httpx.get(source if source.startswith("http") else url + source, timeout=10).content
        assert highlighted_pixels(png) > 100


def test_a_member_cannot_reach_the_brief_of_an_analysis_they_may_not_read(browser, demo_pdfs_kb, tmp_path_factory):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from mitra.access.users import LocalUsers

    data_dir, _ = demo_pdfs_kb
    tmp = tmp_path_factory.mktemp("brief-secured")
    (tmp / "access.yaml").write_text(POLICY)
    LocalUsers(tmp / "users.yaml").add("bob", PASSWORD, ["exo"])
    env = {**app_environment(data_dir, auth="auto"), "MITRA_ACCESS_POLICY": str(tmp / "access.yaml"),
           "MITRA_USERS_FILE": str(tmp / "users.yaml"), "MITRA_AUDIT_FILE": str(tmp / "audit.jsonl")}
    with serve_app(env, tmp) as url:
        tab = open_tab(browser, f"{url}/Brief?analysis=HIG-24-001", new=False)

        def signed_in_view() -> str:
            """The page's text once bob is signed in (signing in where the page asks)."""
            found = tab._wait(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid=stTextInput] input, "
                                                        "[data-testid=stSelectbox]"), "the sign-in or the page")
            if found[0].tag_name == "input":
                for field, value in zip(tab.find("[data-testid=stTextInput] input"), ("bob", PASSWORD)):
                    field.send_keys(Keys.CONTROL, "a")
                    field.send_keys(Keys.DELETE, value)
                tab.click_label("Sign in")
                tab.find("[data-testid=stSelectbox]")
            return tab.text("[data-testid=stMain]")

        forbidden = signed_in_view()
        assert "No analysis 'HIG-24-001' you may read" in forbidden
        assert "What it found" not in forbidden and "muons" not in forbidden
        browser.get(f"{url}/Brief?analysis=EXO-24-003")  # one bob may read: the same page shows it
        assert "What it found" in signed_in_view()
