"""The cluster form in a real browser: two app processes on one PostgreSQL and one
``chroma run`` server, with data dirs of their own; one is killed mid-conversation and
the member finds the conversation on the other after signing in (``pytest -k replica``)."""

from __future__ import annotations

import signal

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from mitra.core.settings import Settings
from tests.conftest import OLLAMA_MODEL
from tests.fixtures.browser import app_process, open_tab
from tests.fixtures.samples import ANALYSES, write_jsonl

pytestmark = pytest.mark.skipif(
    not (Settings().chromedriver_binary.is_file() and Settings().chromium_binary.is_file()),
    reason="Debian chromium and chromium-driver are not installed",
)
HIGGS = "What is the dominant background in the dimuon Higgs search?"
PASSWORD = "correct horse battery"


def sign_in(tab, name: str) -> None:
    fields = tab.find("[data-testid=stTextInput] input")
    for field, value in zip(fields, (name, PASSWORD)):
        field.send_keys(Keys.CONTROL, "a")  # React does not see Selenium's clear()
        field.send_keys(Keys.DELETE, value)
    tab.click_label("Sign in")
    tab.find("[data-testid=stChatInputTextArea]")


def test_replica_killed_mid_conversation_the_other_has_the_history(browser, postgres_url, chroma_server, ollama_stub,
                                                                   embedder, tmp_path):
    from ingest.sources.jsonl import index_jsonl
    from mitra.access.users import open_users
    from mitra.retrieval.pipeline import build_pipeline

    settings = Settings(_env_file=None, data_dir=tmp_path / "writer", reranker="none", database_url=postgres_url,
                        chroma_host="127.0.0.1", chroma_port=chroma_server)
    index_jsonl(build_pipeline(settings, embedder=embedder, with_reranker=False).kb,
                write_jsonl(tmp_path / "analyses.jsonl", ANALYSES))
    open_users(settings).add("alice", PASSWORD, [])
    env = {"MITRA_DATABASE_URL": postgres_url, "MITRA_CHROMA_HOST": "127.0.0.1", "MITRA_CHROMA_PORT": str(chroma_server),
           "MITRA_AUTH": "local", "MITRA_RERANKER": "none", "MITRA_LLM_BACKEND": "ollama",
           "MITRA_OLLAMA_HOST": ollama_stub.url, "MITRA_OLLAMA_MODEL": OLLAMA_MODEL, "OMP_NUM_THREADS": "1"}
    with app_process({**env, "MITRA_DATA_DIR": str(tmp_path / "one")}, tmp_path) as (first, server), \
            app_process({**env, "MITRA_DATA_DIR": str(tmp_path / "two")}, tmp_path) as (second, _):
        tab = open_tab(browser, first, new=False)
        sign_in(tab, "alice")
        tab.ask(HIGGS)
        tab.pick("HIG-24-001")
        assert tab.answered()[0].startswith("[1] AN-2024-001")
        server.send_signal(signal.SIGKILL)  # the replica dies; its sessions' memory with it
        server.wait(timeout=30)

        tab = open_tab(browser, second, new=False)  # the front sends the member to the other one
        sign_in(tab, "alice")
        saved = tab._wait(lambda d: d.find_elements(By.CSS_SELECTOR, "[class*='st-key-conversation-'] button"),
                          "the saved conversation")
        assert saved[0].text.endswith(HIGGS)
        saved[0].click()
        tab._wait(lambda d: [m for m in d.find_elements(By.CSS_SELECTOR, "[data-testid=stChatMessage]") if HIGGS in m.text],
                  "the reopened conversation's question")
        assert "HIG-24-001" in tab.text(".st-key-lock-banner")  # locked again on its analysis
        # With its citation: read once the rerun that draws the reopened answer is over (the
        # question shows before its source cards, and a read between them saw none).
        assert tab.answered()[0].startswith("[1] AN-2024-001 v1")
