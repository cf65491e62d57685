"""Site profiles: how to log in to a document portal, walk its listing and find its documents.

A profile is YAML (bundled ones sit beside this file) parsed into ``SiteProfile``. URLs in
it are relative to the base URL, which an environment variable or ``--base-url`` can
override (the test portal runs on a random port). Selectors are CSS.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mitra.core.errors import MitraError

PROFILE_DIR = Path(__file__).resolve().parent


class ProfileError(MitraError, ValueError):
    """A profile that does not exist or does not validate."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Extract(_Strict):
    """Where a value is: an element (CSS, relative to the enclosing element; none = that
    element), then an attribute of it (none = its text), then an optional regex whose first
    group (or whole match) is the value. A bare string in YAML is a CSS selector."""

    css: str | None = None
    attr: str | None = None
    pattern: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _selector_only(cls, value: Any) -> Any:
        return {"css": value} if isinstance(value, str) else value

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            re.compile(value)
        return value


class CredentialSource(_Strict):
    """Environment variables first; then a netrc-style file (default ``~/.netrc``)."""

    user_env: str | None = None
    password_env: str | None = None
    netrc: Path | None = None
    netrc_machine: str | None = Field(None, description="default: the host of the base URL")


class LoginSpec(_Strict):
    url: str
    user: str
    password: str
    submit: str
    success: str = Field(description="present only when logged in")
    error: str | None = Field(None, description="the message a failed login shows")
    expired_url: str = Field(description="regex: a page URL matching it means the session is gone")

    @field_validator("expired_url")
    @classmethod
    def _compiles(cls, value: str) -> str:
        re.compile(value)
        return value


class ListingSpec(_Strict):
    url: str
    row: str
    link: Extract = Field(description="the analysis page URL, read from a row")
    id: Extract | None = None
    title: Extract | None = None
    ready: str | None = Field(None, description="present once the list has rendered; default: a row")
    next: str | None = Field(None, description="the next-page control (followed by href, else clicked)")
    page_param: str | None = Field(None, description="or: a query parameter counted up from 1")
    max_pages: int = Field(200, ge=1)

    @model_validator(mode="after")
    def _one_pagination(self) -> "ListingSpec":
        if self.next and self.page_param:
            raise ValueError("listing: give either `next` or `page_param`, not both")
        if self.page_param and not self.ready:
            raise ValueError("listing: `page_param` needs `ready`, a marker that an empty page shows too")
        return self


class DocumentsSpec(_Strict):
    item: str = Field(description="one element per document version")
    link: Extract
    doc_id: Extract
    version: Extract | None = Field(None, description="none: the file's content decides whether it is a new version")
    title: Extract | None = None


class LinksSpec(_Strict):
    """Links of one kind on a page: one element per link, its URL, and what the portal says
    of it. A link's document id is its file (or page) name."""

    item: str = Field(description="CSS: one element per link")
    link: Extract = Field(Extract(attr="href"), description="the URL, read from the element")
    href: str | None = Field(None, description="regex the absolute URL must match (search)")
    version: Extract | None = Field(None, description="the portal's version; none: the content decides")
    title: Extract | None = Field(None, description="default: the document id")

    @field_validator("href")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            re.compile(value)
        return value


# Links a crawler must never open: they end the session, lock or change a page.
_NEVER_FOLLOW = (r"(?i)/(logout|logoff|signout|login|edit|attach|upload|save|rename|delete|oops)\b"
                 r"|[?&](action|cmd)=(edit|delete|attach|logout)\b|\.action\?.*\b(edit|remove)")


class PagesSpec(_Strict):
    """The analysis's web pages (wiki, TWiki, Confluence, Indico) and their attachments.
    A page is kept as fetched (the reader strips its chrome) and indexed, as is every
    attachment; pages and files off the portal's host are never fetched."""

    links: LinksSpec = Field(description="on the analysis page (and on followed pages, below `depth`): pages to follow")
    attachments: LinksSpec = Field(description="on a followed page: the files to download")
    ready: str = Field("body", description="present once a followed page has rendered")
    title: Extract | None = Field(None, description="a followed page's title; default: its document id")
    version: Extract | None = Field(None, description="a followed page's revision; none: its content decides")
    depth: int = Field(1, ge=1, description="page hops from the analysis page (1: its pages and their attachments)")
    never: str = Field(_NEVER_FOLLOW, description="regex: URLs never followed (logout, edit, attach ...)")

    @field_validator("never")
    @classmethod
    def _compiles(cls, value: str) -> str:
        re.compile(value)
        return value


class AnalysisPageSpec(_Strict):
    id: Extract
    title: Extract
    abstract: Extract
    documents: DocumentsSpec
    pages: PagesSpec | None = Field(None, description="web pages of the analysis to follow, with their attachments")
    ready: str | None = Field(None, description="present once the page has rendered; default: the id element")


class DownloadSpec(_Strict):
    # Chromium's download folder gives no status code, timeout or hash; a requests.Session
    # carrying the browser's cookies (and user agent) gives all three.
    via: Literal["requests"] = "requests"
    send_referer: bool = True


class SiteProfile(_Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    description: str = ""
    base_url: str
    base_url_env: str | None = None
    credentials: CredentialSource
    login: LoginSpec
    listing: ListingSpec
    analysis: AnalysisPageSpec
    download: DownloadSpec = DownloadSpec()
    groups: list[str] = Field(
        default_factory=list, description="groups that may read every analysis crawled from this portal (mitra.access)"
    )

    def resolve_base_url(self, override: str | None = None) -> str:
        """``override`` (``--base-url``), else ``$base_url_env`` if set, else ``base_url``."""
        from_env = os.environ.get(self.base_url_env) if self.base_url_env else None
        return (override or from_env or self.base_url).rstrip("/")


def bundled_profiles() -> list[str]:
    return sorted(p.stem for p in PROFILE_DIR.glob("*.yaml"))


def load_profile(ref: str | Path) -> SiteProfile:
    """A profile from a YAML path, or by the name of a bundled one (``local_portal``)."""
    path = Path(ref)
    if not path.is_file():
        path = PROFILE_DIR / f"{ref}.yaml"
    if not path.is_file():
        raise ProfileError(f"no profile {str(ref)!r}: not a file, nor one of {bundled_profiles()}")
    try:
        return SiteProfile.model_validate(yaml.safe_load(path.read_text()))
    except (yaml.YAMLError, ValidationError) as exc:
        raise ProfileError(f"invalid site profile {path}: {exc}") from exc
