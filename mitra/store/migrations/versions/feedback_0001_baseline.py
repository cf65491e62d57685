"""Feedback as the SQLite-only code created it, adopted where it is already on disk.

Revision ID: feedback_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "feedback_0001"
down_revision = None
branch_labels = ("feedback",)
depends_on = None


def upgrade() -> None:
    if "feedback" in sa.inspect(op.get_bind()).get_table_names():
        return
    op.create_table(
        "feedback",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("created_at", sa.Text, nullable=False),
        sa.Column("analysis_id", sa.Text, nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("standalone", sa.Text, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("cited_chunk_ids", sa.Text, nullable=False),
        sa.Column("rating", sa.Integer, sa.CheckConstraint("rating IN (-1, 1)"), nullable=False),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sqlite_autoincrement=True,
    )


def downgrade() -> None:
    op.drop_table("feedback")
