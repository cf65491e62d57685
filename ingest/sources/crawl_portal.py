"""Portal navigation: the JavaScript-rendered analysis list, each analysis page, and the web
pages and attachments it links to, up to the profile's depth. Links off the portal's host
and links that would log out or edit are never opened, and no page is read twice."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit


from ingest.sources.identity import safe_name
from ingest.sources.profiles import LinksSpec, PagesSpec
from mitra.core.types import Analysis
from ingest.sources.crawl_browser import read_element
from ingest.sources.crawl_downloads import DownloadError, suffix_of
from ingest.sources.crawl_records import DocLink, FileOutcome

if TYPE_CHECKING:
    pass


class PortalNavigation:
    """The crawler's reading of the portal (mixed into ``ingest.sources.crawl._Crawler``)."""

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
                    link = read_element(row, spec.link)
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

    def read_analysis(self, url: str) -> tuple[Analysis, list[DocLink], list[str]]:
        """The analysis, its documents, and the URLs of its web pages to follow."""
        from selenium.webdriver.common.by import By

        spec = self.profile.analysis
        self.get(url)
        self.wait_for(spec.ready or spec.id.css or "body")
        analysis_id = read_element(self.driver, spec.id)
        if not analysis_id:
            raise ValueError(f"{url}: no analysis id at {spec.id.css!r}")
        analysis = Analysis(
            id=safe_name(analysis_id),
            title=read_element(self.driver, spec.title) or "",
            abstract=read_element(self.driver, spec.abstract) or "",
        )
        docs = spec.documents
        links = []
        for item in self.driver.find_elements(By.CSS_SELECTOR, docs.item):
            href, doc_id = read_element(item, docs.link), read_element(item, docs.doc_id)
            version = read_element(item, docs.version) if docs.version else ""
            if not (href and doc_id and version is not None):
                self.report.errors.append(
                    f"{url}: a document entry lacks a link, id or version (got {href!r}, {doc_id!r}, {version!r})"
                )
                continue
            title = (read_element(item, docs.title) if docs.title else None) or doc_id
            links.append(DocLink(doc_id=safe_name(doc_id), version=safe_name(version) if version else None,
                                  title=title, url=self.url(href), suffix=suffix_of(href, ".pdf")))
        pages = [link.url for link in self.links(spec.pages.links, ".html", analysis.id)] if spec.pages else []
        return analysis, links, pages

    # ------------------------------------------------------------------ web pages and attachments

    def allowed(self, url: str) -> bool:
        """On the portal's host, and not a link that logs out, edits or attaches."""
        pages = self.profile.analysis.pages
        same_host = urlsplit(url).netloc == urlsplit(self.base_url).netloc
        return same_host and not (pages and re.search(pages.never, url))

    def links(self, spec: LinksSpec, suffix: str, analysis_id: str) -> list[DocLink]:
        """The links ``spec`` names on the page the browser shows, in order, without repeats."""
        from selenium.webdriver.common.by import By

        found: dict[str, DocLink] = {}
        for item in self.driver.find_elements(By.CSS_SELECTOR, spec.item):
            href = read_element(item, spec.link)
            if not href:
                continue
            url = self.url(href).split("#")[0]
            if url in found or not self.allowed(url) or (spec.href and not re.search(spec.href, url)):
                continue
            version = read_element(item, spec.version) if spec.version else None
            doc_id = self.identity.doc_id(analysis_id, url)
            title = (read_element(item, spec.title) if spec.title else None) or doc_id
            found[url] = DocLink(doc_id=doc_id, version=safe_name(version) if version else None, title=title,
                                  url=url, suffix=suffix_of(url, suffix))
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
                  follow: bool) -> tuple[FileOutcome, list[DocLink], list[DocLink]]:
        """The page as a document (fetched as the portal serves it: status and content are
        checked, the browser's rendering is not kept), its attachments, and the pages it
        links where the crawl goes deeper."""
        doc_id = self.identity.doc_id(analysis_id, url)
        link = DocLink(doc_id=doc_id, version=None, title=doc_id, url=url, suffix=suffix_of(url, ".html"))
        staged = self.settings.downloads_dir / analysis_id / doc_id / f"fetched{link.suffix}"
        try:
            sha256, size = self.download(url, staged, referer)
            self.render(url, spec.ready)
        except DownloadError as exc:
            staged.unlink(missing_ok=True)
            return self.failed(analysis_id, link, exc), [], []
        version = read_element(self.driver, spec.version) if spec.version else None
        link = link.model_copy(update={
            "title": (read_element(self.driver, spec.title) if spec.title else None) or link.doc_id,
            "version": safe_name(version) if version else None,
        })
        attachments = self.links(spec.attachments, "", analysis_id)
        pages = self.links(spec.links, ".html", analysis_id) if follow else []
        self.sync_cookies()
        return self.keep(analysis_id, link, staged, sha256, size), attachments, pages

