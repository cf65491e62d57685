"""One writer at a time on a data dir; readers never wait.

Every command that writes the stores (``index-jsonl``, ``ingest pdf``, ``ingest run``,
``adapt``, the Ingestion page) holds ``<data_dir>/writer.lock`` (``filelock``: an
``flock`` the kernel releases when the holder dies, so a lock left by a killed run
is taken over at once). Beside it ``writer.json`` says who holds it, so a second
writer can say what it waits for: "waiting for the indexing run started at … by PID
…", up to ``settings.lock_timeout_s``, then one line and exit. Garbage collection
runs only under this lock, so it never deletes what a live writer is building.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

from filelock import FileLock, Timeout

from mitra.core.errors import MitraError
from mitra.core.settings import Settings


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
    return f"the {holder.get('purpose', 'indexing')} run started at {holder.get('started_at', '?')} by PID {holder.get('pid', '?')}"


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


_held: dict[Path, int] = {}  # data dirs this process holds the lock of, and how deeply


@contextmanager
def writer_lock(settings: Settings, purpose: str, notify: Callable[[str], None] = _stderr) -> Iterator[None]:
    """Hold the data dir's writer lock for ``purpose`` (e.g. "index-jsonl"), waiting
    visibly for the current holder up to ``settings.lock_timeout_s``. Re-entrant within
    a process (``ingest run`` holds it for the crawl and the indexing it calls)."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    key = settings.data_dir.resolve()
    if _held.get(key):
        _held[key] += 1
        try:
            yield
        finally:
            _held[key] -= 1
        return
    lock = FileLock(key / "writer.lock")
    try:
        lock.acquire(timeout=0)
    except Timeout:
        notify(f"waiting for {describe(_holder(settings))} (up to {settings.lock_timeout_s:.0f} s)")
        try:
            lock.acquire(timeout=settings.lock_timeout_s)
        except Timeout:
            raise WriterBusy(
                f"{settings.data_dir} is still being written by {describe(_holder(settings))} after "
                f"{settings.lock_timeout_s:.0f} s: try again later, or raise MITRA_LOCK_TIMEOUT_S"
            ) from None
    _held[key] = 1
    try:
        (key / "writer.json").write_text(json.dumps({
            "pid": os.getpid(), "purpose": purpose,
            "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }))
        yield
    finally:
        _held.pop(key, None)
        (key / "writer.json").unlink(missing_ok=True)
        lock.release()
