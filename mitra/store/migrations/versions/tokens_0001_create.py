"""Members' API tokens for the MCP server (``mitra users token``), kept hashed.

Revision ID: tokens_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "tokens_0001"
down_revision = None
branch_labels = ("tokens",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("user", sa.Text, nullable=False),
        sa.Column("label", sa.Text, nullable=False),
        sa.Column("hash", sa.Text, nullable=False, unique=True),
        sa.Column("created_at", sa.Text, nullable=False),
        sa.Column("revoked_at", sa.Text),
    )
    op.create_index("ix_api_tokens_user", "api_tokens", ["user"])


def downgrade() -> None:
    op.drop_table("api_tokens")
