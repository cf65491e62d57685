"""Downloads: files fetched over a ``requests.Session`` that carries the browser's cookies, so
timeouts, retries, status codes and hashes are in our hands; a file must be a document the
readers take, of the kind its name says. A file whose portal gives no version is a new
version only when its content changed; each outcome goes to the manifest as it happens."""

from __future__ import annotations

import hashlib
import logging
import os
import time
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import requests

from ingest.extract.base import ExtractionError
from ingest.extract.readers import detect_format
from ingest.sources.identity import next_version
from ingest.sources.manifest import VersionKey
from mitra.core.errors import MitraError
from ingest.sources.crawl_records import DocLink, FileOutcome, FileStatus

if TYPE_CHECKING:
    pass


log = logging.getLogger(__name__)


_CHUNK = 1 << 16
# The names a kept file may end in (what the readers take); a URL without one keeps its kind's default.
_SUFFIXES = (".pdf", ".pptx", ".docx", ".html", ".htm", ".md", ".markdown", ".txt")


class DownloadError(MitraError):
    """A file could not be fetched; the message says why."""


class TransientError(DownloadError):
    """Worth retrying: timeouts, dropped connections, 5xx."""


class SessionExpired(Exception):
    pass



def suffix_of(url: str, default: str) -> str:
    suffix = PurePosixPath(urlsplit(url).path).suffix.lower()
    return suffix if suffix in _SUFFIXES else default



class Downloads:
    """The crawler's downloads (mixed into ``ingest.sources.crawl._Crawler``)."""

    # ------------------------------------------------------------------ downloads

    def failed(self, analysis_id: str, link: DocLink, error: DownloadError) -> FileOutcome:
        """A failure is recorded under the version it was meant to be: the portal's, else
        the newest known (its file stays recorded), else the first."""
        latest = self.manifest.latest(analysis_id, link.doc_id) if link.version is None else None
        version = link.version or (latest.version if latest else "v1")
        self.manifest.record_failure(VersionKey(analysis_id, link.doc_id, version), title=link.title, url=link.url,
                                     error=str(error), locator=self.identity.locator(link.url))
        log.info("%s: %s", link.url, error)
        return FileOutcome(analysis_id=analysis_id, doc_id=link.doc_id, version=version, title=link.title,
                           url=link.url, status=FileStatus.failed, error=str(error))

    def keep(self, analysis_id: str, link: DocLink, staged: Path, sha256: str, size: int) -> FileOutcome:
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

    def fetch(self, analysis_id: str, link: DocLink, referer: str) -> FileOutcome:
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
            except SessionExpired:
                if relogged:
                    raise DownloadError("the portal asks for a login again right after logging in") from None
                log.info("session expired while downloading %s: logging in again", url)
                self.login()
                relogged = True
            except TransientError as exc:
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
                    raise SessionExpired
                if response.status_code >= 500:
                    raise TransientError(f"HTTP {response.status_code} {response.reason}")
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
            raise TransientError(f"timed out after {timeout:g} s") from None
        except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError) as exc:
            raise TransientError(f"connection failed: {exc}") from None
        finally:
            part.unlink(missing_ok=True)

