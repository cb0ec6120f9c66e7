"""LangGraph Platform routes, so the official `langgraph-sdk` client (and tools built on it)
drives Earnings Desk with no code of ours on the client side: the pipelines are listed as
assistants, runs start stateless (`/runs...`) or on a thread (`/threads/{id}/runs...`), stream,
wait, join, reconnect and cancel. They share the run manager, store, auth and quotas with
`/v1/...` (a run started here is also at `/v1/runs/{run_id}`).

Mapping (docs/http-api.md): `input` holds the `/v1/runs` body's call fields (transcript,
company, ticker, period, financials, prices); `context` (or `config.configurable`) holds the
run options. Stream modes: `updates` (one event per finished node: its outcome, summary,
duration and tokens), `values` (the finished nodes so far, then `{"report": ...}`), `custom`
(our typed progress events) and `messages` (model tokens as they are written, as
`[chunk, metadata]`). Statuses: queued -> pending, running, succeeded/degraded -> success,
failed -> error, cancelled -> interrupted."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import quote

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, ValidationError
from sse_starlette.sse import EventSourceResponse

from app.api.admission import admit
from app.api.deps import (
    ManagerDep,
    OwnerDep,
    SettingsDep,
    get_intake_lock,
    last_event_id,
    sse_response,
)
from app.api.errors import ApiError, BodyInvalid, validation_detail
from app.api.intake import EXTRA_BODY_BYTES, read_json_object
from app.api.langgraph_models import (
    Assistant,
    AssistantSearch,
    LgRun,
    LgRunCreate,
    Mode,
    Thread,
    ThreadCreate,
    assistant_id,
    check_thread_id,
    pipeline_of,
    values_of,
)
from app.api.langgraph_stream import lg_stream
from app.api.limits import check_metadata, check_thread_quota
from app.api.schemas import RunCreate, refusals
from app.service.runs import RunManager
from app.storage import TERMINAL, RunRecord, ThreadRecord, now
from graphs import PIPELINES

router = APIRouter(tags=["langgraph"], responses=refusals(401, 422))
M = TypeVar("M", bound=BaseModel)


# -- assistants --------------------------------------------------------------------------------


def _assistant(request: Request, name: str) -> Assistant:
    started: datetime = request.app.state.started_at
    return Assistant(
        assistant_id=assistant_id(name), graph_id=name, name=name,
        description=PIPELINES[name].summary, created_at=started, updated_at=started,
        metadata={"created_by": "system"},
    )  # fmt: skip


@router.post("/assistants/search", response_model=list[Assistant])
async def search_assistants(
    request: Request, response: Response, _owner: OwnerDep, settings: SettingsDep
) -> list[Assistant]:
    """The pipelines, as assistants (filters: graph_id, name, metadata; limit, offset)."""
    query = _validated(AssistantSearch, await _json(request, settings.max_request_bytes, ""))
    found = [
        a
        for a in (_assistant(request, name) for name in PIPELINES)
        if (query.graph_id in (None, a.graph_id))
        and (query.name is None or query.name.lower() in a.name.lower())
        and all(a.metadata.get(k) == v for k, v in (query.metadata or {}).items())
    ]
    if query.sort_by:
        found.sort(key=lambda a: str(getattr(a, query.sort_by or "name")))
        if query.sort_order == "desc":
            found.reverse()
    page = found[query.offset : query.offset + query.limit]
    if query.offset + query.limit < len(found):
        response.headers["X-Pagination-Next"] = str(query.offset + query.limit)
    return page


@router.get(
    "/assistants/{assistant:assistant_id}", response_model=Assistant, responses=refusals(404)
)
async def get_assistant(request: Request, assistant: str, _owner: OwnerDep) -> Assistant:
    return _assistant(request, pipeline_of(assistant))


@router.get("/assistants/{assistant:assistant_id}/graph", responses=refusals(404))
async def get_assistant_graph(request: Request, assistant: str, _owner: OwnerDep) -> Any:
    """The pipeline's graph as LangGraph draws it (nodes and edges)."""
    manager: RunManager = request.app.state.manager
    return manager.engine.graphs[pipeline_of(assistant)].get_graph().to_json()


# -- threads -----------------------------------------------------------------------------------


