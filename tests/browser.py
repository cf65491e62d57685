"""A real Chromium (Debian's, through Selenium) on a Streamlit app: start-up checks and a tab helper."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import httpx

CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-background-networking "
    "--disable-component-update --disable-sync --no-first-run --window-size=1280,1400"
).split()
WAIT_S = 90


def wait_healthy(url: str, server: subprocess.Popen, log: Path | None = None) -> str:
    """``url`` once the Streamlit server there answers its health check."""
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{url}/_stcore/health", timeout=2).status_code == 200:
                return url
        except httpx.TransportError:
            pass
        assert server.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:] if log else url
        time.sleep(0.3)


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
