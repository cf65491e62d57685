"""The download manifest: what the crawler saw and fetched, and how far each version got.

One SQLite file (``settings.manifest_path``). ``analyses`` holds what the portal says
about each analysis; ``versions`` holds one row per (analysis, document, version) with the
download outcome, the kept file (``path``: the app offers it for download) and the state of
the later stages (extract, index). A document may be a PDF, a web page or an attachment, known by its
locator (its place on the portal, whatever the portal's address). A rerun skips what is
already downloaded and intact, and the pipeline lists what is downloaded but not yet
extracted or indexed with ``pending(Stage.index)``. Every write commits at once, so an
interrupted crawl keeps everything recorded before it stopped.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import sqlite3
from enum import Enum
from pathlib import Path
from typing import Callable, NamedTuple

from mitra.core.settings import Settings
from mitra.core.types import Analysis, Document

_SCHEMA = """
CREATE TABLE IF NOT EXISTS analyses (
    id            TEXT PRIMARY KEY,
    title         TEXT NOT NULL,
    abstract      TEXT NOT NULL DEFAULT '',
    url           TEXT NOT NULL DEFAULT '',
    first_seen_at TEXT NOT NULL,
    last_seen_at  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS versions (
    analysis_id    TEXT NOT NULL REFERENCES analyses(id),
    doc_id         TEXT NOT NULL,
    version        TEXT NOT NULL,
    title          TEXT NOT NULL DEFAULT '',
    url            TEXT NOT NULL,     -- where it was last fetched (the portal's address then)
    locator        TEXT,              -- where it is on the portal, whatever its address (ingest.sources.identity)
    path           TEXT,              -- relative to the manifest's folder when inside it
    sha256         TEXT,
    size           INTEGER,
    pages          INTEGER,
    downloaded_at  TEXT,
    status         TEXT NOT NULL,     -- DownloadStatus
    error          TEXT,
    seen_at        TEXT NOT NULL,
    extract_status TEXT NOT NULL DEFAULT 'pending',  -- StageStatus
    extract_error  TEXT,
    extract_at     TEXT,
    index_status   TEXT NOT NULL DEFAULT 'pending',
    index_error    TEXT,
    index_at       TEXT,
    PRIMARY KEY (analysis_id, doc_id, version)
);
"""

# What a version keeps when ``Manifest.fold`` gives it another key and file.
_KEPT_COLUMNS = ("title, url, locator, sha256, size, pages, downloaded_at, status, error, seen_at, extract_status, "
                 "extract_error, extract_at, index_status, index_error, index_at")


class DownloadStatus(str, Enum):
    downloaded = "downloaded"
    failed = "failed"


class Stage(str, Enum):
    """Stages after the download that record their progress per version."""

    extract = "extract"
    index = "index"


class StageStatus(str, Enum):
    pending = "pending"
    done = "done"
    failed = "failed"


class VersionKey(NamedTuple):
    analysis_id: str
    doc_id: str
    version: str


class AnalysisRecord(Analysis):
    url: str = ""
    first_seen_at: dt.datetime
    last_seen_at: dt.datetime


class VersionRecord(Document):
    """A manifest row; ``source`` is the download URL and ``path`` the local file."""

    path: Path | None = None
    locator: str | None = None
    size: int | None = None
    downloaded_at: dt.datetime | None = None
    status: DownloadStatus
    error: str | None = None
    seen_at: dt.datetime
    extract_status: StageStatus = StageStatus.pending
    extract_error: str | None = None
    extract_at: dt.datetime | None = None
    index_status: StageStatus = StageStatus.pending
    index_error: str | None = None
    index_at: dt.datetime | None = None

    @property
    def key(self) -> VersionKey:
        return VersionKey(self.analysis_id, self.doc_id, self.version)


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Manifest:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.root = path.parent
        self._db = sqlite3.connect(path)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA foreign_keys = ON")
        # WAL lets `mitra ingest status` read while a crawl writes.
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.executescript(_SCHEMA)
        if "locator" not in {row["name"] for row in self._db.execute("PRAGMA table_info(versions)")}:
            with self._db:  # a manifest written before locators: filled by the next crawl (fill_locators)
                self._db.execute("ALTER TABLE versions ADD COLUMN locator TEXT")

    @classmethod
    def open(cls, settings: Settings) -> "Manifest":
        return cls(settings.manifest_path)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "Manifest":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ paths

    def _store_path(self, path: Path) -> str:
        """Files under the data dir are stored relative to it, so the data dir can move."""
        resolved = path.resolve()
        try:
            return resolved.relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(resolved)

    # ------------------------------------------------------------------ analyses

    def upsert_analysis(self, analysis: Analysis, url: str = "") -> None:
        now = _now()
        with self._db:
            self._db.execute(
                """INSERT INTO analyses (id, title, abstract, url, first_seen_at, last_seen_at)
                   VALUES (?, ?, ?, ?, ?, ?)
                   ON CONFLICT (id) DO UPDATE SET title = excluded.title, abstract = excluded.abstract,
                       url = excluded.url, last_seen_at = excluded.last_seen_at""",
                (analysis.id, analysis.title, analysis.abstract, url, now, now),
            )

    def analyses(self) -> list[AnalysisRecord]:
        rows = self._db.execute("SELECT * FROM analyses ORDER BY id").fetchall()
        return [AnalysisRecord(**dict(row)) for row in rows]

    # ------------------------------------------------------------------ versions

    def _record(self, row: sqlite3.Row) -> VersionRecord:
        data = dict(row)
        data["source"] = data.pop("url")
        data["sha256"] = data["sha256"] or ""
        data["path"] = self.root / data["path"] if data["path"] else None
        return VersionRecord(**data)

    def get(self, key: VersionKey) -> VersionRecord | None:
        row = self._db.execute(
            "SELECT * FROM versions WHERE analysis_id = ? AND doc_id = ? AND version = ?", key
        ).fetchone()
        return self._record(row) if row else None

    def versions(self, analysis_id: str | None = None, status: DownloadStatus | None = None) -> list[VersionRecord]:
        query, args = "SELECT * FROM versions WHERE 1 = 1", []
        if analysis_id is not None:
            query, args = query + " AND analysis_id = ?", [*args, analysis_id]
        if status is not None:
            query, args = query + " AND status = ?", [*args, status.value]
        rows = self._db.execute(query + " ORDER BY analysis_id, doc_id, version", args).fetchall()
        return [self._record(row) for row in rows]

    def latest(self, analysis_id: str, doc_id: str) -> VersionRecord | None:
        """The newest version of a document that has a file (a failed fetch of it since
        included): what a file without a portal version is compared with."""
        from mitra.store.versions import version_key  # one natural order of version labels

        rows = [r for r in self.versions(analysis_id) if r.doc_id == doc_id and r.path is not None]
        return max(rows, key=lambda r: version_key(r.version), default=None)

    def locator_of(self, analysis_id: str, doc_id: str) -> str | None:
        """Where on the portal a document was last fetched from, if it was ever seen."""
        row = self._db.execute(
            "SELECT locator FROM versions WHERE analysis_id = ? AND doc_id = ? ORDER BY seen_at DESC LIMIT 1",
            (analysis_id, doc_id),
        ).fetchone()
        return row["locator"] if row else None

    def document_at(self, analysis_id: str, locator: str) -> str | None:
        """The document fetched from ``locator``: the first one seen there, where a moved
        portal left duplicates (``ingest.repair`` folds the others into it)."""
        row = self._db.execute(
            """SELECT doc_id, MIN(COALESCE(downloaded_at, seen_at)) AS first FROM versions
               WHERE analysis_id = ? AND locator = ? GROUP BY doc_id ORDER BY first, doc_id LIMIT 1""",
            (analysis_id, locator),
        ).fetchone()
        return row["doc_id"] if row else None

    def fill_locators(self, locate: Callable[[str], str]) -> int:
        """Give the rows written before locators theirs (``locate``: the URL's, on the portal
        being crawled); returns how many were filled."""
        rows = self._db.execute("SELECT rowid, url FROM versions WHERE locator IS NULL").fetchall()
        with self._db:
            self._db.executemany("UPDATE versions SET locator = ? WHERE rowid = ?",
                                 [(locate(row["url"]), row["rowid"]) for row in rows])
        return len(rows)

    def is_current(self, key: VersionKey, locator: str) -> bool:
        """Downloaded from this place on the portal, and the file is still there with the
        recorded hash."""
        record = self.get(key)
        return (
            record is not None
            and record.status is DownloadStatus.downloaded
            and record.locator == locator
            and record.path is not None
            and record.path.is_file()
            and file_sha256(record.path) == record.sha256
        )

    def _write_version(self, sql: str, args: tuple, key: VersionKey) -> None:
        try:
            with self._db:
                self._db.execute(sql, args)
        except sqlite3.IntegrityError as exc:
            raise KeyError(f"cannot record {'/'.join(key)}: analysis {key.analysis_id!r} is not in the manifest "
                           "(upsert_analysis first)") from exc

    def touch(self, key: VersionKey, url: str) -> None:
        """Seen again, unchanged, at ``url`` (the portal's address may have changed)."""
        with self._db:
            self._db.execute(
                "UPDATE versions SET seen_at = ?, url = ? WHERE analysis_id = ? AND doc_id = ? AND version = ?",
                (_now(), url, *key),
            )

    def record_download(
        self, key: VersionKey, *, title: str, url: str, path: Path, sha256: str, size: int, pages: int | None = None,
        locator: str | None = None,
    ) -> None:
        """A fresh file. Later stages start over only if its content changed."""
        now = _now()
        self._write_version(
            """INSERT INTO versions (analysis_id, doc_id, version, title, url, path, sha256, size, pages,
                                     downloaded_at, status, error, seen_at, locator)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)
               ON CONFLICT (analysis_id, doc_id, version) DO UPDATE SET
                   extract_status = CASE WHEN versions.sha256 IS excluded.sha256
                                         THEN versions.extract_status ELSE 'pending' END,
                   extract_error  = CASE WHEN versions.sha256 IS excluded.sha256
                                         THEN versions.extract_error ELSE NULL END,
                   index_status   = CASE WHEN versions.sha256 IS excluded.sha256
                                         THEN versions.index_status ELSE 'pending' END,
                   index_error    = CASE WHEN versions.sha256 IS excluded.sha256
                                         THEN versions.index_error ELSE NULL END,
                   title = excluded.title, url = excluded.url, path = excluded.path,
                   sha256 = excluded.sha256, size = excluded.size, pages = excluded.pages,
                   downloaded_at = excluded.downloaded_at, status = excluded.status,
                   error = NULL, seen_at = excluded.seen_at, locator = excluded.locator""",
            (*key, title, url, self._store_path(path), sha256, size, pages, now, DownloadStatus.downloaded.value, now,
             locator),
            key,
        )

    def record_failure(self, key: VersionKey, *, title: str, url: str, error: str, locator: str | None = None) -> None:
        """A failed download; a file fetched earlier for this version stays recorded."""
        self._write_version(
            """INSERT INTO versions (analysis_id, doc_id, version, title, url, status, error, seen_at, locator)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (analysis_id, doc_id, version) DO UPDATE SET
                   title = excluded.title, url = excluded.url, status = excluded.status,
                   error = excluded.error, seen_at = excluded.seen_at, locator = excluded.locator""",
            (*key, title, url, DownloadStatus.failed.value, error, _now(), locator),
            key,
        )

    def fold(self, moves: list[tuple[VersionKey, VersionKey | None, Path | None]]) -> None:
        """In one transaction, each ``(old, new, path)``: the row of ``old`` becomes ``new``'s,
        its file ``path``; without ``new``, it is deleted (``ingest.repair``: a duplicate
        document's versions folded into the document it duplicates)."""
        with self._db:
            for old, new, path in moves:
                if new is not None:
                    self._db.execute(
                        f"""INSERT OR REPLACE INTO versions (analysis_id, doc_id, version, path, {_KEPT_COLUMNS})
                            SELECT ?, ?, ?, ?, {_KEPT_COLUMNS} FROM versions
                            WHERE analysis_id = ? AND doc_id = ? AND version = ?""",
                        (*new, self._store_path(path) if path else None, *old),
                    )
                self._db.execute("DELETE FROM versions WHERE analysis_id = ? AND doc_id = ? AND version = ?", old)

    # ------------------------------------------------------------------ later stages

    def pending(self, stage: Stage) -> list[VersionRecord]:
        """Downloaded versions whose ``stage`` has not succeeded yet (pending or failed)."""
        rows = self._db.execute(
            f"""SELECT * FROM versions WHERE status = ? AND {stage.value}_status != ?
                ORDER BY analysis_id, doc_id, version""",
            (DownloadStatus.downloaded.value, StageStatus.done.value),
        ).fetchall()
        return [self._record(row) for row in rows]

    def mark_stage(self, key: VersionKey, stage: Stage, error: str | None = None) -> None:
        """Record that ``stage`` succeeded for this version, or failed with ``error``."""
        status = StageStatus.done if error is None else StageStatus.failed
        with self._db:
            cursor = self._db.execute(
                f"""UPDATE versions SET {stage.value}_status = ?, {stage.value}_error = ?, {stage.value}_at = ?
                    WHERE analysis_id = ? AND doc_id = ? AND version = ?""",
                (status.value, error, _now(), *key),
            )
        if cursor.rowcount == 0:
            raise KeyError(f"no manifest entry for {'/'.join(key)}")
