"""The audit trail: one record per event (who signed in, what they asked, which
passages they were served, by which model). Embedded, JSON lines in a file rotated by
the standard library (``AuditLog``: what log shippers read); with ``MITRA_DATABASE_URL``,
rows of the shared database's ``audit`` table (``DatabaseAudit``), so every replica
writes one trail. ``open_audit(settings)`` picks.

Events (``Event``) and the fields their callers give them::

    login, login_failed, logout   method ("oidc" / "local"), reason (login_failed)
    route                         question, analyses (the proposed ids, best first)
    lock                          analysis
    switch                        analysis (the locked one), offered, question
    question                      analysis, question
    answer, refusal               analysis, chunks (the chunk ids served), cited, model, backend,
                                  timings_ms (per stage), abstained (its reason), withheld;
                                  a failed or interrupted answer: analysis, chunks, error.
                                  Asked across analyses or side by side (the app's modes):
                                  mode ("across" / "compare"), and analyses where one answer
                                  drew on several (an across answer; a compare question)
    feedback                      analysis, rating, chunks (the cited ones)
    command                       a command run as a member (``mitra --as NAME``): command, args,
                                  question and analysis where it has them
    tool                          an MCP call (``mitra mcp``): tool (or resource), via ("stdio",
                                  "token", "oidc"), args, question and analysis where it has them,
                                  chunks (the passages served), error (a refused or failed call)

Admins read the trail and ship it to log systems, so nothing secret may reach it: the
value of any key naming a password, secret, token, cookie, authorization, credential or
API key is replaced by ``[redacted]``, and so is any string shaped like a JWT or an
Authorization header value, however deep it sits in the fields.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from abc import ABC, abstractmethod
from datetime import datetime, timezone
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Literal, get_args

from filelock import FileLock
from sqlalchemy import Engine, insert, select

from mitra.store.schema import audit
from mitra.store.state import database, uses_database

if TYPE_CHECKING:
    from mitra.core.settings import Settings

Event = Literal[
    "login", "login_failed", "logout", "route", "lock", "switch", "question", "answer", "refusal", "feedback",
    "command", "tool",
]
EVENTS: tuple[str, ...] = get_args(Event)
REDACTED = "[redacted]"
_SECRET_KEY = re.compile(r"password|passwd|secret|token|cookie|authorization|credential|api[_-]?key", re.I)
# A JWT (header, payload, signature: base64url, the header always starts {" = eyJ), or the
# credentials of an Authorization header (long enough that "bearer of" is not one).
_SECRET_VALUE = re.compile(
    r"\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*|\b(?:bearer|basic)\s+[A-Za-z0-9._~+/-]{8,}=*", re.I
)


def redact(value):
    """``value`` with every secret-named key's value and every token-shaped string replaced."""
    if isinstance(value, dict):
        return {k: REDACTED if _SECRET_KEY.search(str(k)) else redact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return _SECRET_VALUE.sub(REDACTED, value)
    return value


class _SharedRotatingHandler(RotatingFileHandler):
    """The stdlib's rotation, made safe for several processes (the app's workers, the CLI)
    appending to one trail: each line is written, and the file rotated, under an flock on
    ``<file>.lock``, after reopening the file if another process rotated it away (else
    this one would keep appending to ``audit.jsonl.1``)."""

    def __init__(self, path: Path, max_bytes: int, backups: int):
        super().__init__(path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8", delay=True)
        self._between_processes = FileLock(f"{path}.lock")

    def emit(self, record: logging.LogRecord) -> None:  # called by handle(), under this handler's thread lock
        with self._between_processes:
            if self.stream is not None:
                try:
                    rotated = not os.path.samestat(os.stat(self.baseFilename), os.fstat(self.stream.fileno()))
                except FileNotFoundError:
                    rotated = True
                if rotated:
                    self.stream.close()
                    self.stream = None  # shouldRollover() opens the live file again
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        raise  # an audit event that cannot be written is an error, not a line on stderr


# One handler per file per process: two handlers on one file would each rotate it.
_handlers: dict[Path, _SharedRotatingHandler] = {}
_handlers_lock = threading.Lock()


class AuditTrail(ABC):
    """``write`` one event, ``read`` them back filtered; the back ends only store and list."""

    def write(self, event: Event, user: str, **fields) -> None:
        """Appends one ``event`` by ``user``; ``fields`` are redacted first."""
        if event not in EVENTS:
            raise ValueError(f"unknown audit event {event!r}; one of {', '.join(EVENTS)}")
        if "ts" in fields:
            raise ValueError("the audit trail sets ts itself")
        self._append({"ts": datetime.now(timezone.utc).isoformat(timespec="milliseconds"), "event": event,
                      "user": user, **redact(fields)})

    def read(self, user: str | None = None, analysis: str | None = None, since: datetime | None = None,
             until: datetime | None = None, event: str | None = None) -> Iterator[dict]:
        """The matching events, oldest first. ``analysis`` matches an event's ``analysis`` or
        one of its ``analyses``; ``since``/``until`` are inclusive (naive times are UTC)."""
        for record in self._records(user, event, _utc(since), _utc(until)):
            listed = record.get("analyses")
            if analysis is not None and analysis != record.get("analysis") \
                    and not (isinstance(listed, list) and analysis in listed):
                continue
            yield record

    def copy_from(self, other: "AuditTrail") -> tuple[int, int]:
        """Append ``other``'s events this trail does not hold yet, as they were (their own
        times): moving a deployment's trail into the shared database. Returns (copied,
        already there); a second copy adds nothing."""
        key = lambda record: json.dumps(record, sort_keys=True, ensure_ascii=False, default=str)  # noqa: E731
        held = {key(record) for record in self.read()}
        copied = present = 0
        for record in other.read():
            if key(record) in held:
                present += 1
                continue
            self._append(record)
            held.add(key(record))
            copied += 1
        return copied, present

    @abstractmethod
    def _append(self, record: dict) -> None: ...

    @abstractmethod
    def _records(self, user: str | None, event: str | None, since: datetime | None,
                 until: datetime | None) -> Iterable[dict]: ...


class AuditLog(AuditTrail):
    """The trail at ``settings.audit_path``, JSON lines."""

    def __init__(self, settings: Settings):
        self.path = Path(settings.audit_path).absolute()
        self.max_bytes, self.backups = settings.audit_max_bytes, settings.audit_backups
        self.skipped = 0  # lines the last read() could not parse

    def _handler(self) -> _SharedRotatingHandler:
        with _handlers_lock:
            if self.path not in _handlers:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                handler = _SharedRotatingHandler(self.path, self.max_bytes, self.backups)
                handler.setFormatter(logging.Formatter("%(message)s"))
                _handlers[self.path] = handler
            return _handlers[self.path]

    def _append(self, record: dict) -> None:
        line = json.dumps(record, ensure_ascii=False, default=str)  # one line, one write
        self._handler().handle(logging.makeLogRecord({"msg": line, "levelno": logging.INFO}))

    def files(self) -> list[Path]:
        """The trail's files, oldest first: ``audit.jsonl.N`` … ``.1``, then the live one."""
        rotated = [self.path.with_name(f"{self.path.name}.{n}") for n in range(self.backups, 0, -1)]
        return [p for p in [*rotated, self.path] if p.is_file()]

    def _records(self, user, event, since, until) -> Iterator[dict]:
        """A line that is not an event is skipped and counted in ``self.skipped``."""
        self.skipped = 0
        for path in self.files():
            try:
                lines = path.open(encoding="utf-8", errors="replace")
            except FileNotFoundError:  # rotated away between files() and now
                continue
            with lines:
                for line in lines:
                    if not line.strip():
                        continue
                    try:
                        record = json.loads(line)
                        when = _utc(datetime.fromisoformat(record["ts"]))
                    except (ValueError, KeyError, TypeError):
                        self.skipped += 1
                        continue
                    if (user is not None and record.get("user") != user) \
                            or (event is not None and record.get("event") != event) \
                            or (since is not None and when < since) or (until is not None and when > until):
                        continue
                    yield record


class DatabaseAudit(AuditTrail):
    """The trail in the shared database's ``audit`` table: one row per event, the whole
    record kept as the file trail writes it, its time, user and event indexed to filter on."""

    skipped = 0  # rows are written whole: none is unreadable

    def __init__(self, engine: Engine):
        self.engine = engine

    def _append(self, record: dict) -> None:
        analysis = record.get("analysis")
        with self.engine.begin() as db:
            db.execute(insert(audit).values(
                ts=datetime.fromisoformat(record["ts"]), event=record["event"], user=record["user"],
                analysis=analysis if isinstance(analysis, str) else None,
                record=json.dumps(record, ensure_ascii=False, default=str)))

    def _records(self, user, event, since, until) -> Iterator[dict]:
        query = select(audit.c.record).order_by(audit.c.ts, audit.c.id)
        for column, value in ((audit.c.user, user), (audit.c.event, event)):
            if value is not None:
                query = query.where(column == value)
        if since is not None:
            query = query.where(audit.c.ts >= since)
        if until is not None:
            query = query.where(audit.c.ts <= until)
        with self.engine.connect() as db:
            for (record,) in db.execute(query):
                yield json.loads(record)


def open_audit(settings: Settings) -> AuditTrail:
    """This deployment's trail: the shared database's where MITRA_DATABASE_URL is set, else the file."""
    return DatabaseAudit(database(settings, "members")) if uses_database(settings) else AuditLog(settings)


def _utc(when: datetime | None) -> datetime | None:
    return when.replace(tzinfo=timezone.utc) if when is not None and when.tzinfo is None else when
