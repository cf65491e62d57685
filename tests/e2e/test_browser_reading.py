"""While the model reads, in a real browser: the passages are on the page before the
model's first word, with what the wait is ("the model is reading 5 passages (≈1,300
tokens), about 20 s on this machine"); the first answer of the process has no measured
speed yet and says so, the next one gives seconds."""

from __future__ import annotations

import re

from selenium.webdriver.common.by import By

from tests.fixtures.browser import open_tab

HIGGS = "What is the dominant background in the dimuon Higgs search?"


def _while_reading(tab) -> tuple[str, int, str]:
    """At a moment the wait's line is up (so no word of the answer yet): its text, the
    passage cards already shown, and the answer's text so far."""
    def reading(d):
        lines = [e.text for e in d.find_elements(By.CSS_SELECTOR, "[data-testid=stAlert]") if "model is reading" in e.text]
        cards = d.find_elements(By.CSS_SELECTOR, "[class*='st-key-reading-'] [data-testid=stExpander] summary")
        if not (lines and cards):
            return None
        answer = d.find_elements(By.CSS_SELECTOR, "[data-testid=stChatMessage]")[-1].text
        return lines[0], len(cards), answer

    return tab._wait(reading, "the passages and the wait's line")


def test_the_passages_come_before_the_first_word_with_the_wait_said(browser, app_url):
    tab = open_tab(browser, app_url, new=True)
    tab.ask(HIGGS)
    tab.pick("HIG-24-001")
    line, cards, _ = _while_reading(tab)
    match = re.search(r"The model is reading (\d+) passages? \(≈([\d,]+) tokens\)", line)
    assert match and int(match.group(1)) == cards and int(match.group(2).replace(",", "")) > 50
    assert "measured by the first answer" in line or re.search(r"about \d+ s on this machine", line)
    tab.answered()  # the final cards replace the early ones
    assert not browser.find_elements(By.CSS_SELECTOR, "[class*='st-key-reading-']")

    tab.ask("How is the Drell-Yan background estimated in the dimuon Higgs search?")
    line, _, _ = _while_reading(tab)
    assert re.search(r"about \d+ s on this machine\.", line), line  # measured on the first answer
    tab._wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "[class*='st-key-reading-']"), "the second answer")


def test_the_menu_names_the_chat_page(browser, app_url):
    tab = open_tab(browser, app_url, new=True)

    def menu(driver) -> list[str] | None:
        # after the icon's name; until the script's first run draws its navigation, the pages/ folder's list
        shown = [e.text.splitlines()[-1] for e in driver.find_elements(By.CSS_SELECTOR, "[data-testid=stSidebarNav] a")
                 if e.text]
        return shown if shown and shown[0] != "app" else None

    assert tab._wait(menu, "the app's menu") == ["Chat", "Library", "Brief", "Evaluation", "Ingestion"]
