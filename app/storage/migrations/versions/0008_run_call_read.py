"""Each run's call as its report names it (`call_read`: the user's company, ticker and period over
what the call facts read), so the History and `earnings-desk runs` name a call without reading
its report; filled in for the finished runs already stored.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    if "call_read" not in {c["name"] for c in inspector.get_columns("runs")}:
        with op.batch_alter_table("runs") as batch:
            batch.add_column(sa.Column("call_read", sa.Text))
    runs = sa.table("runs", sa.column("id", sa.Text), sa.column("report", sa.Text),
                    sa.column("call_read", sa.Text))  # fmt: skip
    todo = bind.execute(
        sa.select(runs.c.id).where(runs.c.report.is_not(None), runs.c.call_read.is_(None))
    ).scalars()
    for run_id in list(todo):
        raw = bind.execute(sa.select(runs.c.report).where(runs.c.id == run_id)).scalar_one()
        report = json.loads(raw)
        given = report.get("call") or {}
        read = (report.get("facts") or {}).get("call") or {}
        named = {k: given.get(k) or read.get(k) for k in ("company", "ticker", "period")}
        bind.execute(runs.update().where(runs.c.id == run_id).values(call_read=json.dumps(named)))
