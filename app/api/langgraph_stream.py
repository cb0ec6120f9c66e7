"""A run's event log as LangGraph stream parts (`routes_langgraph`'s streams)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from app.api.langgraph_models import STATUS, Mode, values_of
from app.service.runs import RunManager
from app.storage import RunRecord


async def lg_stream(
    manager: RunManager,
    record: RunRecord,
    modes: list[Mode],
    *,
    after: int,
    cancel_on_disconnect: bool,
) -> AsyncIterator[dict[str, Any]]:
    """The run's event log (replayed after `after`, then live) in LangGraph's stream parts;
    every part carries the id of the event it came from, so Last-Event-ID resumes there."""
    run_id = record.id
    wanted: set[str] = set(modes)
    tokens = bool({"messages", "messages-tuple"} & wanted)
    yield {"event": "metadata", "data": json.dumps({"run_id": run_id, "attempt": 1})}
    finished_nodes = [
        e.data["node"]
        for e in (await manager.store.events(run_id) if after and "values" in wanted else [])
        if e.type == "node_finished" and e.seq <= after
    ]
    ended = False
    try:
        async for message in manager.stream(run_id, after=after, tokens=tokens):
            event, event_id, data = message["event"], message["id"], json.loads(message["data"])
            for part, payload in _parts(event, data, wanted, finished_nodes):
                yield {"id": event_id, "event": part, "data": json.dumps(payload)}
            if event == "run_finished":
                ended = True
                final = await manager.store.get(run_id)
                if final is None:
                    return
                if final.status == "failed":
                    error = {"error": final.reason or "error", "message": final.error or ""}
                    yield {"id": event_id, "event": "error", "data": json.dumps(error)}
                    return
                if "values" in wanted:
                    yield {"id": event_id, "event": "values", "data": json.dumps(values_of(final))}
                end = {"run_id": run_id, "status": STATUS[final.status]}
                yield {"id": event_id, "event": "end", "data": json.dumps(end)}
                return
    finally:
        if cancel_on_disconnect and not ended:
            await asyncio.shield(manager.cancel(run_id))


def _parts(
    event: str, data: dict[str, Any], wanted: set[str], finished_nodes: list[str]
) -> list[tuple[str, Any]]:
    """One of our events as LangGraph stream parts, in the modes wanted."""
    if event == "token":
        if not {"messages", "messages-tuple"} & wanted:
            return []
        chunk = {"type": "AIMessageChunk", "content": data["text"], "id": data["node"]}
        meta = {"langgraph_node": data["node"], "run_id": data["run_id"]}
        return [("messages", [chunk, meta])]
    parts: list[tuple[str, Any]] = []
    if "custom" in wanted:
        parts.append(("custom", data))
    if event == "node_finished":
        node = data["node"]
        finished_nodes.append(node)
        if "updates" in wanted:
            keys = ("outcome", "summary", "duration_ms", "tokens")
            parts.append(("updates", {node: {k: data.get(k) for k in keys}}))
        if "values" in wanted:
            parts.append(("values", {"status": "running", "finished_nodes": finished_nodes[:]}))
    return parts