@router.post("/threads", response_model=Thread, responses=refusals(409, 413, 429))
async def create_thread(
    request: Request, manager: ManagerDep, owner: OwnerDep, settings: SettingsDep
) -> Thread:
    """Make a thread (ids are per key: another key's thread of the same id is another one)."""
    body = _validated(ThreadCreate, await _json(request, settings.max_request_bytes, ""))
    check_metadata(body.metadata, settings)
    thread_id = body.thread_id or str(uuid.uuid4())
    async with get_intake_lock(request):
        existing = await manager.store.get_thread(owner, thread_id)
        if existing is not None:
            if body.if_exists == "do_nothing":
                return await _thread(manager, existing)
            raise ApiError(409, f"thread {thread_id} already exists")
        await check_thread_quota(manager.store, owner, settings)
        record = ThreadRecord(
            id=thread_id, owner=owner, created_at=now(), metadata=body.metadata or {}
        )
        await manager.store.create_thread(record)
    return await _thread(manager, record)


@router.get("/threads/{thread_id}", response_model=Thread, responses=refusals(404))
async def get_thread(thread_id: str, manager: ManagerDep, owner: OwnerDep) -> Thread:
    return await _thread(manager, await _owned_thread(manager, thread_id, owner))


@router.delete("/threads/{thread_id}", status_code=204, responses=refusals(404))
async def delete_thread(thread_id: str, manager: ManagerDep, owner: OwnerDep) -> Response:
    """Delete the thread and its runs (cancelled first when unfinished)."""
    await _owned_thread(manager, thread_id, owner)
    await manager.delete_thread(owner, thread_id)
    return Response(status_code=204)


async def _owned_thread(manager: RunManager, thread_id: str, owner: str | None) -> ThreadRecord:
    record = await manager.store.get_thread(owner, thread_id)
    if record is None:
        raise ApiError(404, f"thread {thread_id[:80]!r} not found")
    return record


async def _thread(manager: RunManager, record: ThreadRecord) -> Thread:
    latest = await manager.store.thread_runs(record.owner, record.id, limit=1, offset=0)
    last = latest[0] if latest else None
    status: Literal["idle", "busy", "error"] = (
        "busy" if last and last.status not in TERMINAL
        else "error" if last and last.status == "failed"
        else "idle"
    )  # fmt: skip
    return Thread(
        thread_id=record.id, created_at=record.created_at,
        updated_at=(last.finished_at or last.created_at) if last else record.created_at,
        metadata=record.metadata, status=status,
        values=values_of(last) if last and last.status in TERMINAL else {},
    )  # fmt: skip


# -- runs --------------------------------------------------------------------------------------


async def _start(
    request: Request, manager: RunManager, owner: str | None, settings: SettingsDep,
    thread_id: str | None,
) -> tuple[RunRecord, LgRunCreate]:  # fmt: skip
    """Validate the LangGraph body, map it to a `/v1/runs` body, and admit the run. Every
    check comes first: a refused request stores neither a thread nor a run."""
    body = _validated(
        LgRunCreate, await _json(request, settings.max_transcript_bytes + EXTRA_BODY_BYTES)
    )
    pipeline = pipeline_of(body.assistant_id)
    new_thread = None
    if thread_id is None:  # stateless runs get a thread of their own, so get/join/stream work
        new_thread = ThreadRecord(id=str(uuid.uuid4()), owner=owner, created_at=now())
    elif await manager.store.get_thread(owner, thread_id) is None:
        if body.if_not_exists != "create":
            raise ApiError(404, f"thread {thread_id[:80]!r} not found")
        new_thread = ThreadRecord(id=check_thread_id(thread_id), owner=owner, created_at=now())
    configurable = body.config.configurable if body.config else None
    options = {**(configurable or {}), **(body.context or {})}
    if {"messages", "messages-tuple"} & set(body.modes()):
        options["stream_tokens"] = True
    run_body = _run_body(pipeline, body.input or {}, options)
    record = await admit(
        run_body, manager, owner, settings, get_intake_lock(request), where=("input",),
        options_at=("context",), thread_id=new_thread.id if new_thread else thread_id,
        new_thread=new_thread,
    )  # fmt: skip
    return record, body


def _run_body(pipeline: str, given: dict[str, Any], options: dict[str, Any]) -> RunCreate:
    """The `/v1/runs` body; field errors name `input.<field>` or `context.<option>`."""
    try:
        return RunCreate.model_validate({**given, "pipeline": pipeline, "options": options})
    except ValidationError as exc:
        detail = []
        for e in exc.errors(include_url=False, include_context=False, include_input=False):
            loc = list(e["loc"])
            where = ["context", *loc[1:]] if loc[:1] == ["options"] else ["input", *loc]
            detail.append({"loc": ["body", *where], "msg": e["msg"], "type": e["type"]})
        raise BodyInvalid(detail) from None


