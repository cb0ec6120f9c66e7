"""`traced`: wrap a node so it writes its NodeTrace (timing, models, tokens, retries, outcome)."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from langgraph.runtime import Runtime

from core.context import RunContext
from core.contract import NodeTrace
from core.llm import CallStats, current_stats

StateT = TypeVar("StateT", contravariant=True)


class NodeFn(Protocol[StateT]):
    """A node: `async (state, runtime) -> update` (matches LangGraph's runtime node protocol)."""

    async def __call__(self, state: StateT, runtime: Runtime[RunContext]) -> dict[str, Any]: ...


def traced(name: str) -> Callable[[NodeFn[StateT]], NodeFn[StateT]]:
    """Record the node's trace; outcome is `degraded` when the node reports failures."""

    def decorate(fn: NodeFn[StateT]) -> NodeFn[StateT]:
        @functools.wraps(fn)
        async def node(state: StateT, runtime: Runtime[RunContext]) -> dict[str, Any]:
            runtime.context.control.check(name)
            stats = CallStats()
            token = current_stats.set(stats)
            started = datetime.now(UTC)
            t0 = time.perf_counter()
            try:
                update = await fn(state, runtime)
            finally:
                current_stats.reset(token)
            trace = NodeTrace(
                node=name,
                started_at=started,
                ended_at=datetime.now(UTC),
                duration_ms=round((time.perf_counter() - t0) * 1000, 3),
                models=stats.models,
                calls=stats.calls,
                cached_calls=stats.cached_calls,
                prompt_tokens=stats.prompt_tokens,
                completion_tokens=stats.completion_tokens,
                retries=stats.retries,
                usage=stats.usage,
                outcome="degraded" if update.get("failures") else "ok",
                detail="; ".join(f.reason for f in update.get("failures", [])) or None,
            )
            runtime.context.control.spend(stats.prompt_tokens + stats.completion_tokens)
            return {**update, "trace": [trace]}

        return node

    return decorate
