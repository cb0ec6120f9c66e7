"""Workers' leases on runs (scale-out): lease owner, expiry and attempts, on both engines.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from app.storage.tables import UtcDateTime

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

UNFINISHED = sa.text("status IN ('queued', 'running')")


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    columns = {c["name"] for c in inspector.get_columns("runs")}
    with op.batch_alter_table("runs") as batch:
        if "lease_owner" not in columns:
            batch.add_column(sa.Column("lease_owner", sa.Text))
        if "lease_until" not in columns:
            batch.add_column(sa.Column("lease_until", UtcDateTime))
        if "attempts" not in columns:
            batch.add_column(sa.Column("attempts", sa.Integer, nullable=False, server_default="0"))
    if "runs_unfinished" not in {i["name"] for i in inspector.get_indexes("runs")}:
        op.create_index(
            "runs_unfinished",
            "runs",
            ["status"],
            postgresql_where=UNFINISHED,
            sqlite_where=UNFINISHED,
        )