def _located(response: Response, record: RunRecord, modes: list[Mode] | None = None) -> None:
    """Where the run lives (the SDK reads Content-Location) and, for streams, where to
    reconnect (Location, keeping the modes asked for)."""
    thread = quote(record.thread_id or "", safe="")  # a header holds no raw control character
    base = f"/threads/{thread}/runs/{record.id}"
    response.headers["Content-Location"] = base
    if modes is not None:
        response.headers["Location"] = f"{base}/stream?" + "&".join(
            f"stream_mode={m}" for m in modes
        )


@router.post("/runs", response_model=LgRun, responses=refusals(404, 413, 429))
async def create_stateless_run(
    request: Request, response: Response, manager: ManagerDep, owner: OwnerDep,
    settings: SettingsDep,
) -> LgRun:  # fmt: skip
    """Start a background run (on a new thread of its own)."""
    record, _ = await _start(request, manager, owner, settings, None)
    _located(response, record)
    return LgRun.of(record)


@router.post("/threads/{thread_id}/runs", response_model=LgRun, responses=refusals(404, 413, 429))
async def create_thread_run(
    request: Request, response: Response, thread_id: str, manager: ManagerDep, owner: OwnerDep,
    settings: SettingsDep,
) -> LgRun:  # fmt: skip
    """Start a background run on a thread."""
    record, _ = await _start(request, manager, owner, settings, thread_id)
    _located(response, record)
    return LgRun.of(record)


@router.post("/runs/stream", response_class=EventSourceResponse, responses=refusals(404, 413, 429))
async def stream_stateless_run(
    request: Request, manager: ManagerDep, owner: OwnerDep, settings: SettingsDep
) -> EventSourceResponse:
    """Start a run and stream it (`metadata`, then the stream modes asked for, then `end`)."""
    return await _start_streaming(request, manager, owner, settings, None)


@router.post(
    "/threads/{thread_id}/runs/stream",
    response_class=EventSourceResponse,
    responses=refusals(404, 413, 429),
)
async def stream_thread_run(
    request: Request, thread_id: str, manager: ManagerDep, owner: OwnerDep,
    settings: SettingsDep,
) -> EventSourceResponse:  # fmt: skip
    return await _start_streaming(request, manager, owner, settings, thread_id)


async def _start_streaming(
    request: Request, manager: RunManager, owner: str | None, settings: SettingsDep,
    thread_id: str | None,
) -> EventSourceResponse:  # fmt: skip
    record, body = await _start(request, manager, owner, settings, thread_id)
    modes = body.modes()
    cancel = body.on_disconnect == "cancel"
    response = sse_response(
        lg_stream(manager, record, modes, after=0, cancel_on_disconnect=cancel),
        settings.sse_heartbeat,
    )
    _located(response, record, modes)
    return response


@router.post("/runs/wait", responses=refusals(404, 413, 429))
async def wait_stateless_run(
    request: Request, response: Response, manager: ManagerDep, owner: OwnerDep,
    settings: SettingsDep,
) -> dict[str, Any]:  # fmt: skip
    """Start a run and answer with its output when it ends: `{"report": ...}`, or
    `{"__error__": {...}}` when it failed."""
    record, _ = await _start(request, manager, owner, settings, None)
    _located(response, record)
    return await _joined(manager, record.id)


@router.post("/threads/{thread_id}/runs/wait", responses=refusals(404, 413, 429))
async def wait_thread_run(
    request: Request, response: Response, thread_id: str, manager: ManagerDep, owner: OwnerDep,
    settings: SettingsDep,
) -> dict[str, Any]:  # fmt: skip
    record, _ = await _start(request, manager, owner, settings, thread_id)
    _located(response, record)
    return await _joined(manager, record.id)


async def _joined(manager: RunManager, run_id: str) -> dict[str, Any]:
    finished = await manager.wait_finished(run_id)
    if finished is None:
        raise ApiError(410, f"run {run_id} was deleted while waiting")
    return values_of(finished)


@router.get("/threads/{thread_id}/runs", response_model=list[LgRun], responses=refusals(404))
async def list_thread_runs(
    thread_id: str, manager: ManagerDep, owner: OwnerDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 10,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
) -> list[LgRun]:  # fmt: skip
    await _owned_thread(manager, thread_id, owner)
    runs = await manager.store.thread_runs(owner, thread_id, limit=limit, offset=offset)
    return [LgRun.of(r) for r in runs]


