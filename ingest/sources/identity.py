"""A crawled document's identity: where it is on the portal, never where the portal is served.

A portal changes host, port or scheme (the demo's gets a new port on every run), so a
document is known by its **locator**: the part of its URL inside the portal, the path
under the portal's base URL and the query parameters that name it (sorted; session and
tracking parameters, ``crawl_volatile_params``, left out). A page or attachment keeps the
id it was first given for its locator, so a re-crawl of an unchanged portal at another
address downloads nothing and adds nothing, and a changed file is the next version of
the same document. A new locator is named by its URL (``doc_id_of``), with its folder's
name where another locator of the analysis has that name (``Main.WebHome``).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Protocol
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit


class KnownNames(Protocol):
    """What the manifest knows of the names given before (``ingest.sources.manifest``)."""

    def document_at(self, analysis_id: str, locator: str) -> str | None: ...

    def locator_of(self, analysis_id: str, doc_id: str) -> str | None: ...


def safe_name(value: str) -> str:
    """Ids read from web pages become path components: keep them to a harmless alphabet."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", value.strip()).strip("._")
    if not name:
        raise ValueError(f"{value!r} is not usable as an id")
    return name


def next_version(label: str) -> str:
    """The label after ``label``, for a file whose portal gives none: v1 -> v2, r9 -> r10."""
    match = re.search(r"(\d+)$", label)
    return f"{label[:match.start()]}{int(match[1]) + 1}" if match else f"{label}2"


def doc_id_of(url: str, *, qualified: bool = False) -> str:
    """A page's or an attachment's document id: its name in the URL (the query too, where
    it names the page, as in Confluence's ``viewpage.action?pageId=…``); ``qualified``, its
    folder's name before it, as TWiki names a topic of another web (``Main.WebHome``)."""
    parts = urlsplit(url)
    path = PurePosixPath(unquote(parts.path))
    name = path.name or parts.netloc
    if qualified and path.parent.name:
        name = f"{path.parent.name}.{name}"
    return safe_name(f"{name}_{parts.query}" if parts.query else name)


class Identity:
    """The locators of one crawl's URLs (its portal at ``base_url``), and the document id
    each one has."""

    def __init__(self, base_url: str, volatile_params: str, known: KnownNames) -> None:
        self.base_path = unquote(urlsplit(base_url).path).rstrip("/")
        self.volatile = re.compile(volatile_params)
        self.known = known
        self.by_name: dict[tuple[str, str], str] = {}  # (analysis, document id) -> its locator, in this crawl
        self.by_locator: dict[tuple[str, str], str] = {}  # and back

    def locator(self, url: str) -> str:
        """The URL's path under the portal's base (a path elsewhere on the host is marked
        ``!``), with the query parameters that name the document, sorted."""
        parts = urlsplit(url)
        path = re.sub(r";jsessionid=[^/]*", "", unquote(parts.path), flags=re.I) or "/"
        if self.base_path and (path == self.base_path or path.startswith(self.base_path + "/")):
            path = path[len(self.base_path):] or "/"
        elif self.base_path:
            path = "!" + path
        query = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if not self.volatile.search(k))
        return f"{path}?{urlencode(query)}" if query else path

    def doc_id(self, analysis_id: str, url: str) -> str:
        """The id the document at ``url`` had before (in this crawl or an earlier one), else
        its name in the URL, qualified by its folder's where another document has that name."""
        where = self.locator(url)
        name = self.by_locator.get((analysis_id, where)) or self.known.document_at(analysis_id, where)
        if name is None:
            name = doc_id_of(self._clean(url))
            taken = self.by_name.get((analysis_id, name)) or self.known.locator_of(analysis_id, name)
            if taken not in (None, where):
                name = doc_id_of(self._clean(url), qualified=True)
        self.by_name[(analysis_id, name)] = where
        self.by_locator[(analysis_id, where)] = name
        return name

    def _clean(self, url: str) -> str:
        """``url`` without the query parameters that do not name its document."""
        parts = urlsplit(url)
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        query = [(k, v) for k, v in pairs if not self.volatile.search(k)]
        return url if len(query) == len(pairs) else parts._replace(query=urlencode(query)).geturl()
