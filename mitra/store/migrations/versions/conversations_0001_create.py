"""Conversations and their turns: a member's chat history, kept as it happens.

Revision ID: conversations_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "conversations_0001"
down_revision = None
branch_labels = ("conversations",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "conversations",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("owner", sa.Text, nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("created_at", sa.Text, nullable=False),
        sa.Column("updated_at", sa.Text, nullable=False),
    )
    op.create_index("ix_conversations_owner", "conversations", ["owner"])
    op.create_table(
        "turns",
        sa.Column("conversation_id", sa.Text, sa.ForeignKey("conversations.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("created_at", sa.Text, nullable=False),
        sa.Column("analysis_id", sa.Text, nullable=False),
        sa.Column("analysis_title", sa.Text, nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("standalone", sa.Text, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("citations", sa.Text, nullable=False),
        sa.Column("error", sa.Text),
    )


def downgrade() -> None:
    op.drop_table("turns")
    op.drop_table("conversations")
