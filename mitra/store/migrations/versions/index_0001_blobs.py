"""Index blobs: each generation's BM25 and dense index directories, in PostgreSQL only
(the cluster form; the embedded form keeps them in the data dir).

Revision ID: index_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "index_0001"
down_revision = None
branch_labels = ("index",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "index_blobs",
        sa.Column("kind", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("stamp", sa.Text, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column("created_at", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("index_blobs")
