"""Each document's coverage by kind of block (body, table, equation, caption, heading):
which of its blocks lost text when it falls below min_coverage. Documents indexed
before have none ("{}") until they are indexed again.

Revision ID: catalog_0002
"""

import sqlalchemy as sa
from alembic import op

revision = "catalog_0002"
down_revision = "catalog_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("documents", sa.Column("coverage_by_kind", sa.Text, nullable=False, server_default="{}"))


def downgrade() -> None:
    op.drop_column("documents", "coverage_by_kind")
