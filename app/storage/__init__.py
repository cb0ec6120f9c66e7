"""Storage: runs, evaluations and their event logs (one SQL layer for SQLite and PostgreSQL,
schema by Alembic migrations), LangGraph checkpoints, and what counts as a storage outage."""

from app.storage.records import (
    TERMINAL,
    EvalRecord,
    EvalSpec,
    RunInput,
    RunRecord,
    RunState,
    StoredEvent,
    ThreadRecord,
    now,
)
from app.storage.store import Store

__all__ = [
    "TERMINAL",
    "EvalRecord",
    "EvalSpec",
    "RunInput",
    "RunRecord",
    "RunState",
    "Store",
    "StoredEvent",
    "ThreadRecord",
    "now",
]
