"""Run events, and the pure mapping from LangGraph stream chunks to them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from core.contract import NodeTrace


def _now() -> datetime:
    return datetime.now(UTC)


class RunStarted(BaseModel):
    type: Literal["run_started"] = "run_started"
    run_id: str
    pipeline: str
    resumed: bool = False
    at: datetime = Field(default_factory=_now)


class NodeStarted(BaseModel):
    type: Literal["node_started"] = "node_started"
    run_id: str
    node: str
    at: datetime = Field(default_factory=_now)


class NodeFinished(BaseModel):
    type: Literal["node_finished"] = "node_finished"
    run_id: str
    node: str
    duration_ms: float | None = None
    tokens: int = 0
    outcome: str = "ok"
    summary: str = ""
    at: datetime = Field(default_factory=_now)


class TokenDelta(BaseModel):
    """Streamed model text (only for runs started with stream_tokens; live, never replayed)."""

    type: Literal["token"] = "token"
    run_id: str
    node: str
    text: str


class RunError(BaseModel):
    type: Literal["error"] = "error"
    run_id: str
    node: str | None = None
    message: str
    at: datetime = Field(default_factory=_now)


class RunFinished(BaseModel):
    type: Literal["run_finished"] = "run_finished"
    run_id: str
    status: Literal["succeeded", "degraded", "failed", "cancelled"]
    reason: str | None = None
    report_url: str | None = None
    at: datetime = Field(default_factory=_now)


def map_chunk(run_id: str, mode: str, chunk: Any) -> list[BaseModel]:
    """LangGraph stream chunks -> node_started / node_finished / error (`tasks` mode) and token
    (`messages` mode) events."""
    if mode == "messages":
        message, meta = chunk
        text = getattr(message, "content", "")
        if not text:  # a structured answer streams as tool-call arguments
            calls = getattr(message, "tool_call_chunks", None) or []
            text = "".join(str(c.get("args") or "") for c in calls)
        node = meta.get("langgraph_node") if isinstance(meta, dict) else None
        if isinstance(text, str) and text and node:
            return [TokenDelta(run_id=run_id, node=str(node), text=text)]
        return []
    if mode != "tasks" or not isinstance(chunk, dict) or "name" not in chunk:
        return []
    node = str(chunk["name"])
    if "input" in chunk:
        return [NodeStarted(run_id=run_id, node=node)]
    if chunk.get("error") is not None:
        return [
            RunError(
                run_id=run_id,
                node=node,
                message=f"{type(chunk['error']).__name__}: {chunk['error']}",
            )
        ]
    result = chunk.get("result") or {}
    if not isinstance(result, dict):
        result = dict(result)
    traces = [t for t in result.get("trace", []) if isinstance(t, NodeTrace)]
    trace = traces[-1] if traces else None
    return [
        NodeFinished(
            run_id=run_id,
            node=node,
            duration_ms=trace.duration_ms if trace else None,
            tokens=(trace.prompt_tokens + trace.completion_tokens) if trace else 0,
            outcome=trace.outcome if trace else "ok",
            summary=trace.summary if trace else "",
        )
    ]
