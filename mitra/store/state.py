"""Where the shared state lives: one SQLAlchemy engine per database, migrated on open.

Two back ends, one set of tables (``mitra.store.schema``):

- embedded (the default): SQLite files in the data dir, one per concern as before
  (``catalog.sqlite``, ``feedback.sqlite``, ``conversations.sqlite``); users, the access
  policy and the audit trail stay files (``mitra.access``, ``mitra.audit``);
- PostgreSQL, when ``MITRA_DATABASE_URL`` is set: every table in that one database, so
  replicas that share no disk share the state.

Each concern is an Alembic branch (``mitra.store.migrations``): a SQLite file is upgraded
to its own branch's head, PostgreSQL to every head. Opening an engine upgrades its
database; ``mitra`` and the app need no separate migration step. Engines are shared by
every store of a process that opens the same database, and closed with the last of them.
"""

from __future__ import annotations

import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal, Self
from weakref import WeakKeyDictionary, WeakValueDictionary

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, Table, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, make_url

from mitra.core.errors import MitraError

if TYPE_CHECKING:
    from mitra.core.settings import Settings

Branch = Literal["catalog", "feedback", "conversations", "members", "index", "tokens"]
_MIGRATIONS = Path(__file__).with_name("migrations")
_engines: WeakValueDictionary[str, Engine] = WeakValueDictionary()  # by URL
_upgraded: WeakKeyDictionary[Engine, set[str]] = WeakKeyDictionary()  # the revisions each engine was upgraded to
_opening = threading.Lock()


class DatabaseError(MitraError):
    """The shared-state database cannot be opened or upgraded: said in one line."""


def uses_database(settings: "Settings") -> bool:
    """Whether the shared state is in PostgreSQL (else SQLite and files in the data dir)."""
    return settings.database_url is not None


def cluster_form(settings: "Settings") -> bool:
    """Replicas sharing no disk: the state in PostgreSQL and the vectors in a Chroma server, so
    the indexes (``mitra.store.index_files``) and the writer lock (``mitra.store.lock``) move
    to PostgreSQL too."""
    return settings.database_url is not None and settings.chroma_host is not None


def sqlite_path(settings: "Settings", branch: Branch) -> Path:
    paths = {"catalog": settings.catalog_path, "feedback": settings.feedback_path,
             "conversations": settings.conversations_path, "tokens": settings.tokens_path}
    if branch not in paths:
        raise DatabaseError(f"{branch} is kept in files when MITRA_DATABASE_URL is unset")
    return paths[branch]


def database(settings: "Settings", branch: Branch) -> Engine:
    """The engine holding ``branch``'s tables, upgraded to the newest schema."""
    if settings.database_url is not None:
        return open_engine(settings.database_url.get_secret_value(), "heads")
    return open_engine(sqlite_path(settings, branch), f"{branch}@head")


class SqlStore:
    """The tables of one ``branch`` in ``engine`` (or the SQLite file at a path, created
    or upgraded on open); ``open`` finds them where the settings keep that branch."""

    branch: ClassVar[Branch]

    def __init__(self, engine: Engine | Path):
        self.engine = engine if isinstance(engine, Engine) else open_engine(engine, f"{self.branch}@head")

    @classmethod
    def open(cls, settings: "Settings") -> Self:
        return cls(database(settings, cls.branch))


def open_engine(target: str | Path, revision: str) -> Engine:
    """The engine of ``target`` (a database URL, or a SQLite file), upgraded to ``revision``."""
    if isinstance(target, Path):
        target.parent.mkdir(parents=True, exist_ok=True)
        url = f"sqlite:///{target.absolute()}"
    else:
        url = target
    with _opening:
        engine = _engines.get(url)
        if engine is None:
            engine = _engines[url] = _engine(url)
        done = _upgraded.setdefault(engine, set())
        if revision not in done:
            upgrade(engine, revision)
            done.add(revision)
    return engine


def _engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.drivername == "postgresql":  # psycopg 3 is the installed driver, not SQLAlchemy's default psycopg2
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() == "sqlite":
        # Pooled connections, shared by Streamlit's session threads (a catalog read took 2x as
        # long when each one connected afresh); a writer holding the file waits up to 30 s.
        engine = create_engine(parsed, connect_args={"timeout": 30})
        event.listen(engine, "connect", _sqlite_foreign_keys)
        return engine
    if parsed.get_backend_name() != "postgresql":
        raise DatabaseError(f"MITRA_DATABASE_URL must be a postgresql:// URL, not {parsed.get_backend_name()}://")
    # pre_ping: a connection the server dropped (a restart, a failover) is replaced on checkout
    # instead of failing the request that drew it.
    return create_engine(parsed, pool_pre_ping=True, pool_size=5, max_overflow=10)


def _sqlite_foreign_keys(connection, _record) -> None:
    connection.execute("PRAGMA foreign_keys = ON")  # a conversation's turns go with it


def upgrade(engine: Engine, revision: str) -> None:
    """Runs the Alembic migrations up to ``revision`` (``catalog@head``, ``heads``)."""
    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
    except Exception as error:
        where = engine.url.render_as_string(hide_password=True)
        raise DatabaseError(f"cannot open the database {where}: {type(error).__name__}: "
                            f"{str(error).splitlines()[0] if str(error) else ''}") from error


def now() -> str:
    """The time as the tables keep it: ISO-8601 UTC, to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def upsert(connection: Connection, table: Table, values: dict, keys: list[str], changes: dict | None = None) -> None:
    """Insert ``values``, or update the row with the same ``keys``: to ``values``, or by
    ``changes`` where given (SQLite and PostgreSQL spell it alike)."""
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(table).values(**values)
    connection.execute(statement.on_conflict_do_update(
        index_elements=keys, set_=changes or {k: statement.excluded[k] for k in values if k not in keys}))


def copy_rows(source: Engine, target: Engine, table: Table, identity: list[str]) -> tuple[int, int]:
    """Copy ``table``'s rows from ``source`` to ``target``, leaving out those ``target``
    already holds with the same ``identity`` columns (so a second copy adds nothing);
    columns outside ``identity`` that are the table's own counter (an autoincrement id)
    are given by ``target``. Returns (copied, already there)."""
    counter = [c.name for c in table.primary_key.columns if c.autoincrement is True and c.name not in identity]
    with source.connect() as db:
        rows = [dict(r) for r in db.execute(table.select()).mappings()]
    key = lambda row: tuple(row[c] for c in identity)  # noqa: E731
    with target.begin() as db:
        present = {key(r) for r in db.execute(table.select()).mappings()}
        new = [{k: v for k, v in r.items() if k not in counter} for r in rows if key(r) not in present]
        if new:
            db.execute(table.insert(), new)
    return len(new), len(rows) - len(new)
