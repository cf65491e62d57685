"""The catalog as the SQLite-only code left it, adopted: a catalog already on disk keeps
its rows and gains the columns added after the first release; a new one is created.

Revision ID: catalog_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "catalog_0001"
down_revision = None
branch_labels = ("catalog",)
depends_on = None

DOCUMENT_COLUMNS = [
    sa.Column("analysis_id", sa.Text, primary_key=True),
    sa.Column("doc_id", sa.Text, primary_key=True),
    sa.Column("version", sa.Text, primary_key=True),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("source", sa.Text, nullable=False),
    sa.Column("sha256", sa.Text, nullable=False),
    sa.Column("pages", sa.Integer),
    sa.Column("n_chunks", sa.Integer, nullable=False),
    sa.Column("superseded", sa.Integer, nullable=False),
    sa.Column("indexed_at", sa.Text, nullable=False),
]
# Added after the first release (the old code's _ADDED_COLUMNS): catalogs on disk may lack them.
ADDED_COLUMNS = [
    sa.Column("format", sa.Text, nullable=False, server_default=""),
    sa.Column("coverage", sa.Float),
    sa.Column("dropped", sa.Text, nullable=False, server_default="{}"),
    sa.Column("kept", sa.Text, nullable=False, server_default=""),
]


def upgrade() -> None:
    present = set(sa.inspect(op.get_bind()).get_table_names())
    if "meta" not in present:
        op.create_table("meta", sa.Column("key", sa.Text, primary_key=True), sa.Column("value", sa.Text, nullable=False))
    if "analyses" not in present:
        op.create_table(
            "analyses",
            sa.Column("id", sa.Text, primary_key=True),
            sa.Column("title", sa.Text, nullable=False),
            sa.Column("abstract", sa.Text, nullable=False),
            sa.Column("experiment", sa.Text),
            sa.Column("metadata", sa.Text, nullable=False),
            sa.Column("collection", sa.Text, nullable=False),
            sa.Column("updated_at", sa.Text, nullable=False),
        )
    if "documents" not in present:
        op.create_table("documents", *DOCUMENT_COLUMNS, *ADDED_COLUMNS)
        return
    have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("documents")}
    for column in ADDED_COLUMNS:
        if column.name not in have:
            op.add_column("documents", column.copy())


def downgrade() -> None:
    for table in ("documents", "analyses", "meta"):
        op.drop_table(table)
