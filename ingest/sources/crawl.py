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

The crawler's parts: its browser and portal session (``crawl_browser``), its reading of
the portal (``crawl_portal``), its downloads (``crawl_downloads``) and what it reports
(``crawl_records``).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

import requests

from ingest.sources.identity import Identity
from ingest.sources.manifest import Manifest
from ingest.sources.profiles import SiteProfile
from ingest.sources.login import (
    Credentials,
    CredentialsError,
    save_session,
    session_path,
)
from mitra.core.settings import Settings
from ingest.sources.crawl_browser import LoginError, PortalSession, chromium
from ingest.sources.crawl_downloads import Downloads
from ingest.sources.crawl_portal import PortalNavigation
from ingest.sources.crawl_records import CrawlProgress, CrawlReport

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver


class _Crawler(PortalSession, PortalNavigation, Downloads):
    def __init__(self, profile: SiteProfile, settings: Settings, base_url: str, credentials: Credentials | None,
                 manifest: Manifest, driver: "WebDriver", http: requests.Session, report: CrawlReport) -> None:
        self.profile, self.settings, self.base_url = profile, settings, base_url
        self._credentials = credentials
        self.manifest, self.driver, self.http, self.report = manifest, driver, http, report
        self.session_file = session_path(settings, profile)
        self._last_request = 0.0
        self.visited: set[str] = set()  # web pages read in this crawl
        self.identity = Identity(base_url, settings.crawl_volatile_params, manifest)  # where a URL is, its id

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
