"""/v1/pipelines (graphs for drawing) and health/readiness probes."""

from __future__ import annotations

import asyncio
import urllib.request
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from app.api.deps import ManagerDep
from app.api.schemas import PipelineEdge, PipelineInfo
from app.llm.factory import ModelFactory
from app.service.metrics import exposition
from graphs import PIPELINES, draw

router = APIRouter()


def pipeline_info(name: str, compiled: Any) -> PipelineInfo:
    """Nodes, edges and mermaid of a pipeline, read off the graph the engine compiled."""
    graph = draw(compiled)
    return PipelineInfo(
        name=name,
        summary=PIPELINES[name].summary,
        nodes=[n for n in graph.nodes if not n.startswith("__")],
        edges=[
            PipelineEdge(
                source=e.source,
                target=e.target,
                conditional=e.conditional,
                label=str(e.data) if e.data is not None else None,
            )
            for e in graph.edges
        ],
        mermaid=graph.draw_mermaid(),
    )


@router.get("/v1/pipelines", tags=["pipelines"], response_model=list[PipelineInfo])
async def list_pipelines(request: Request) -> list[PipelineInfo]:
    """Each pipeline's nodes, edges and mermaid; node names match the events' `node`."""
    cached: list[PipelineInfo] = request.app.state.pipelines
    return cached


@router.get("/metrics", tags=["health"], response_class=Response)
async def prometheus_metrics(manager: ManagerDep) -> Response:
    """Prometheus metrics: runs by pipeline and status, node durations, tokens, retries, queue
    depth, open SSE streams (docs/operations.md "Observability")."""
    try:
        _, queued = await manager.store.list_runs(owner=None, status="queued", limit=1)
    except Exception:  # the store is down: the other metrics still answer
        queued = None
    body, content_type = exposition(queued)
    return Response(content=body, media_type=content_type)


@router.get("/healthz", tags=["health"])
async def healthz() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


def _probe(url: str) -> None:
    with urllib.request.urlopen(url, timeout=3) as resp:
        if resp.status != 200:
            raise RuntimeError(f"{url} answered {resp.status}")


@router.get("/readyz", tags=["health"])
async def readyz(manager: ManagerDep) -> JSONResponse:
    """Ready when the run store, the vector store and the model endpoint answer."""
    checks: dict[str, Any] = {}
    try:
        await manager.store.ping()
        checks["run_store"] = "ok"
    except Exception as exc:  # reported, not raised: this is the probe's answer
        checks["run_store"] = f"error: {exc}"
    if manager.queue is not None:
        try:
            await manager.queue.ping()
            checks["queue"] = "ok"
        except Exception as exc:
            checks["queue"] = f"error: {exc}"
    try:
        await asyncio.to_thread(manager.engine.index.heartbeat)
        checks["vector_store"] = "ok"
    except Exception as exc:
        checks["vector_store"] = f"error: {exc}"
    models = manager.engine.models
    url = models.local_base_url if isinstance(models, ModelFactory) else None
    url = url or (
        manager.engine.settings.openai_base_url
        if manager.engine.settings.provider == "openai"
        else None
    )
    if url:
        try:
            await asyncio.to_thread(_probe, f"{url.rstrip('/')}/models")
            checks["model"] = "ok"
        except Exception as exc:
            checks["model"] = f"error: {exc}"
    else:
        checks["model"] = "not checked (no local or self-hosted endpoint)"
    ok = all(v == "ok" or str(v).startswith("not checked") for v in checks.values())
    return JSONResponse(
        {"status": "ready" if ok else "not ready", "checks": checks}, status_code=200 if ok else 503
    )
