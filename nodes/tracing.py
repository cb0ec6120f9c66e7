"""`traced`: wrap a node so it writes its NodeTrace (timing, models, tokens, retries, outcome)."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from langgraph.runtime import Runtime

from core.context import RunContext
from core.contract import NodeTrace, clip
from core.cpu import CpuMeter, cpu_meter, metered
from core.llm.chat import CallStats, current_stats
from core.llm.decoding import figure_sources
from core.logctx import node_var
from core.provenance import grounding_sources
from core.telemetry import tracer
from core.transcript import Transcript

StateT = TypeVar("StateT", contravariant=True)
log = logging.getLogger(__name__)


class NodeFn(Protocol[StateT]):
    """A node: `async (state, runtime) -> update` (matches LangGraph's runtime node protocol)."""

    async def __call__(self, state: StateT, runtime: Runtime[RunContext]) -> dict[str, Any]: ...


Summary = Callable[[dict[str, Any]], str]
_BOOKKEEPING = frozenset({"notes", "trace", "failures", "extras"})


def describe(update: dict[str, Any]) -> str:
    """One line on what a node produced: the first output that summarises itself (a model
    with `summary()`, or a list or dict of them: the last), else the node's last note."""
    for key, value in update.items():
        if key in _BOOKKEEPING:
            continue
        items = list(value.values()) if isinstance(value, dict) else value
        if isinstance(items, list) and items and hasattr(items[-1], "summary"):
            return "; ".join(str(v.summary()) for v in items[-3:])
        if hasattr(value, "summary") and callable(value.summary):
            return str(value.summary())
    notes = update.get("notes") or []
    return clip(str(notes[-1])) if notes else ""


def _sources(state: Any) -> list[str] | None:
    """What the node's figures may rest on: its state's transcript, financials and prices."""
    transcript = state.get("transcript") if isinstance(state, dict) else None
    if not isinstance(transcript, Transcript):
        return None
    facts = state.get("facts")
    tone = getattr(facts, "tone", None)
    return grounding_sources(
        transcript, state.get("financials"), state.get("prices"), tone
    ).as_texts()


def traced(name: str, summary: Summary = describe) -> Callable[[NodeFn[StateT]], NodeFn[StateT]]:
    """Record the node's trace (with `summary` of its update for progress displays); outcome
    is `degraded` when the node reports failures. Cuts made to fit a prompt to its model's
    window become notes naming this node and the share kept."""

    def decorate(fn: NodeFn[StateT]) -> NodeFn[StateT]:
        @functools.wraps(fn)
        async def node(state: StateT, runtime: Runtime[RunContext]) -> dict[str, Any]:
            cpu0 = time.thread_time()
            runtime.context.check(name)
            stats, meter = CallStats(), CpuMeter()
            token = current_stats.set(stats)
            node_token = node_var.set(name)
            meter_token = cpu_meter.set(meter)
            sources = figure_sources(functools.partial(_sources, state))  # read if asked
            started = datetime.now(UTC)
            t0 = time.perf_counter()
            with tracer().start_as_current_span(f"node {name}") as span:
                try:
                    with sources:
                        meter.add(time.thread_time() - cpu0)
                        update = await metered(fn(state, runtime), meter)
                        cpu0 = time.thread_time()
                except Exception as exc:
                    span.set_attribute("edesk.outcome", "error")
                    span.record_exception(exc)
                    raise
                finally:
                    current_stats.reset(token)
                    node_var.reset(node_token)
                    cpu_meter.reset(meter_token)
                    span.set_attributes({
                        "edesk.node": name, "edesk.models": ", ".join(stats.models),
                        "edesk.calls": stats.calls, "edesk.prompt_tokens": stats.prompt_tokens,
                        "edesk.completion_tokens": stats.completion_tokens,
                        "edesk.retries": stats.retries,
                    })  # fmt: skip
                span.set_attribute("edesk.outcome", "degraded" if update.get("failures") else "ok")
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
                summary=summary(update),
            )
            meter.add(time.thread_time() - cpu0)
            trace.cpu_ms = round(meter.seconds * 1000, 3)
            log.info(
                "node %s %s in %.0f ms (%d model call(s), %d tokens)", name, trace.outcome,
                trace.duration_ms, trace.calls, trace.prompt_tokens + trace.completion_tokens,
                extra={"node": name},
            )  # fmt: skip
            runtime.context.control.spend(stats.prompt_tokens + stats.completion_tokens)
            if stats.cuts:  # what a prompt lost to fit its model's window, for the report's notes
                cuts = [c.note(name) for c in stats.cuts]
                update = {**update, "notes": [*update.get("notes", []), *cuts]}
            return {**update, "trace": [trace]}

        return node

    return decorate
