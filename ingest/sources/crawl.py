"""Crawl a document portal with a real browser and download every document version.

Selenium drives headless Chromium (Debian's binary and driver, nothing downloaded)
through the profile's login form, the JavaScript-rendered analysis list and each analysis
page. Where the profile says so, it follows the analysis's web pages (a wiki topic) and
their attachments, up to the profile's depth: each page is a document too, kept as
fetched, and so is each attachment of a supported type. Links off the portal's host and
links that would log out or edit are never opened, and no page is read twice.

Files are fetched over a ``requests.Session`` that carries the browser's cookies, so
timeouts, retries, status codes and hashes are in our hands; a file must be a document
the readers take, of the kind its name says. A file whose portal gives no version is a
new version only when its content changed. Each outcome is written to the manifest as it
happens: an interrupted crawl loses nothing, and a rerun skips what is downloaded intact.

Per-file problems (404, 500, timeouts, a broken or unsupported file) are recorded and the
batch goes on; an expired session is renewed by logging in once more; a rejected login
stops the crawl.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import os
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urljoin, urlsplit

import requests
from pydantic import BaseModel, Field

from ingest.extract.base import ExtractionError
from ingest.extract.readers import detect_format
from ingest.sources.identity import Identity, doc_id_of, next_version, safe_name  # noqa: F401 (doc_id_of: tests)
from ingest.sources.manifest import Manifest, VersionKey
from ingest.sources.profiles import Extract, LinksSpec, PagesSpec, SiteProfile
from ingest.sources.login import (
    Credentials,
    CredentialsError,
    domain_matches,
    load_session,
    resolve_credentials,
    save_session,
    session_path,
)
from mitra.core.errors import MitraError
from mitra.core.settings import Settings
from mitra.core.types import Analysis

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
_CHUNK = 1 << 16
# The names a kept file may end in (what the readers take); a URL without one keeps its kind's default.
_SUFFIXES = (".pdf", ".pptx", ".docx", ".html", ".htm", ".md", ".markdown", ".txt")


class LoginError(MitraError):
    """The portal rejected the login, or the login page did not behave as the profile says."""


class BrowserError(MitraError):
    """Chromium or its driver is missing."""


class DownloadError(MitraError):
    """A file could not be fetched; the message says why."""


class _TransientError(DownloadError):
    """Worth retrying: timeouts, dropped connections, 5xx."""


class _SessionExpired(Exception):
    pass


class FileStatus(str, Enum):
    downloaded = "downloaded"
    skipped = "skipped"  # unchanged since the last crawl
    failed = "failed"


class FileOutcome(BaseModel):
    analysis_id: str
    doc_id: str
    version: str
    title: str = ""
    url: str
    status: FileStatus
    path: Path | None = None
    sha256: str | None = None
    error: str | None = None


class CrawlReport(BaseModel):
    profile: str
    base_url: str
    started_at: dt.datetime
    finished_at: dt.datetime | None = None
    analyses: list[str] = Field(default_factory=list, description="ids of the analysis pages read")
    files: list[FileOutcome] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list, description="listing or analysis pages that failed")
    logins: int = Field(0, description="form logins performed, re-logins included")
    session_reused: bool = Field(False, description="a saved session was still valid")

    def _with(self, status: FileStatus) -> list[FileOutcome]:
        return [f for f in self.files if f.status is status]

    @property
    def downloaded(self) -> list[FileOutcome]:
        return self._with(FileStatus.downloaded)

    @property
    def skipped(self) -> list[FileOutcome]:
        return self._with(FileStatus.skipped)

    @property
    def failed(self) -> list[FileOutcome]:
        return self._with(FileStatus.failed)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.errors


class CrawlProgress(Protocol):
    def listed(self, analyses: int) -> None: ...

    def analysis_done(self, analysis: str, files: list[FileOutcome]) -> None:
        """``analysis``: its id, or its page URL when the page could not be read."""


class _DocLink(BaseModel):
    doc_id: str
    version: str | None = Field(description="the portal's; None: the content decides whether it is new")
    title: str
    url: str
    suffix: str = Field(description="the kept file's name ends in it")


def _suffix(url: str, default: str) -> str:
    suffix = PurePosixPath(urlsplit(url).path).suffix.lower()
    return suffix if suffix in _SUFFIXES else default


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


def _read(scope: "WebDriver | WebElement", extract: Extract) -> str | None:
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


class _Crawler:
    def __init__(self, profile: SiteProfile, settings: Settings, base_url: str, credentials: Credentials | None,
                 manifest: Manifest, driver: "WebDriver", http: requests.Session, report: CrawlReport) -> None:
        self.profile, self.settings, self.base_url = profile, settings, base_url
        self._credentials = credentials
        self.manifest, self.driver, self.http, self.report = manifest, driver, http, report
        self.session_file = session_path(settings, profile)
        self._last_request = 0.0
        self.visited: set[str] = set()  # web pages read in this crawl
        self.identity = Identity(base_url, settings.crawl_volatile_params, manifest)  # where a URL is, its id

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

    # ------------------------------------------------------------------ listing

    def list_analyses(self) -> list[str]:
        """Analysis page URLs from every page of the listing, in order, without repeats.
        A page that fails ends the listing; what was read before it is kept."""
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions as ec

        spec = self.profile.listing
        urls: list[str] = []
        first = self.url(spec.url)
        try:
            self.get(self._page(first, 1))
            for page in range(1, spec.max_pages + 1):
                marker = self.wait_for(spec.ready or spec.row)
                rows = self.driver.find_elements(By.CSS_SELECTOR, spec.row)
                for row in rows:
                    link = _read(row, spec.link)
                    if link and self.url(link) not in urls:
                        urls.append(self.url(link))
                if spec.page_param:
                    if not rows:
                        break
                    self.get(self._page(first, page + 1))
                    continue
                controls = self.driver.find_elements(By.CSS_SELECTOR, spec.next) if spec.next else []
                if not controls:
                    break
                href = controls[0].get_attribute("href")
                if href:
                    self.get(href)
                else:  # a client-side pager: wait for the old rows to be replaced
                    self.pause()
                    controls[0].click()
                    self.wait().until(ec.staleness_of(rows[0] if rows else marker))
        except WebDriverException as exc:
            self.report.errors.append(
                f"listing stopped at {self.driver.current_url} after {len(urls)} analyses: "
                f"{type(exc).__name__} {exc.msg or ''}".strip()
            )
        return urls

    def _page(self, url: str, number: int) -> str:
        param = self.profile.listing.page_param
        if not param:
            return url
        return f"{url}{'&' if '?' in url else '?'}{param}={number}"

    # ------------------------------------------------------------------ analysis pages

    def read_analysis(self, url: str) -> tuple[Analysis, list[_DocLink], list[str]]:
        """The analysis, its documents, and the URLs of its web pages to follow."""
        from selenium.webdriver.common.by import By

        spec = self.profile.analysis
        self.get(url)
        self.wait_for(spec.ready or spec.id.css or "body")
        analysis_id = _read(self.driver, spec.id)
        if not analysis_id:
            raise ValueError(f"{url}: no analysis id at {spec.id.css!r}")
        analysis = Analysis(
            id=safe_name(analysis_id),
            title=_read(self.driver, spec.title) or "",
            abstract=_read(self.driver, spec.abstract) or "",
        )
        docs = spec.documents
        links = []
        for item in self.driver.find_elements(By.CSS_SELECTOR, docs.item):
            href, doc_id = _read(item, docs.link), _read(item, docs.doc_id)
            version = _read(item, docs.version) if docs.version else ""
            if not (href and doc_id and version is not None):
                self.report.errors.append(
                    f"{url}: a document entry lacks a link, id or version (got {href!r}, {doc_id!r}, {version!r})"
                )
                continue
            title = (_read(item, docs.title) if docs.title else None) or doc_id
            links.append(_DocLink(doc_id=safe_name(doc_id), version=safe_name(version) if version else None,
                                  title=title, url=self.url(href), suffix=_suffix(href, ".pdf")))
        pages = [link.url for link in self.links(spec.pages.links, ".html", analysis.id)] if spec.pages else []
        return analysis, links, pages

    # ------------------------------------------------------------------ web pages and attachments

    def allowed(self, url: str) -> bool:
        """On the portal's host, and not a link that logs out, edits or attaches."""
        pages = self.profile.analysis.pages
        same_host = urlsplit(url).netloc == urlsplit(self.base_url).netloc
        return same_host and not (pages and re.search(pages.never, url))

    def links(self, spec: LinksSpec, suffix: str, analysis_id: str) -> list[_DocLink]:
        """The links ``spec`` names on the page the browser shows, in order, without repeats."""
        from selenium.webdriver.common.by import By

        found: dict[str, _DocLink] = {}
        for item in self.driver.find_elements(By.CSS_SELECTOR, spec.item):
            href = _read(item, spec.link)
            if not href:
                continue
            url = self.url(href).split("#")[0]
            if url in found or not self.allowed(url) or (spec.href and not re.search(spec.href, url)):
                continue
            version = _read(item, spec.version) if spec.version else None
            doc_id = self.identity.doc_id(analysis_id, url)
            title = (_read(item, spec.title) if spec.title else None) or doc_id
            found[url] = _DocLink(doc_id=doc_id, version=safe_name(version) if version else None, title=title,
                                  url=url, suffix=_suffix(url, suffix))
        return list(found.values())

    def follow_pages(self, spec: PagesSpec, analysis_id: str, urls: list[str], referer: str) -> list[FileOutcome]:
        """Each page (kept, and read in the browser for its links) and its attachments,
        breadth first up to the profile's depth; a page seen before in this crawl is not read again."""
        outcomes: list[FileOutcome] = []
        frontier = [(url, referer) for url in urls]
        for depth in range(1, spec.depth + 1):
            deeper: list[tuple[str, str]] = []
            for url, came_from in frontier:
                if url in self.visited:
                    continue
                self.visited.add(url)
                page, attachments, pages = self.read_page(spec, analysis_id, url, came_from,
                                                          follow=depth < spec.depth)
                outcomes.append(page)
                outcomes += [self.fetch(analysis_id, link, url) for link in attachments]
                deeper += [(link.url, url) for link in pages]
            frontier = deeper
        return outcomes

    def render(self, url: str, ready: str) -> None:
        """Open ``url`` in the browser until ``ready`` shows; a ``DownloadError`` says why not."""
        from selenium.common.exceptions import TimeoutException, WebDriverException

        try:
            self.get(url)
            self.wait_for(ready)
        except TimeoutException:
            raise DownloadError(f"the page shows no {ready!r} within {self.settings.crawl_timeout_s:g} s") from None
        except WebDriverException as exc:
            raise DownloadError(f"the browser could not open the page: {type(exc).__name__} {exc.msg or ''}".strip()) \
                from None

    def read_page(self, spec: PagesSpec, analysis_id: str, url: str, referer: str, *,
                  follow: bool) -> tuple[FileOutcome, list[_DocLink], list[_DocLink]]:
        """The page as a document (fetched as the portal serves it: status and content are
        checked, the browser's rendering is not kept), its attachments, and the pages it
        links where the crawl goes deeper."""
        doc_id = self.identity.doc_id(analysis_id, url)
        link = _DocLink(doc_id=doc_id, version=None, title=doc_id, url=url, suffix=_suffix(url, ".html"))
        staged = self.settings.downloads_dir / analysis_id / doc_id / f"fetched{link.suffix}"
        try:
            sha256, size = self.download(url, staged, referer)
            self.render(url, spec.ready)
        except DownloadError as exc:
            staged.unlink(missing_ok=True)
            return self.failed(analysis_id, link, exc), [], []
        version = _read(self.driver, spec.version) if spec.version else None
        link = link.model_copy(update={
            "title": (_read(self.driver, spec.title) if spec.title else None) or link.doc_id,
            "version": safe_name(version) if version else None,
        })
        attachments = self.links(spec.attachments, "", analysis_id)
        pages = self.links(spec.links, ".html", analysis_id) if follow else []
        self.sync_cookies()
        return self.keep(analysis_id, link, staged, sha256, size), attachments, pages

    # ------------------------------------------------------------------ downloads

    def failed(self, analysis_id: str, link: _DocLink, error: DownloadError) -> FileOutcome:
        """A failure is recorded under the version it was meant to be: the portal's, else
        the newest known (its file stays recorded), else the first."""
        latest = self.manifest.latest(analysis_id, link.doc_id) if link.version is None else None
        version = link.version or (latest.version if latest else "v1")
        self.manifest.record_failure(VersionKey(analysis_id, link.doc_id, version), title=link.title, url=link.url,
                                     error=str(error), locator=self.identity.locator(link.url))
        log.info("%s: %s", link.url, error)
        return FileOutcome(analysis_id=analysis_id, doc_id=link.doc_id, version=version, title=link.title,
                           url=link.url, status=FileStatus.failed, error=str(error))

    def keep(self, analysis_id: str, link: _DocLink, staged: Path, sha256: str, size: int) -> FileOutcome:
        """A file fetched to ``staged``, kept as its version, or dropped when that version is
        already kept intact. Without a portal version, the newest kept one with the same
        content is that version, and different content is the next version."""
        version = link.version
        if version is None:
            latest = self.manifest.latest(analysis_id, link.doc_id)
            if latest is None:
                version = "v1"
            else:
                version = latest.version if latest.sha256 == sha256 else next_version(latest.version)
        key, where = VersionKey(analysis_id, link.doc_id, version), self.identity.locator(link.url)
        outcome = FileOutcome(analysis_id=analysis_id, doc_id=link.doc_id, version=version, title=link.title,
                              url=link.url, status=FileStatus.skipped, sha256=sha256)
        if self.manifest.is_current(key, where) and self.manifest.get(key).sha256 == sha256:
            staged.unlink()
            self.manifest.touch(key, link.url)
            return outcome.model_copy(update={"path": self.manifest.get(key).path})
        dest = staged.with_name(f"{version}{link.suffix}")
        os.replace(staged, dest)
        self.manifest.record_download(key, title=link.title, url=link.url, path=dest, sha256=sha256, size=size,
                                      locator=where)
        return outcome.model_copy(update={"status": FileStatus.downloaded, "path": dest})

    def fetch(self, analysis_id: str, link: _DocLink, referer: str) -> FileOutcome:
        """A document or attachment: skipped unfetched when its portal version is kept intact."""
        if link.version is not None:
            key = VersionKey(analysis_id, link.doc_id, link.version)
            if self.manifest.is_current(key, self.identity.locator(link.url)):
                self.manifest.touch(key, link.url)
                record = self.manifest.get(key)
                return FileOutcome(analysis_id=analysis_id, doc_id=link.doc_id, version=link.version,
                                   title=link.title, url=link.url, status=FileStatus.skipped, path=record.path,
                                   sha256=record.sha256)
        staged = self.settings.downloads_dir / analysis_id / link.doc_id / f"fetched{link.suffix}"
        try:
            sha256, size = self.download(link.url, staged, referer)
        except DownloadError as exc:
            return self.failed(analysis_id, link, exc)
        return self.keep(analysis_id, link, staged, sha256, size)

    def download(self, url: str, dest: Path, referer: str) -> tuple[str, int]:
        """Fetch with retries (exponential backoff) and at most one re-login."""
        attempt, relogged = 0, False
        while True:
            self.pause()
            try:
                return self._download_once(url, dest, referer)
            except _SessionExpired:
                if relogged:
                    raise DownloadError("the portal asks for a login again right after logging in") from None
                log.info("session expired while downloading %s: logging in again", url)
                self.login()
                relogged = True
            except _TransientError as exc:
                if attempt >= self.settings.crawl_retries:
                    raise DownloadError(f"{exc} (gave up after {attempt + 1} attempts)") from None
                time.sleep(self.settings.crawl_backoff_s * 2**attempt)
                attempt += 1

    def _download_once(self, url: str, dest: Path, referer: str) -> tuple[str, int]:
        timeout = self.settings.crawl_timeout_s
        headers = {"Referer": referer} if self.profile.download.send_referer else {}
        dest.parent.mkdir(parents=True, exist_ok=True)
        part = dest.with_name(f"{dest.stem}.part{dest.suffix}")  # the reader's check reads the name's suffix
        try:
            with self.http.get(url, headers=headers, timeout=timeout, stream=True) as response:
                if any(self.at_login(r.headers.get("location", "")) for r in response.history) or self.at_login(response.url):
                    raise _SessionExpired
                if response.status_code >= 500:
                    raise _TransientError(f"HTTP {response.status_code} {response.reason}")
                if response.status_code >= 400:
                    raise DownloadError(f"HTTP {response.status_code} {response.reason}")
                digest, size, limit = hashlib.sha256(), 0, self.settings.max_document_mb * 1e6
                with part.open("wb") as f:
                    for chunk in response.iter_content(_CHUNK):  # as sent, or inflated where the server compressed it
                        digest.update(chunk)
                        size += len(chunk)
                        if size > limit:
                            raise DownloadError(f"larger than max_document_mb ({self.settings.max_document_mb:g} MB)")
                        f.write(chunk)
                content_type = response.headers.get("content-type", "?")
            try:
                detect_format(part, self.settings)
            except ExtractionError as exc:
                with part.open("rb") as f:
                    head = f.read(16)
                raise DownloadError(f"{exc.reason} (the server sent {content_type} starting with {head!r})") from None
            os.replace(part, dest)
            return digest.hexdigest(), size
        except requests.Timeout:
            raise _TransientError(f"timed out after {timeout:g} s") from None
        except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError) as exc:
            raise _TransientError(f"connection failed: {exc}") from None
        finally:
            part.unlink(missing_ok=True)

    # ------------------------------------------------------------------ the crawl

    def run(self, progress: CrawlProgress | None) -> None:
        self.manifest.fill_locators(self.identity.locator)  # rows of a crawl before locators
        self.report.session_reused = self.restore_session()
        if not self.report.session_reused:
            self.login()
        urls = self.list_analyses()
        if progress:
            progress.listed(len(urls))
        for url in urls:
            try:
                analysis, links, pages = self.read_analysis(url)
            except (LoginError, CredentialsError):
                raise
            except Exception as exc:  # one broken page must not stop the batch
                self.report.errors.append(f"analysis page {url}: {type(exc).__name__}: {exc}".strip())
                if progress:
                    progress.analysis_done(url, [])
                continue
            self.manifest.upsert_analysis(analysis, url)
            self.report.analyses.append(analysis.id)
            self.sync_cookies()
            files = [self.fetch(analysis.id, link, url) for link in links]
            if self.profile.analysis.pages:
                files += self.follow_pages(self.profile.analysis.pages, analysis.id, pages, url)
            self.report.files += files
            if progress:
                progress.analysis_done(analysis.id, files)
        save_session(self.session_file, self.profile, self.driver.get_cookies())


def crawl(
    profile: SiteProfile,
    settings: Settings,
    *,
    base_url: str | None = None,
    credentials: Credentials | None = None,
    progress: CrawlProgress | None = None,
) -> CrawlReport:
    """Crawl the portal ``profile`` describes; downloads go to ``settings.downloads_dir``.

    ``base_url`` overrides the profile's; ``credentials`` default to the profile's sources
    (read only if a login is needed). Raises ``LoginError`` if the portal rejects the login.
    """
    root = profile.resolve_base_url(base_url)
    report = CrawlReport(profile=profile.name, base_url=root, started_at=dt.datetime.now(dt.timezone.utc))
    with Manifest.open(settings) as manifest, chromium(settings) as driver, requests.Session() as http:
        _Crawler(profile, settings, root, credentials, manifest, driver, http, report).run(progress)
    report.finished_at = dt.datetime.now(dt.timezone.utc)
    return report
