"""One writer at a time on a data dir; readers never wait.

Every command that writes the stores (``index-jsonl``, ``ingest pdf``, ``ingest run``,
``adapt``, the Ingestion page) holds ``<data_dir>/writer.lock`` (``filelock``: an
``flock`` the kernel releases when the holder dies, so a lock left by a killed run
is taken over at once). Beside it ``writer.json`` says who holds it, so a second
writer can say what it waits for: "waiting for the indexing run started at … by PID
…", up to ``settings.lock_timeout_s``, then one line and exit. Garbage collection
runs only under this lock, so it never deletes what a live writer is building.

In the cluster form (``MITRA_DATABASE_URL`` and ``MITRA_CHROMA_HOST`` set) writers on
different machines share no data dir: the lock is then PostgreSQL's advisory lock
(``mitra.store.advisory_lock``), with the same messages.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Callable, Iterator

from filelock import FileLock, Timeout
from sqlalchemy.engine import make_url

from mitra.core.errors import MitraError
from mitra.core.settings import Settings
from mitra.store.state import cluster_form


class WriterBusy(MitraError):
    """Another process kept the data dir's writer lock past the timeout."""


def _holder(settings: Settings) -> dict:
    try:
        return json.loads((settings.data_dir / "writer.json").read_text())
    except (OSError, ValueError):
        return {}


def describe(holder: dict) -> str:
    if not holder:
        return "another writer"
    on = f" on {holder['host']}" if "host" in holder else ""  # writers of the cluster form run on several machines
    return (f"the {holder.get('purpose', 'indexing')} run started at {holder.get('started_at', '?')} "
            f"by PID {holder.get('pid', '?')}{on}")


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


_held: dict[object, int] = {}  # locks this process holds (data dirs, databases), and how deeply


@contextmanager
def writer_lock(settings: Settings, purpose: str, notify: Callable[[str], None] = _stderr) -> Iterator[None]:
    """Hold the writer lock for ``purpose`` (e.g. "index-jsonl"), waiting visibly for the
    current holder up to ``settings.lock_timeout_s``: the data dir's file lock, or in the
    cluster form the database's advisory lock (``mitra.store.advisory_lock``). Re-entrant
    within a process (``ingest run`` holds it for the crawl and the indexing it calls)."""
    cluster = cluster_form(settings)
    key = settings.database_url.get_secret_value() if cluster else settings.data_dir.resolve()
    if _held.get(key):
        _held[key] += 1
        try:
            yield
        finally:
            _held[key] -= 1
        return
    who = {"pid": os.getpid(), "host": socket.gethostname(), "purpose": purpose,
           "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    hold = _advisory_lock if cluster else _file_lock
    with hold(settings, who, notify):
        _held[key] = 1
        try:
            yield
        finally:
            _held.pop(key, None)


def _busy(where: str, holder: dict, settings: Settings) -> WriterBusy:
    return WriterBusy(f"{where} is still being written by {describe(holder)} after "
                      f"{settings.lock_timeout_s:.0f} s: try again later, or raise MITRA_LOCK_TIMEOUT_S")


def _waiting(holder: dict, settings: Settings) -> str:
    return f"waiting for {describe(holder)} (up to {settings.lock_timeout_s:.0f} s)"


@contextmanager
def _file_lock(settings: Settings, who: dict, notify: Callable[[str], None]) -> Iterator[None]:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(settings.data_dir.resolve() / "writer.lock")
    try:
        lock.acquire(timeout=0)
    except Timeout:
        notify(_waiting(_holder(settings), settings))
        try:
            lock.acquire(timeout=settings.lock_timeout_s)
        except Timeout:
            raise _busy(str(settings.data_dir), _holder(settings), settings) from None
    try:
        (settings.data_dir / "writer.json").write_text(json.dumps(who))
        yield
    finally:
        (settings.data_dir / "writer.json").unlink(missing_ok=True)
        lock.release()


@contextmanager
def _advisory_lock(settings: Settings, who: dict, notify: Callable[[str], None]) -> Iterator[None]:
    from mitra.store.advisory_lock import advisory_lock, holder

    try:
        with advisory_lock(settings, who, lambda: notify(_waiting(holder(settings), settings))):
            yield
    except TimeoutError:
        where = settings.database_url.get_secret_value()
        raise _busy(f"the knowledge base in {make_url(where).render_as_string(hide_password=True)}",
                    holder(settings), settings) from None
