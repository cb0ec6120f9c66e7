"""A company's calls (issue 40): `company_calls`, the call identity and the verified rows of every
finished run's call and of every ingested call, linked by company, for the track record.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from app.storage.tables import UtcDateTime

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "company_calls" in inspector.get_table_names():
        return
    op.create_table(
        "company_calls",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("owner", sa.Text),
        sa.Column("company_key", sa.Text),
        sa.Column("company", sa.Text),
        sa.Column("ticker", sa.Text),
        sa.Column("period", sa.Text, nullable=False),
        sa.Column("call_date", sa.Text),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("run_id", sa.Text),
        sa.Column("transcript_sha", sa.Text, nullable=False),
        sa.Column("record", sa.Text, nullable=False),
    )
    op.create_index("company_calls_key", "company_calls", ["owner", "company_key", "period"])
    op.create_index("company_calls_run", "company_calls", ["run_id"])
