"""The writer lock of the cluster form: a PostgreSQL session advisory lock, held on one
connection for the whole run, so writers on different machines exclude each other and a
killed writer's lock goes with its connection. Who holds it is the catalog's ``writer``
entry (``meta``), as ``writer.json`` is beside the file lock."""

from __future__ import annotations

import json
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from sqlalchemy import Connection, delete, func, select

from mitra.core.settings import Settings
from mitra.store import schema
from mitra.store.state import database, upsert

# pg_advisory_lock's key: any constant the rest of the database does not use.
_KEY = 0x6D69747261  # "mitra"
_POLL_S = 0.5


def _try(connection: Connection) -> bool:
    return bool(connection.scalar(select(func.pg_try_advisory_lock(_KEY))))


def holder(settings: Settings) -> dict:
    with database(settings, "catalog").connect() as db:
        value = db.scalar(select(schema.meta.c.value).where(schema.meta.c.key == "writer"))
    try:
        return json.loads(value) if value else {}
    except ValueError:
        return {}


@contextmanager
def advisory_lock(settings: Settings, who: dict, waiting: Callable[[], None]) -> Iterator[None]:
    """Hold the lock, recording ``who`` holds it; when another has it, call ``waiting()`` and
    wait up to ``settings.lock_timeout_s`` (then ``TimeoutError``)."""
    engine = database(settings, "catalog")
    # Autocommit: a session lock needs no transaction, and one left open for a whole
    # indexing run would hold back vacuum.
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as db:
        if not _try(db):
            waiting()
            deadline = time.monotonic() + settings.lock_timeout_s
            while not _try(db):
                if time.monotonic() > deadline:
                    raise TimeoutError
                time.sleep(_POLL_S)
        try:
            upsert(db, schema.meta, {"key": "writer", "value": json.dumps(who)}, ["key"])
            yield
        finally:
            db.execute(delete(schema.meta).where(schema.meta.c.key == "writer"))
            db.scalar(select(func.pg_advisory_unlock(_KEY)))