async def _thread_run(
    manager: RunManager, thread_id: str, run_id: str, owner: str | None
) -> RunRecord:
    await _owned_thread(manager, thread_id, owner)
    record = await manager.store.get(run_id)
    if record is None or record.thread_id != thread_id or record.owner != owner:
        raise ApiError(404, f"run {run_id[:80]} not found on thread {thread_id[:80]}")
    return record


@router.get(
    "/threads/{thread_id}/runs/{run_id:run_id}", response_model=LgRun, responses=refusals(404)
)
async def get_thread_run(
    thread_id: str, run_id: str, manager: ManagerDep, owner: OwnerDep
) -> LgRun:
    return LgRun.of(await _thread_run(manager, thread_id, run_id, owner))


@router.get("/threads/{thread_id}/runs/{run_id:run_id}/join", responses=refusals(404))
async def join_thread_run(
    thread_id: str, run_id: str, manager: ManagerDep, owner: OwnerDep
) -> dict[str, Any]:
    """Wait for the run to end; its output."""
    record = await _thread_run(manager, thread_id, run_id, owner)
    return await _joined(manager, record.id)


@router.get(
    "/threads/{thread_id}/runs/{run_id:run_id}/stream",
    response_class=EventSourceResponse,
    responses=refusals(400, 404),
)
async def join_thread_run_stream(
    thread_id: str,
    run_id: str,
    manager: ManagerDep,
    owner: OwnerDep,
    settings: SettingsDep,
    request: Request,
    stream_mode: Annotated[list[Mode] | None, Query()] = None,
    cancel_on_disconnect: bool = False,
) -> EventSourceResponse:
    """The run's stream from the start, or after Last-Event-ID (a reconnect): every mode
    unless `stream_mode` narrows it."""
    record = await _thread_run(manager, thread_id, run_id, owner)
    after = last_event_id(request.headers.get("last-event-id"), None)
    modes: list[Mode] = list(stream_mode or ["values", "updates", "custom", "messages"])
    return sse_response(
        lg_stream(manager, record, modes, after=after, cancel_on_disconnect=cancel_on_disconnect),
        settings.sse_heartbeat,
    )


@router.post(
    "/threads/{thread_id}/runs/{run_id:run_id}/cancel", status_code=202, responses=refusals(404)
)
async def cancel_thread_run(
    thread_id: str,
    run_id: str,
    manager: ManagerDep,
    owner: OwnerDep,
    response: Response,
    wait: bool = False,
    action: Literal["interrupt", "rollback"] = "interrupt",
) -> Any:
    """Cancel (queued: at once; running: at the next node boundary). `action=rollback` also
    deletes the run, unless it has already finished: a cancel never destroys a finished result
    (409; DELETE the run to remove it). With `wait`, answers when the run has stopped."""
    record = await _thread_run(manager, thread_id, run_id, owner)
    if action == "rollback" and record.status in TERMINAL:
        raise ApiError(
            409,
            f"run {run_id} has already finished ({record.status}): a cancel does not delete a "
            "finished run; DELETE it to remove it",
        )
    if action == "rollback":
        await manager.delete(record.id)
        response.status_code = 204
        return None
    await manager.cancel(record.id)
    if wait:
        finished = await manager.wait_finished(record.id)
        response.status_code = 200
        return values_of(finished) if finished else None
    return None


@router.delete(
    "/threads/{thread_id}/runs/{run_id:run_id}", status_code=204, responses=refusals(404)
)
async def delete_thread_run(
    thread_id: str, run_id: str, manager: ManagerDep, owner: OwnerDep
) -> Response:
    record = await _thread_run(manager, thread_id, run_id, owner)
    await manager.delete(record.id)
    return Response(status_code=204)


# -- body reading ------------------------------------------------------------------------------


async def _json(request: Request, limit: int, field: str = "transcript") -> dict[str, Any]:
    """The JSON object body; an empty body is an empty object (the SDK sends none for some
    calls). A body over `limit` is a 413 naming `field` ("" for a body with no transcript,
    whose limit is EDESK_MAX_REQUEST_BYTES)."""
    if request.headers.get("content-length") == "0":
        return {}
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype and ctype != "application/json":
        raise ApiError(415, f"unsupported content type {ctype!r}; send application/json")
    if field:
        return await read_json_object(request, limit)
    return await read_json_object(request, limit, "", "EDESK_MAX_REQUEST_BYTES")


def _validated(model: type[M], data: dict[str, Any]) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise BodyInvalid(validation_detail(exc)) from None
