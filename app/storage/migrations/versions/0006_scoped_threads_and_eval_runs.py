"""Thread ids scoped by key (two keys may each have a thread `t1`: the stored id is
`<owner>/<thread id>` when the thread has an owner), and each run's `eval_id` (the evaluation
whose report it is), so an evaluation's runs count once in the per-key quotas.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "eval_id" not in {c["name"] for c in inspector.get_columns("runs")}:
        with op.batch_alter_table("runs") as batch:
            batch.add_column(sa.Column("eval_id", sa.Text))
    if "runs_eval" not in {i["name"] for i in inspector.get_indexes("runs")}:
        op.create_index("runs_eval", "runs", ["eval_id"])
    threads = sa.table("threads", sa.column("id", sa.Text), sa.column("owner", sa.Text))
    op.execute(
        threads.update()
        .where(threads.c.owner.is_not(None), sa.not_(threads.c.id.contains("/")))
        .values(id=threads.c.owner + "/" + threads.c.id)
    )
