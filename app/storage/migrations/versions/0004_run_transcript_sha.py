"""The run's transcript id (`transcript_sha`, as the report's `transcript_sha256` gives it), so
deleting a run can tell whether another run still uses its transcript's search index; filled in
for the runs already stored.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

from core.transcript import transcript_sha256

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    if "transcript_sha" not in {c["name"] for c in inspector.get_columns("runs")}:
        with op.batch_alter_table("runs") as batch:
            batch.add_column(sa.Column("transcript_sha", sa.Text))
    if "runs_transcript" not in {i["name"] for i in inspector.get_indexes("runs")}:
        op.create_index("runs_transcript", "runs", ["transcript_sha"])
    runs = sa.table(
        "runs", sa.column("id", sa.Text), sa.column("input", sa.Text),
        sa.column("transcript_sha", sa.Text),
    )  # fmt: skip
    todo = bind.execute(sa.select(runs.c.id).where(runs.c.transcript_sha.is_(None))).scalars()
    for run_id in list(todo):
        raw = bind.execute(sa.select(runs.c.input).where(runs.c.id == run_id)).scalar_one()
        sha = transcript_sha256(str(json.loads(raw).get("transcript", "")))
        bind.execute(runs.update().where(runs.c.id == run_id).values(transcript_sha=sha))
