"""Document text and answers cannot reach out of the page: a real browser shows a passage,
an abstract and a model answer that all carry images and links to a listener on
127.0.0.1, and the listener receives nothing."""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading
import time

import pytest
from selenium.webdriver.common.by import By

from tests.conftest import OLLAMA_MODEL, REPO, closed_port
from tests.fixtures.ollama_stub import OllamaStub, running_stub
from tests.fixtures.samples import write_jsonl
from tests.fixtures.browser import open_tab, wait_healthy

@pytest.fixture(scope="module")
def listener():
    """An HTTP server on 127.0.0.1 that records every request it gets."""
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the stdlib's name)
            seen.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()


@pytest.fixture(scope="module")
def leaky_app(listener, tmp_path_factory, embedder):
    """The app on a KB whose passage and abstract embed images and links to the listener,
    answering through the Ollama stub with an answer that does the same."""
    from ingest.sources.jsonl import index_jsonl
    from mitra.retrieval.pipeline import build_pipeline
    from mitra.core.settings import Settings

    url, _ = listener
    links = f"see [the note]({url}/leak-link) and <{url}/leak-auto> or {url}/leak-bare"
    leaks = f"![plot]({url}/leak-image?q=secret) {links}"
    analysis = {
        "analysis_id": "LEAK-1", "title": "Dark matter search with a monojet",
        "abstract": f"A monojet dark matter search. {leaks}",
        # Intake already turns a passage's images into their alt text; its links stay.
        "documents": [{"doc_id": "note", "text": "# Backgrounds\nThe dominant background is Z to neutrinos "
                       f"plus jets, estimated from control regions. {links}"}],
    }
    data_dir = tmp_path_factory.mktemp("leaky") / "kb"
    pipeline = build_pipeline(Settings(data_dir=data_dir, reranker="none"), embedder=embedder, with_reranker=False)
    index_jsonl(pipeline.kb, write_jsonl(data_dir.parent / "leaky.jsonl", [analysis]))
    reply = f"The dominant background is Z to neutrinos [1]. {leaks}"
    with running_stub(OllamaStub(pulled=[OLLAMA_MODEL], reply=lambda request: reply)) as stub:
        yield from _serve_app(data_dir, stub.url)


def _serve_app(data_dir, ollama_url):
    port = closed_port()
    env = {**os.environ, "MITRA_DATA_DIR": str(data_dir), "MITRA_RERANKER": "none", "MITRA_LLM_BACKEND": "ollama",
           "MITRA_OLLAMA_HOST": ollama_url, "MITRA_OLLAMA_MODEL": OLLAMA_MODEL, "MITRA_AUTH": "none"}
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port)],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        yield wait_healthy(f"http://127.0.0.1:{port}", server)
    finally:
        server.terminate()
        server.wait(timeout=30)


def _open_picker(tab):
    """A wait condition: the selectbox's options, clicking it open (again) while there are none,
    and its expander open again while the selectbox is not shown (a click on the summary while
    the page still loads is lost: CI under load timed out on a closed expander)."""
    from selenium.common.exceptions import WebDriverException

    def opened(driver):
        options = [o for o in driver.find_elements(By.CSS_SELECTOR, "[role=option]") if o.is_displayed()]
        if options:
            return options
        boxes = [b for b in driver.find_elements(By.CSS_SELECTOR, "[data-testid=stSelectbox]") if b.is_displayed()]
        if not boxes:
            try:
                tab.find("[data-testid=stExpander] summary")[0].click()
            except WebDriverException:
                pass
            time.sleep(1)
            return False
        target = boxes[0].find_elements(By.CSS_SELECTOR, "input") or [boxes[0]]
        try:
            target[0].click()
        except WebDriverException:
            pass  # not interactable yet: the expander is still opening
        time.sleep(1)
        return False

    return opened


def _opened_cards_show(tab, text: str):
    """A wait condition: the source cards, opened (again) while closed, show ``text``. A card
    opened while the answer's cards are drawn again after streaming comes back closed."""
    from selenium.common.exceptions import WebDriverException

    def shown(driver):
        cards = driver.find_elements(By.CSS_SELECTOR, "[data-testid=stExpander] details")
        if any(text in card.text for card in cards):
            return True
        for card in cards:
            if card.get_attribute("open") is None:
                try:
                    card.find_element(By.CSS_SELECTOR, "summary").click()  # each card renders its passage
                except WebDriverException:
                    pass  # redrawn meanwhile: the next poll finds the new one
        time.sleep(1)
        return False

    return shown


def test_passages_abstracts_and_answers_fetch_nothing(browser, leaky_app, listener):
    url, seen = listener
    tab = open_tab(browser, leaky_app, new=False)
    tab.ask("What is the dominant background in the monojet search?")
    tab.pick("LEAK-1")
    tab.answered()

    def shown_as_text(driver) -> bool:  # the message is drawn again after streaming: read it until whole
        answer = tab.last_text("[data-testid=stChatMessage]")
        return "[image: plot]" in answer and f"{url}/leak-bare" in answer

    tab._wait(shown_as_text, "the image and the bare link, as text")
    tab._wait(_opened_cards_show(tab, f"{url}/leak-link"), "the passage's link as text")

    library = open_tab(browser, f"{leaky_app}/Library", new=True)
    library.find("[data-testid=stExpander] summary")[0].click()  # the abstract
    library._wait(_open_picker(library), "the document picker's options")[0].click()  # read the document
    library._wait(lambda d: "dominant background" in library.text("[data-testid=stAppViewContainer]"), "passages")
    page = library.text("[data-testid=stAppViewContainer]")
    assert "[image: plot]" in page and f"{url}/leak-link" in page
    for view in (tab, library):
        view.driver.switch_to.window(view.handle)
        assert not view.driver.find_elements(By.CSS_SELECTOR, "a[href*=leak], img[src*=leak]")
    time.sleep(3)  # whatever the pages would load has been asked for by now
    assert seen == []
