"""Runs and their event log, as the first releases created them (kept when present: a data
folder made before migrations existed upgrades in place).

Revision ID: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from app.storage.tables import UtcDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "runs" not in have:
        op.create_table(
            "runs",
            sa.Column("id", sa.Text, primary_key=True),
            sa.Column("pipeline", sa.Text, nullable=False),
            sa.Column("status", sa.Text, nullable=False),
            sa.Column("owner", sa.Text),
            sa.Column("created_at", UtcDateTime, nullable=False),
            sa.Column("started_at", UtcDateTime),
            sa.Column("finished_at", UtcDateTime),
            sa.Column("input", sa.Text, nullable=False),
            sa.Column("report", sa.Text),
            sa.Column("error", sa.Text),
            sa.Column("failed_node", sa.Text),
            sa.Column("reason", sa.Text),
            sa.Column("prompt_tokens", sa.Integer, nullable=False, server_default="0"),
            sa.Column("completion_tokens", sa.Integer, nullable=False, server_default="0"),
            sa.Column("cost", sa.Float),
            sa.Column("cancel_requested", sa.Boolean, nullable=False, server_default=sa.false()),
        )
        op.create_index("runs_by_created", "runs", [sa.text("created_at DESC")])
    if "events" not in have:
        op.create_table(
            "events",
            sa.Column("run_id", sa.Text, primary_key=True),
            sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
            sa.Column("type", sa.Text, nullable=False),
            sa.Column("data", sa.Text, nullable=False),
        )
