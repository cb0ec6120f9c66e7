"""LangGraph threads (the LangGraph SDK's run containers, `/threads/...` routes): a `threads`
table and each run's `thread_id`.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from app.storage.tables import UtcDateTime

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "threads" not in inspector.get_table_names():
        op.create_table(
            "threads",
            sa.Column("id", sa.Text, primary_key=True),
            sa.Column("owner", sa.Text),
            sa.Column("created_at", UtcDateTime, nullable=False),
            sa.Column("metadata", sa.Text, nullable=False, server_default="{}"),
        )
    if "thread_id" not in {c["name"] for c in inspector.get_columns("runs")}:
        with op.batch_alter_table("runs") as batch:
            batch.add_column(sa.Column("thread_id", sa.Text))
    if "runs_thread" not in {i["name"] for i in inspector.get_indexes("runs")}:
        op.create_index("runs_thread", "runs", ["thread_id", "created_at"])
