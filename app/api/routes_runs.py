"""/v1/runs: start, stream, read, list, cancel and delete runs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Annotated, Any, Literal, get_args

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import PlainTextResponse
from sse_starlette.sse import EventSourceResponse

from app.api.admission import admit
from app.api.deps import (
    IntakeLockDep,
    ManagerDep,
    OwnerDep,
    ResumeDep,
    RunDep,
    SettingsDep,
    sse_response,
)
from app.api.errors import ApiError, FieldError
from app.api.intake import read_run_request
from app.api.schemas import (
    TRANSCRIPT_PATTERN,
    RunCreated,
    RunDetail,
    RunPage,
    RunSummary,
    links,
    refusals,
)
from app.exports.pdf import report_pdf
from app.exports.tables import report_csv_zip, report_xlsx
from app.market import MarketSource
from app.service.runs import RunManager
from app.settings import Settings
from app.storage import RunRecord
from core.contract import Report
from core.options import PIPELINE_NAMES
from core.transcript import normalize_newlines
from graphs import PIPELINES

router = APIRouter(prefix="/v1/runs", tags=["runs"], responses=refusals(401, 422))
_INTAKE = refusals(413, 415, 429)
_RUN = refusals(404)

_BODY_DOC: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/RunCreate"}},
            "multipart/form-data": {
                # Object parts are sent as JSON (OpenAPI's default encoding for objects).
                "schema": {
                    "type": "object",
                    "required": ["transcript"],
                    "properties": {
                        "transcript": {
                            "type": "string",
                            "minLength": 1,
                            "pattern": TRANSCRIPT_PATTERN,
                            "description": "the call: a UTF-8 text or markdown file, or its text",
                        },
                        "pipeline": {"type": "string", "enum": list(PIPELINES)},
                        "company": {"type": "string", "maxLength": 200},
                        "ticker": {"type": "string", "maxLength": 20},
                        "period": {"type": "string", "maxLength": 50},
                        "options": {"$ref": "#/components/schemas/RunOptionsIn"},
                        "financials": {"$ref": "#/components/schemas/Financials"},
                        "prices": {"$ref": "#/components/schemas/Prices"},
                        "fetch": {"type": "boolean"},
                        "call_date": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
                        "benchmark": {"type": "string", "maxLength": 20},
                        "source": {"type": "string", "enum": list(get_args(MarketSource))},
                    },
                    "additionalProperties": False,
                }
            },
        },
    }
}


def _text(media: str) -> dict[str, Any]:
    return {"content": {media: {"schema": {"type": "string"}}}}


_SSE_DOC: dict[str, Any] = {
    "description": "text/event-stream of run_started, node_started, node_finished, token, "
    "error, run_finished events; data is JSON with run_id (and node)",
    "content": {"text/event-stream": {}},
}


async def _accept(
    request: Request, manager: RunManager, owner: str | None, settings: Settings,
    lock: asyncio.Lock,
) -> RunRecord:  # fmt: skip
    """Validate everything, store the input, queue the run. Bad input creates no run."""
    body = await read_run_request(request, settings)
    return await admit(body, manager, owner, settings, lock)


def _report(record: RunRecord) -> Report:
    if record.report is None:
        raise ApiError(409, f"run {record.id} has no report (status {record.status})")
    return record.report


@router.post(
    "",
    status_code=202,
    openapi_extra=_BODY_DOC,
    responses={
        200: {"model": RunDetail, "description": "finished run (wait=true)"},
        **_INTAKE,
        **refusals(410),
    },
)
async def create_run(
    request: Request,
    manager: ManagerDep,
    owner: OwnerDep,
    settings: SettingsDep,
    lock: IntakeLockDep,
    response: Response,
    wait: Annotated[bool, Query(description="hold until finished")] = False,
) -> RunCreated | RunDetail:
    """Start a run. Answers 202 at once (the input is stored first), or with `wait=true` the
    finished run."""
    record = await _accept(request, manager, owner, settings, lock)
    if wait:
        finished = await manager.wait_finished(record.id)
        if finished is None:
            raise ApiError(410, f"run {record.id} was deleted while waiting")
        response.status_code = 200
        return RunDetail.of(finished)
    response.headers["Location"] = f"/v1/runs/{record.id}"
    return RunCreated(id=record.id, status=record.status, links=links(record.id))


@router.post(
    "/stream",
    openapi_extra=_BODY_DOC,
    response_class=EventSourceResponse,
    responses={200: _SSE_DOC, **_INTAKE},
)
async def create_run_streaming(
    request: Request,
    manager: ManagerDep,
    owner: OwnerDep,
    settings: SettingsDep,
    lock: IntakeLockDep,
    tokens: bool = False,
) -> EventSourceResponse:
    """Start a run and answer with its event stream (one call from POST to report)."""
    record = await _accept(request, manager, owner, settings, lock)
    return sse_response(manager.stream(record.id, tokens=tokens), settings.sse_heartbeat)


@router.get("", response_model=RunPage)
async def list_runs(
    manager: ManagerDep,
    owner: OwnerDep,
    status: Literal["queued", "running", "succeeded", "degraded", "failed", "cancelled"]
    | None = None,
    pipeline: str | None = None,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
) -> RunPage:
    """Runs, newest first, filtered by status and pipeline."""
    if pipeline is not None and pipeline not in PIPELINE_NAMES:
        raise FieldError("pipeline", f"unknown pipeline; one of {', '.join(PIPELINE_NAMES)}",
                         source="query")  # fmt: skip
    items, total = await manager.store.list_runs(
        owner=owner, status=status, pipeline=pipeline, limit=limit, offset=offset
    )
    return RunPage(items=[RunSummary.of(r) for r in items], total=total, offset=offset, limit=limit)


@router.get("/{run_id:run_id}", response_model=RunDetail, responses=_RUN)
async def get_run(record: RunDep) -> RunDetail:
    """Status, timings, tokens, the error naming the node, and the Report when done."""
    return RunDetail.of(record)


@router.get(
    "/{run_id:run_id}/report.md",
    response_class=Response,
    responses={200: _text("text/markdown"), **refusals(404, 409)},
)
async def get_report_markdown(record: RunDep) -> PlainTextResponse:
    return PlainTextResponse(_report(record).markdown, media_type="text/markdown; charset=utf-8")


@router.get(
    "/{run_id:run_id}/report.json",
    response_model=Report,
    responses=refusals(404, 409),
)
async def get_report_json(record: RunDep) -> Report:
    """The typed Report alone (what `GET /v1/runs/{id}` carries as `report`), as the CLI's
    report.json holds it."""
    return _report(record)


@router.get(
    "/{run_id:run_id}/report.pdf",
    response_class=Response,
    responses={200: {"content": {"application/pdf": {}}}, **refusals(404, 409)},
)
async def get_report_pdf(record: RunDep) -> Response:
    """The report as a PDF, rendered by the server (no browser needed)."""
    return await _download(record, report_pdf, "application/pdf", "pdf")


async def _download(
    record: RunRecord, render: Callable[[Report], bytes], media_type: str, suffix: str
) -> Response:
    """The finished report rendered off the event loop, as an attachment."""
    body = await asyncio.to_thread(render, _report(record))
    disposition = f'attachment; filename="report-{record.id}.{suffix}"'
    return Response(body, media_type=media_type, headers={"Content-Disposition": disposition})


XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


@router.get(
    "/{run_id:run_id}/report.xlsx",
    response_class=Response,
    responses={200: {"content": {XLSX: {}}}, **refusals(404, 409)},
)
async def get_report_xlsx(record: RunDep) -> Response:
    """The report as an Excel workbook: recommendations, key figures, guidance, grounded
    figures with their passages, the per-node trace."""
    return await _download(record, report_xlsx, XLSX, "xlsx")


@router.get(
    "/{run_id:run_id}/report.csv.zip",
    response_class=Response,
    responses={200: {"content": {"application/zip": {}}}, **refusals(404, 409)},
)
async def get_report_csv_zip(record: RunDep) -> Response:
    """The workbook's sheets as CSV files in a zip."""
    return await _download(record, report_csv_zip, "application/zip", "csv.zip")


