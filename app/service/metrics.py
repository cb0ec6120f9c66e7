"""Prometheus metrics (`GET /metrics`, prometheus-client).

Runs started and finished by pipeline and status, node durations (histogram), tokens by node
(each node asks one role, or a few of the same kind) and kind, model retries, queue depth and
open SSE streams. The metrics are created on first use, never at import. With several processes
(uvicorn workers, or API and workers on one host), set prometheus-client's standard
`PROMETHEUS_MULTIPROC_DIR` to a shared empty folder: every process writes there and `/metrics`
sums them (its gauges as live sums)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from core.contract import NodeTrace

NODE_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)


@dataclass(frozen=True)
class Metrics:
    registry: CollectorRegistry | None
    runs_started: Counter
    runs_finished: Counter
    node_seconds: Histogram
    tokens: Counter
    retries: Counter
    queue_depth: Gauge
    sse_open: Gauge


@lru_cache(maxsize=1)
def metrics() -> Metrics:
    """The process's metrics (the default registry, so multiprocess mode can collect them)."""
    return Metrics(
        registry=None,
        runs_started=Counter("edesk_runs_started", "Runs started", ["pipeline", "resumed"]),
        runs_finished=Counter("edesk_runs_finished", "Runs finished", ["pipeline", "status"]),
        node_seconds=Histogram(
            "edesk_node_duration_seconds",
            "Node duration",
            ["pipeline", "node"],
            buckets=NODE_BUCKETS,
        ),  # fmt: skip
        tokens=Counter("edesk_tokens", "Model tokens by node", ["pipeline", "node", "kind"]),
        retries=Counter("edesk_model_retries", "Model call retries", ["pipeline", "node"]),
        queue_depth=Gauge(
            "edesk_queue_depth", "Runs waiting to start", multiprocess_mode="livemax"
        ),
        sse_open=Gauge("edesk_sse_streams_open", "Open SSE streams", multiprocess_mode="livesum"),
    )


def run_started(pipeline: str, resumed: bool) -> None:
    metrics().runs_started.labels(pipeline, str(resumed).lower()).inc()


def run_finished(pipeline: str, status: str, trace: Sequence[NodeTrace]) -> None:
    m = metrics()
    m.runs_finished.labels(pipeline, status).inc()
    for t in trace:
        m.node_seconds.labels(pipeline, t.node).observe(t.duration_ms / 1000)
        if t.prompt_tokens:
            m.tokens.labels(pipeline, t.node, "prompt").inc(t.prompt_tokens)
        if t.completion_tokens:
            m.tokens.labels(pipeline, t.node, "completion").inc(t.completion_tokens)
        if t.retries:
            m.retries.labels(pipeline, t.node).inc(t.retries)


async def counted_stream(messages: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
    """An SSE message stream counted in `edesk_sse_streams_open` while it is open."""
    gauge = metrics().sse_open
    gauge.inc()
    try:
        async for message in messages:
            yield message
    finally:
        gauge.dec()
        # a client that went away leaves the inner stream suspended: close it here, in this
        # task, rather than leave it to the garbage collector (whose finalizer task was
        # "destroyed but pending" at every SSE disconnect)
        aclose = getattr(messages, "aclose", None)
        if aclose is not None:
            await aclose()


def exposition(queue_depth: int | None) -> tuple[bytes, str]:
    """The text format, with the queue depth read now (None: unknown, left as it was)."""
    m = metrics()
    if queue_depth is not None:
        m.queue_depth.set(queue_depth)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST
