"""The chat app in a real browser: `streamlit run app.py` as a subprocess, driven by Debian's
Chromium through Selenium, on the sample KB and the embedded SmolLM2."""

from __future__ import annotations

import re
import time

from tests.e2e.test_app_across import named
from tests.fixtures.browser import open_tab

HIGGS = "What is the dominant background in the dimuon Higgs search?"
W_MASS = "How precisely is the W boson mass measured?"


def test_ask_confirm_answer_and_start_over(browser, app_url, tmp_path):
    tab = open_tab(browser, app_url, new=False)
    tab.ask(HIGGS)
    tab.pick("HIG-24-001")
    assert "HIG-24-001" in tab.text(".st-key-lock-banner") and "AN-2024-001 v1" in tab.text(".st-key-lock-banner")
    cards = tab.answered()
    assert cards and cards[0].startswith("[1] AN-2024-001 v1")
    answer = tab.last_text("[data-testid=stChatMessage]")
    assert answer.strip()
    tab.source_cards()[0].click()
    time.sleep(0.5)  # the expander's opening animation
    browser.save_screenshot(str(tmp_path / "chat.png"))
    assert (tmp_path / "chat.png").stat().st_size > 10_000

    tab.click_label("New conversation")
    tab.gone(".st-key-lock-banner")
    tab.gone("[data-testid=stChatMessage]")


def test_two_sessions_lock_on_different_analyses(browser, app_url):
    first = open_tab(browser, app_url, new=True)
    first.ask(HIGGS)
    second = open_tab(browser, app_url, new=True)
    second.ask(W_MASS)
    first.pick("HIG-24-001")
    second.pick("SMP-24-003")
    # Which passages the model cites varies with how the server batches the two sessions'
    # requests; what must hold is that each answer cites only its own analysis's document.
    for tab, doc in ((second, "AN-2024-003"), (first, "AN-2024-001")):
        cards = tab.answered()
        assert cards and all(re.match(rf"\[\d+\] {doc} v1", label) for label in cards), cards
    assert "HIG-24-001" in first.text(".st-key-lock-banner")
    assert "SMP-24-003" in second.text(".st-key-lock-banner")
    page = second.text("[data-testid=stAppViewContainer]")
    assert HIGGS not in page and "HIG-24-001" not in second.text(".st-key-lock-banner")


def test_ask_across_analyses_then_two_side_by_side(browser, app_url):
    """The sidebar's mode: one answer whose sources name two analyses, then two answers in
    two columns, each with its own analysis's sources."""
    tab = open_tab(browser, app_url, new=True)
    tab.choose("Across analyses")
    tab.ask("What is the dominant background?")
    deadline = time.monotonic() + 30
    while len(analyses := named(tab.answered())) < 2 and time.monotonic() < deadline:
        time.sleep(0.5)  # the cards are drawn one after the other
    assert len(analyses) >= 2, tab.answered()
    tab.choose("Side by side")  # the first two analyses by default: EXO-24-002 and HIG-24-001
    tab.ask("What is the dominant background?")
    for analysis, doc in (("EXO-24-002", "AN-2024-002"), ("HIG-24-001", "AN-2024-001")):
        cards = tab.answered(within=f"[class*='st-key-side-'][class*='-{analysis}']")
        assert cards and all(re.match(rf"\[\d+\] {doc} v1", label) for label in cards), cards
