"""Users, the access policy and the audit trail, in PostgreSQL (the embedded form keeps
them in files).

Revision ID: members_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "members_0001"
down_revision = None
branch_labels = ("members",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("hash", sa.Text, nullable=False),
        sa.Column("groups", sa.Text, nullable=False),
        sa.Column("admin", sa.Boolean, nullable=False),
    )
    op.create_table(
        "access_policy",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("updated_at", sa.Text, nullable=False),
    )
    op.create_table(
        "audit",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("ts", sa.DateTime(timezone=True), nullable=False),
        sa.Column("event", sa.Text, nullable=False),
        sa.Column("user", sa.Text, nullable=False),
        sa.Column("analysis", sa.Text),
        sa.Column("record", sa.Text, nullable=False),
    )
    op.create_index("ix_audit_ts", "audit", ["ts"])
    op.create_index("ix_audit_user", "audit", ["user"])


def downgrade() -> None:
    for table in ("audit", "access_policy", "users"):
        op.drop_table(table)
