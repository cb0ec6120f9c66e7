"""The FastAPI app factory. The lifespan opens the engine (models, index, checkpointer, every
graph compiled once), the run store and the run manager, and resumes unfinished runs."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.utils import get_openapi
from langchain_core.embeddings import Embeddings

from app import telemetry, web
from app.api import errors
from app.api.limits import BodyLimit
from app.api.routes_companies import router as companies_router
from app.api.routes_evals import router as evals_router
from app.api.routes_langgraph import router as langgraph_router
from app.api.routes_meta import pipeline_info
from app.api.routes_meta import router as meta_router
from app.api.routes_runs import router as runs_router
from app.api.schemas import RunCreate
from app.evaluation.service import EvalManager
from app.service.backends import open_backends
from app.service.engine import Engine
from app.service.runs import RunManager
from app.settings import Settings
from core.llm.chat import ModelSource
from graphs import PIPELINES

log = logging.getLogger("earnings_desk.http")


def create_app(
    settings: Settings | None = None,
    *,
    models: ModelSource | None = None,
    embeddings: Embeddings | None = None,
    embedding_name: str | None = None,
) -> FastAPI:
    """Build the app; `models`/`embeddings` replace the factory's (tests)."""

    app = FastAPI(
        title="Earnings Desk",
        version="0.1.0",
        summary="Earnings-call transcript -> analyst report with typed 1d/1w/1m recommendations",
        lifespan=_lifespan(models, embeddings, embedding_name),
        docs_url=None,  # /docs is served by app.web: local files under the page's CSP
        redoc_url=None,  # ReDoc loads from a CDN too; /openapi.json is there for any viewer
    )
    app.state.settings = settings or Settings()
    app.state.started_at = datetime.now(UTC)
    errors.install(app)
    _middleware(app, app.state.settings)
    app.include_router(runs_router)
    app.include_router(meta_router)
    app.include_router(evals_router)
    app.include_router(companies_router)
    app.include_router(langgraph_router)  # the LangGraph SDK's routes (docs/http-api.md)
    web.install(app)
    _document_run_body(app)
    if telemetry.enabled():  # OTEL_EXPORTER_OTLP_ENDPOINT: spans per request, run and node
        telemetry.instrument(app, telemetry.setup())
    return app


def _lifespan(
    models: ModelSource | None, embeddings: Embeddings | None, embedding_name: str | None
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """Start-up: the engine (models, index, checkpointer, every graph compiled once), the store,
    bus and queue, the run and evaluation managers; resume what a dead process left."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        cfg = app.state.settings
        async with Engine.open(
            cfg, models=models, embeddings=embeddings, embedding_name=embedding_name
        ) as engine:
            store, bus, queue = await open_backends(cfg)
            manager = RunManager(engine, store, cfg, bus, queue)
            app.state.manager = manager
            app.state.intake_lock = asyncio.Lock()  # the run intake's quota check + insert
            app.state.evals = EvalManager(manager, cfg.data_dir / "evals")
            app.state.pipelines = [pipeline_info(name, engine.graphs[name]) for name in PIPELINES]
            await manager.resume_unfinished()
            await app.state.evals.resume()
            sweeper = await _retention(manager, app.state.evals, cfg)
            try:
                yield
            finally:
                if sweeper is not None:
                    sweeper.cancel()
                    await asyncio.gather(sweeper, return_exceptions=True)
                await app.state.evals.shutdown()
                await manager.shutdown()
                if queue is not None:
                    await queue.close()
                await bus.close()
                await store.close()

    return lifespan


async def _retention(
    manager: RunManager, evals: EvalManager, settings: Settings
) -> asyncio.Task[None] | None:
    """EDESK_RETENTION_DAYS: delete what ended longer ago (evaluations with their runs, inputs
    and outputs; runs; threads left with no run), at start-up (before the first request) and
    then every sweep period."""
    days = settings.retention_days
    if days is None:
        return None

    async def prune() -> None:
        await evals.prune(days)
        await manager.prune(days)

    await prune()

    async def sweep() -> None:
        while True:
            await asyncio.sleep(settings.retention_sweep_seconds)
            try:
                await prune()
            except Exception:  # a failed sweep is logged and tried again next period
                log.exception("retention sweep failed")

    return asyncio.create_task(sweep(), name="retention")


def _middleware(app: FastAPI, settings: Settings) -> None:
    """Body limit, CORS when origins are set, and an access log without query or body."""
    app.add_middleware(BodyLimit, limit=settings.max_request_bytes, timeout=settings.body_timeout)
    origins = list(settings.cors_origins)
    if origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=origins,
            allow_methods=["*"],
            allow_headers=["*"],
            expose_headers=["Location"],
        )

    @app.middleware("http")
    async def access_log(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        # path only: query strings may carry an access_token, bodies carry transcripts
        t0 = time.perf_counter()
        response = await call_next(request)
        log.info(
            "%s %s %d %.0fms",
            request.method,
            request.url.path,
            response.status_code,
            (time.perf_counter() - t0) * 1000,
        )
        return response


def _document_run_body(app: FastAPI) -> None:
    """POST /v1/runs parses its body itself (JSON or multipart), so FastAPI does not see
    RunCreate: add it (and what it references) to the schema's components."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = get_openapi(
                title=app.title, version=app.version, summary=app.summary, routes=app.routes
            )
            schema = RunCreate.model_json_schema(ref_template="#/components/schemas/{model}")
            components = spec.setdefault("components", {}).setdefault("schemas", {})
            components.update(schema.pop("$defs", {}))
            components["RunCreate"] = schema
            if app.state.settings.api_keys:
                _document_keys(spec)
            app.openapi_schema = spec
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _document_keys(spec: dict[str, Any]) -> None:
    """With EDESK_API_KEYS set, runs and evals need a key: a Bearer header, or `?access_token=`
    for EventSource (which cannot send headers). Health and pipeline routes stay open."""
    spec["components"]["securitySchemes"] = {
        "bearer": {"type": "http", "scheme": "bearer", "description": "one of EDESK_API_KEYS"},
        "access_token": {"type": "apiKey", "in": "query", "name": "access_token"},
    }
    for path, operations in spec["paths"].items():
        if path.startswith(("/v1/runs", "/v1/evals")):
            for method, operation in operations.items():
                stream = method == "get" and path.endswith("/events")  # EventSource only
                operation["security"] = (
                    [{"bearer": []}, {"access_token": []}] if stream else [{"bearer": []}]
                )
