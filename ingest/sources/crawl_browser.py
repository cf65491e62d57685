"""The crawler's browser: headless Chromium (Debian's binary and driver, nothing downloaded),
reading the page through it, and the portal session it holds: the profile's login form, a
saved session restored, cookies handed to the ``requests.Session`` that downloads."""

from __future__ import annotations

import logging
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit


from ingest.sources.profiles import Extract
from ingest.sources.login import (
    Credentials,
    domain_matches,
    load_session,
    resolve_credentials,
    save_session,
)
from mitra.core.errors import MitraError
from mitra.core.settings import Settings

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.remote.webelement import WebElement
    from selenium.webdriver.support.ui import WebDriverWait


log = logging.getLogger(__name__)


CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


class LoginError(MitraError):
    """The portal rejected the login, or the login page did not behave as the profile says."""


class BrowserError(MitraError):
    """Chromium or its driver is missing."""



@contextmanager
def chromium(settings: Settings) -> Iterator["WebDriver"]:
    """Headless Chromium with a throw-away profile directory."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    for binary in (settings.chromium_binary, settings.chromedriver_binary):
        if not binary.is_file():
            raise BrowserError(f"{binary} not found: install Debian's chromium and chromium-driver")
    with tempfile.TemporaryDirectory(prefix="mitra-chromium-") as profile_dir:
        options = webdriver.ChromeOptions()
        options.binary_location = str(settings.chromium_binary)
        for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile_dir}"):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(str(settings.chromedriver_binary)), options=options)
        try:
            driver.set_page_load_timeout(settings.crawl_timeout_s)
            yield driver
        finally:
            driver.quit()


def read_element(scope: "WebDriver | WebElement", extract: Extract) -> str | None:
    from selenium.webdriver.common.by import By

    if extract.css:
        found = scope.find_elements(By.CSS_SELECTOR, extract.css)
        if not found:
            return None
        element = found[0]
    else:
        element = scope
    raw = element.get_attribute(extract.attr) if extract.attr else element.get_property("textContent")
    value = " ".join(str(raw or "").split())
    if extract.pattern:
        match = re.search(extract.pattern, value)
        value = (match.group(1) if match.groups() else match.group(0)) if match else ""
    return value or None


class PortalSession:
    """The browser side of the crawler (mixed into ``ingest.sources.crawl._Crawler``)."""

    # ------------------------------------------------------------------ plumbing

    def url(self, path: str) -> str:
        return urljoin(self.base_url + "/", path)

    def pause(self) -> None:
        """Politeness: at least ``crawl_delay_s`` between two requests to the portal."""
        wait = self._last_request + self.settings.crawl_delay_s - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._last_request = time.monotonic()

    def wait(self) -> "WebDriverWait":
        from selenium.webdriver.support.ui import WebDriverWait

        # Polling at 0.1 s instead of the default 0.5 s: JS-rendered pages settle fast.
        return WebDriverWait(self.driver, self.settings.crawl_timeout_s, poll_frequency=0.1)

    def wait_for(self, css: str) -> "WebElement":
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions as ec

        return self.wait().until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))

    def at_login(self, url: str) -> bool:
        return bool(url) and re.search(self.profile.login.expired_url, url) is not None

    def get(self, url: str) -> None:
        """Open ``url`` in the browser, logging in once more if the session has expired."""
        self.pause()
        self.driver.get(url)
        if self.at_login(self.driver.current_url):
            log.info("session expired at %s: logging in again", url)
            self.login()
            self.pause()
            self.driver.get(url)
            if self.at_login(self.driver.current_url):
                raise LoginError(f"{url} still asks for a login right after logging in")

    def sync_cookies(self) -> None:
        """Give the download session the browser's cookies and user agent."""
        self.http.headers["User-Agent"] = self.driver.execute_script("return navigator.userAgent")
        for c in self.driver.get_cookies():
            self.http.cookies.set(c["name"], c["value"], domain=c.get("domain", ""), path=c.get("path", "/"))

    # ------------------------------------------------------------------ session

    @property
    def credentials(self) -> Credentials:
        if self._credentials is None:
            self._credentials = resolve_credentials(self.profile, self.base_url)
        return self._credentials

    def login(self) -> None:
        from selenium.common.exceptions import TimeoutException
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions as ec

        spec, creds = self.profile.login, self.credentials
        self.pause()
        self.driver.get(self.url(spec.url))
        try:
            user = self.wait_for(spec.user)
        except TimeoutException:
            raise LoginError(
                f"login page {self.driver.current_url} shows no {spec.user!r} field within "
                f"{self.settings.crawl_timeout_s:g} s"
            ) from None
        user.clear()
        user.send_keys(creds.username)
        password = self.driver.find_element(By.CSS_SELECTOR, spec.password)
        password.clear()
        password.send_keys(creds.password.get_secret_value())
        self.driver.find_element(By.CSS_SELECTOR, spec.submit).click()
        outcomes = [ec.presence_of_element_located((By.CSS_SELECTOR, spec.success))]
        if spec.error:
            outcomes.append(ec.visibility_of_element_located((By.CSS_SELECTOR, spec.error)))
        try:
            self.wait().until(ec.any_of(*outcomes))
        except TimeoutException:
            raise LoginError(
                f"login to {self.profile.name} as {creds.username!r} did not complete within "
                f"{self.settings.crawl_timeout_s:g} s (now at {self.driver.current_url}): neither "
                f"{spec.success!r} nor {spec.error!r} appeared"
            ) from None
        if not self.driver.find_elements(By.CSS_SELECTOR, spec.success):
            shown = " ".join(e.text for e in self.driver.find_elements(By.CSS_SELECTOR, spec.error or "")).strip()
            raise LoginError(f"login to {self.profile.name} as {creds.username!r} was rejected: {shown}")
        self.report.logins += 1
        save_session(self.session_file, self.profile, self.driver.get_cookies())
        self.sync_cookies()

    def restore_session(self) -> bool:
        """Load the saved cookies into the browser and check that they still log us in."""
        from selenium.common.exceptions import InvalidCookieDomainException, TimeoutException

        cookies = load_session(self.session_file)
        if not cookies:
            return False
        self.pause()
        self.driver.get(self.base_url)  # cookies can only be set for the page's own host
        host = urlsplit(self.driver.current_url).hostname or ""
        for cookie in cookies:
            if not domain_matches(cookie.get("domain") or host, host):
                continue
            # Host-only cookies go in without a domain: Chromium rejects an IP address as one.
            fields = {k: v for k, v in cookie.items() if k in ("name", "value", "path", "secure", "httpOnly", "expiry")}
            if str(cookie.get("domain", "")).startswith("."):
                fields["domain"] = cookie["domain"]
            try:
                self.driver.add_cookie(fields)
            except InvalidCookieDomainException:
                log.debug("saved cookie %s does not fit %s", cookie["name"], host)
        self.pause()
        self.driver.get(self.url(self.profile.listing.url))
        if self.at_login(self.driver.current_url):
            return False
        try:
            self.wait_for(self.profile.login.success)
        except TimeoutException:
            return False
        self.sync_cookies()
        return True

