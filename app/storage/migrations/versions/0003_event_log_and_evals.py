"""One event log for runs and evaluations (`event_log`, keyed by the stream's id; the rows of
`events` move there), durable evaluation jobs (`evals`), and the end of the hand-written
migration table (`edesk_migrations`) that Alembic replaces.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from app.storage.tables import UtcDateTime

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    op.create_table(
        "event_log",
        sa.Column("stream_id", sa.Text, primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("type", sa.Text, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
    )
    if "events" in have:
        op.execute(
            "INSERT INTO event_log (stream_id, seq, type, data) "
            "SELECT run_id, seq, type, data FROM events"
        )
        op.drop_table("events")
    op.create_table(
        "evals",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("owner", sa.Text),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("started_at", UtcDateTime),
        sa.Column("finished_at", UtcDateTime),
        sa.Column("spec", sa.Text, nullable=False),
        sa.Column("done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("total", sa.Integer, nullable=False, server_default="0"),
        sa.Column("error", sa.Text),
        sa.Column("result", sa.Text),
        sa.Column("lease_owner", sa.Text),
        sa.Column("lease_until", UtcDateTime),
    )
    if "edesk_migrations" in have:
        op.drop_table("edesk_migrations")