@router.get(
    "/{run_id:run_id}/transcript",
    response_class=Response,
    responses={200: _text("text/plain"), **_RUN},
)
async def get_transcript(record: RunDep) -> PlainTextResponse:
    """The call as the pipeline read it: the report's citation offsets (`start`, `end`, in
    Unicode code points) index this text."""
    return PlainTextResponse(normalize_newlines(record.input.transcript))


@router.get(
    "/{run_id:run_id}/events",
    response_class=EventSourceResponse,
    responses={200: _SSE_DOC, **refusals(400, 404)},
)
async def run_events(
    record: RunDep,
    manager: ManagerDep,
    settings: SettingsDep,
    after: ResumeDep,
    tokens: bool = False,
) -> EventSourceResponse:
    """The run's events from the start (or after Last-Event-ID) until run_finished."""
    return sse_response(
        manager.stream(record.id, after=after, tokens=tokens), settings.sse_heartbeat
    )


@router.post("/{run_id:run_id}/cancel", response_model=RunSummary, responses=_RUN)
async def cancel_run(record: RunDep, manager: ManagerDep) -> RunSummary:
    """Queued runs are cancelled at once; running ones stop at the next node boundary."""
    updated = await manager.cancel(record.id)
    if updated is None:
        raise ApiError(404, f"run {record.id} not found")
    return RunSummary.of(updated)


@router.delete("/{run_id:run_id}", status_code=204, responses=_RUN)
async def delete_run(record: RunDep, manager: ManagerDep) -> Response:
    """Cancel if needed and delete the run, its events and its checkpoints."""
    await manager.delete(record.id)
    return Response(status_code=204)
