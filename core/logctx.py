"""Which run and node the current task works for, for log lines (JSON logs carry both)."""

from __future__ import annotations

from contextvars import ContextVar

run_id_var: ContextVar[str | None] = ContextVar("edesk_run_id", default=None)
node_var: ContextVar[str | None] = ContextVar("edesk_node", default=None)
