"""The store's tables (SQLAlchemy Core), the same on SQLite and PostgreSQL. Their history is
the Alembic migrations in `migrations/versions/`; a new column is a column here and a migration
there."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, TypeEngine


class UtcDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes: TIMESTAMPTZ on PostgreSQL, ISO-8601 text on SQLite (which
    is how SQLite data folders have always stored them)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "sqlite":
            return dialect.type_descriptor(sa.Text())
        return dialect.type_descriptor(sa.DateTime(timezone=True))

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.isoformat() if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return datetime.fromisoformat(value) if isinstance(value, str) else value


metadata = sa.MetaData()

runs = sa.Table(
    "runs",
    metadata,
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
    # a worker's hold on the run (scale-out); unused in the embedded mode
    sa.Column("lease_owner", sa.Text),
    sa.Column("lease_until", UtcDateTime),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    # the transcript's id (core.transcript.transcript_sha256): whose search index it shares
    sa.Column("transcript_sha", sa.Text),  # indexed: runs_transcript (migration 0004)
    # the LangGraph thread the run belongs to (runs started through the LangGraph routes)
    sa.Column("thread_id", sa.Text),  # indexed: runs_thread (migration 0005)
    # the evaluation whose report the run writes (runs started by POST /v1/evals)
    sa.Column("eval_id", sa.Text),  # indexed: runs_eval (migration 0006)
    # the call as the report names it (the user's company, ticker, period over what the call
    # facts read), JSON: lists name a run's call without reading its report (migration 0008)
    sa.Column("call_read", sa.Text),
)

# LangGraph threads: containers of runs for the LangGraph SDK's routes. `id` is the thread's
# id scoped by its key, `<owner>/<thread id>` (the thread's own id when it has no owner)
threads = sa.Table(
    "threads",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("owner", sa.Text),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("metadata", sa.Text, nullable=False, server_default="{}"),
)

# The event log of every run and every evaluation (`stream_id` is the run's or the eval's id):
# numbered per stream, replayed to SSE clients by sequence number.
event_log = sa.Table(
    "event_log",
    metadata,
    sa.Column("stream_id", sa.Text, primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("type", sa.Text, nullable=False),
    sa.Column("data", sa.Text, nullable=False),
)

evals = sa.Table(
    "evals",
    metadata,
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

# A company's calls (issue 40): every finished run's call and every call `earnings-desk ingest`
# read, with the rows its track record reads (`core.memory.CallRecord`, JSON). `company_key`
# links a company's calls (`core.memory.company_key`; None: unlinked). A second call of the
# same company and period supersedes the first for the track record (the newest `created_at`);
# both stay listed. The same transcript stored again under the same key replaces its row.
company_calls = sa.Table(
    "company_calls",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("owner", sa.Text),
    sa.Column("company_key", sa.Text),
    sa.Column("company", sa.Text),
    sa.Column("ticker", sa.Text),
    sa.Column("period", sa.Text, nullable=False),
    sa.Column("call_date", sa.Text),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("source", sa.Text, nullable=False),  # "run" or "ingest"
    sa.Column("run_id", sa.Text),  # the run that stored it (deleted with it)
    sa.Column("transcript_sha", sa.Text, nullable=False),
    sa.Column("record", sa.Text, nullable=False),
    sa.Index("company_calls_key", "owner", "company_key", "period"),
    sa.Index("company_calls_run", "run_id"),
)
