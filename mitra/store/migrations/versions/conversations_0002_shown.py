"""Turns keep what the member was shown with the answer (passages, the checks' notes, a
quoted passage sentence), so a reopened conversation shows it as it was.

Revision ID: conversations_0002
"""

import sqlalchemy as sa
from alembic import op

revision = "conversations_0002"
down_revision = "conversations_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("turns") as batch:
        batch.add_column(sa.Column("shown", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("turns") as batch:
        batch.drop_column("shown")
