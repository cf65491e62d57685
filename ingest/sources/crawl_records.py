"""What a crawl reports: each file's outcome, the crawl's report and the progress it tells,
and a document link as the portal lists it."""

from __future__ import annotations

import datetime as dt
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel, Field


if TYPE_CHECKING:
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


class DocLink(BaseModel):
    doc_id: str
    version: str | None = Field(description="the portal's; None: the content decides whether it is new")
    title: str
    url: str
    suffix: str = Field(description="the kept file's name ends in it")

