"""The chat app in a real browser: `streamlit run app.py` as a subprocess, driven by Debian's
Chromium through Selenium, on the sample KB and the embedded SmolLM2."""

from __future__ import annotations

import time


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
    answer = tab.find("[data-testid=stChatMessage]")[-1].text
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
    assert second.answered()[0].startswith("[1] AN-2024-003")
    assert first.answered()[0].startswith("[1] AN-2024-001")
    assert "HIG-24-001" in first.text(".st-key-lock-banner")
    assert "SMP-24-003" in second.text(".st-key-lock-banner")
    page = second.text("[data-testid=stAppViewContainer]")
    assert HIGGS not in page and "HIG-24-001" not in second.text(".st-key-lock-banner")
