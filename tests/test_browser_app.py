"""The chat app in a real browser: `streamlit run app.py` as a subprocess, driven by Debian's
Chromium through Selenium, on the sample KB and the embedded SmolLM2."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO, app_environment, closed_port

HIGGS = "What is the dominant background in the dimuon Higgs search?"
W_MASS = "How precisely is the W boson mass measured?"
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-background-networking "
    "--disable-component-update --disable-sync --no-first-run --window-size=1280,1400"
).split()
WAIT_S = 90


@pytest.fixture(scope="module")
def app_url(app_data_dir, tmp_path_factory):
    port = closed_port()
    log = tmp_path_factory.mktemp("streamlit") / "streamlit.log"
    env = {**os.environ, **app_environment(app_data_dir)}
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(port)],
            cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/_stcore/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.3)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    if not Path("/usr/bin/chromedriver").exists():
        pytest.skip("Debian chromium-driver is not installed (/usr/bin/chromedriver)")
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    yield driver
    driver.quit()


class Tab:
    """One browser tab on the app: one Streamlit session."""

    def __init__(self, driver, handle: str):
        self.driver, self.handle = driver, handle

    def _wait(self, condition, what: str):
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver.switch_to.window(self.handle)
        return WebDriverWait(self.driver, WAIT_S, ignored_exceptions=[StaleElementReferenceException]).until(
            lambda d: condition(d), message=f"waiting for {what}"
        )

    def find(self, css: str):
        from selenium.webdriver.common.by import By

        return self._wait(lambda d: d.find_elements(By.CSS_SELECTOR, css), css)

    def text(self, css: str) -> str:
        return self.find(css)[0].text

    def ask(self, question: str) -> None:
        from selenium.webdriver.common.keys import Keys

        box = self._wait(lambda d: [e for e in self.find("[data-testid=stChatInputTextArea]") if e.is_enabled()], "input")
        box[0].send_keys(question, Keys.ENTER)

    def pick(self, analysis_id: str) -> None:
        button = self.find(f"[class*='st-key-pick-'][class*='-{analysis_id}'] button")
        self._wait(lambda d: button[0].is_enabled(), "the pick button")
        button[0].click()

    def click_label(self, label: str) -> None:
        from selenium.webdriver.common.by import By

        self._wait(lambda d: d.find_elements(By.XPATH, f"//button[.//p[text()='{label}']]"), label)[0].click()

    def answered(self) -> list[str]:
        """Waits for the answer's source cards (drawn once the streamed text is complete)."""
        # The first line is the icon's ligature name ("article"), the last the label.
        return [e.text.splitlines()[-1] for e in self.find("[data-testid=stExpander] summary")]

    def gone(self, css: str) -> None:
        from selenium.webdriver.common.by import By

        self._wait(lambda d: not d.find_elements(By.CSS_SELECTOR, css), f"{css} to go")


def open_tab(driver, url: str, new: bool) -> Tab:
    if new:
        driver.switch_to.new_window("tab")
    driver.get(url)
    return Tab(driver, driver.current_window_handle)


def test_ask_confirm_answer_and_start_over(browser, app_url, tmp_path):
    tab = open_tab(browser, app_url, new=False)
    tab.ask(HIGGS)
    tab.pick("HIG-24-001")
    assert "HIG-24-001" in tab.text(".st-key-lock-banner") and "AN-2024-001 v1" in tab.text(".st-key-lock-banner")
    cards = tab.answered()
    assert cards and cards[0].startswith("[1] AN-2024-001 v1")
    answer = tab.find("[data-testid=stChatMessage]")[-1].text
    assert answer.strip()
    tab.find("[data-testid=stExpander] summary")[0].click()
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
