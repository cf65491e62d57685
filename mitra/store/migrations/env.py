"""Alembic's entry point: migrations run on the connection ``mitra.store.state.upgrade``
hands over (there is no alembic.ini: ``mitra`` and the app upgrade on open)."""

from alembic import context
from sqlalchemy import text

from mitra.store.schema import metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters a table by copying it
)
with context.begin_transaction():
    if connection.dialect.name == "postgresql":
        # Replicas starting together: one upgrades, the others wait and then find it done.
        connection.execute(text("SELECT pg_advisory_xact_lock(hashtext('mitra.migrations'))"))
    context.run_migrations()
