"""The critical-path bound of one run, derived from the pipeline's graph and the run's own trace,
so it follows the graph as nodes and model calls are added (it cannot go stale the way a
hand-counted "7 calls" did when fact_check added an eighth).

Each trace entry (one node execution) weighs its model calls x the fake model's latency, or, for
a node that called no model (facts, ingest, retrieve, the integrity check, the report), the time
it took. An entry depends on the latest entry of each of its graph predecessors that ended
before it started; the bound is the heaviest chain of such dependencies: what the run would take
with zero orchestration overhead and the model's latency alone.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from langgraph.graph.state import CompiledStateGraph

from core.contract import NodeTrace

TOLERANCE_S = 0.002  # the trace's clocks: an entry may "start" a hair before its input ended


@dataclass(frozen=True)
class Bound:
    seconds: float
    model_calls: int  # model calls on the heaviest chain
    path: tuple[str, ...]


def predecessors(graph: CompiledStateGraph[Any, Any, Any, Any]) -> dict[str, set[str]]:
    """Each node's possible predecessors (plain and conditional edges alike)."""
    preds: dict[str, set[str]] = defaultdict(set)
    for edge in graph.get_graph().edges:
        preds[edge.target].add(edge.source)
    return preds


def critical_path(
    graph: CompiledStateGraph[Any, Any, Any, Any],
    trace: list[NodeTrace],
    latency: float,
) -> Bound:
    preds = predecessors(graph)
    entries = sorted(trace, key=lambda t: t.started_at)
    done: list[tuple[NodeTrace, float, int, tuple[str, ...]]] = []
    for entry in entries:
        start = entry.started_at.timestamp()
        weight = entry.calls * latency if entry.calls else entry.duration_ms / 1000
        best: tuple[float, int, tuple[str, ...]] = (0.0, 0, ())
        for pred in preds.get(entry.node, ()):
            earlier = [
                d
                for d in done
                if d[0].node == pred and d[0].ended_at.timestamp() <= start + TOLERANCE_S
            ]
            if earlier:
                _, finish, calls, path = max(earlier, key=lambda d: d[0].ended_at)
                if finish > best[0]:
                    best = (finish, calls, path)
        done.append((entry, best[0] + weight, best[1] + entry.calls, (*best[2], entry.node)))
    _, seconds, calls, path = max(done, key=lambda d: d[1])
    return Bound(seconds=seconds, model_calls=calls, path=path)
