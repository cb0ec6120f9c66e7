"""LangGraph Platform routes, so the official `langgraph-sdk` client (and tools built on it)
drives Earnings Desk with no code of ours on the client side: the pipelines are listed as
assistants, runs start stateless (`/runs...`) or on a thread (`/threads/{id}/runs...`), stream,
wait, join, reconnect and cancel. They share the run manager, store, auth and quotas with
`/v1/...` (a run started here is also at `/v1/runs/{run_id}`).

Mapping (README "LangGraph SDK"): `input` holds the `/v1/runs` body's call fields (transcript,
company, ticker, period, financials, prices); `context` (or `config.configurable`) holds the
run options. Stream modes: `updates` (one event per finished node: its outcome, summary,
duration and tokens), `values` (the finished nodes so far, then `{"report": ...}`), `custom`
(our typed progress events) and `messages` (model tokens as they are written, as
`[chunk, metadata]`). Statuses: queued -> pending, running, succeeded/degraded -> success,
failed -> error, cancelled -> interrupted."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from sse_starlette.sse import EventSourceResponse

from app.api.deps import ManagerDep, OwnerDep, SettingsDep, last_event_id, sse_response
from app.api.errors import ApiError, BodyInvalid, validation_detail
from app.api.intake import EXTRA_BODY_BYTES, read_json_object
from app.api.routes_runs import admit
from app.api.schemas import RunCreate, refusals
from app.service.runs import RunManager
from app.storage import TERMINAL, RunRecord, ThreadRecord, now
from graphs import PIPELINES

router = APIRouter(tags=["langgraph"], responses=refusals(401, 422))
M = TypeVar("M", bound=BaseModel)

_NAMESPACE = uuid.UUID("6f1d8a52-3c1e-4f0b-9d55-7e2b1c0a4e17")
Mode = Literal["values", "updates", "custom", "messages", "messages-tuple"]
MODES: tuple[Mode, ...] = ("values", "updates", "custom", "messages", "messages-tuple")
LgStatus = Literal["pending", "running", "success", "error", "interrupted"]
_STATUS: dict[str, LgStatus] = {
    "queued": "pending", "running": "running", "succeeded": "success", "degraded": "success",
    "failed": "error", "cancelled": "interrupted",
}  # fmt: skip
# what LangGraph's API accepts and Earnings Desk cannot honour: refused by name, not ignored
UNSUPPORTED = (
    "command", "interrupt_before", "interrupt_after", "webhook", "checkpoint", "checkpoint_id",
    "checkpoint_during", "after_seconds", "feedback_keys", "langsmith_tracer",
)  # fmt: skip


def assistant_id(pipeline: str) -> str:
    """Each pipeline's assistant id: a UUID fixed by its name (the name is accepted too)."""
    return str(uuid.uuid5(_NAMESPACE, pipeline))


def pipeline_of(assistant: str) -> str:
    for name in PIPELINES:
        if assistant in (name, assistant_id(name)):
            return name
    raise ApiError(
        404,
        f"assistant {assistant[:80]!r} not found; the assistants are the pipelines "
        f"({', '.join(PIPELINES)}), by name or by their assistant_id from /assistants/search",
    )


# -- models ------------------------------------------------------------------------------------


class Assistant(BaseModel):
    assistant_id: str
    graph_id: str
    name: str
    description: str | None
    config: dict[str, Any] = Field(default_factory=dict)
    context: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    version: int = 1
    created_at: datetime
    updated_at: datetime


class AssistantSearch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    graph_id: str | None = None
    name: str | None = None
    metadata: dict[str, Any] | None = None
    limit: int = Field(default=10, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)
    sort_by: Literal["assistant_id", "graph_id", "name", "created_at", "updated_at"] | None = None
    sort_order: Literal["asc", "desc"] | None = None
    select: list[str] | None = None


class LgRunCreate(BaseModel):
    """A LangGraph run request, as the SDK sends it."""

    model_config = ConfigDict(extra="forbid")

    assistant_id: str
    input: dict[str, Any] | None = None
    config: dict[str, Any] | None = None
    context: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    stream_mode: Mode | list[Mode] | None = None
    stream_subgraphs: bool | None = None  # no subgraphs: nothing changes
    stream_resumable: bool | None = None  # every run's stream is resumable
    on_disconnect: Literal["cancel", "continue"] | None = None
    on_completion: Literal["delete", "keep"] | None = None
    multitask_strategy: Literal["reject", "interrupt", "rollback", "enqueue"] | None = None
    if_not_exists: Literal["create", "reject"] | None = None
    durability: Literal["sync", "async", "exit"] | None = None  # runs always save each step
    command: Any = None
    interrupt_before: Any = None
    interrupt_after: Any = None
    webhook: Any = None
    checkpoint: Any = None
    checkpoint_id: Any = None
    checkpoint_during: Any = None
    after_seconds: Any = None
    feedback_keys: Any = None
    langsmith_tracer: Any = None

    @field_validator(*UNSUPPORTED)
    @classmethod
    def _unsupported(cls, value: Any) -> Any:
        if value is not None:
            raise ValueError("not supported by Earnings Desk's pipelines")
        return value

    def modes(self) -> list[Mode]:
        given = self.stream_mode or ["values"]
        return [given] if isinstance(given, str) else list(given)


class LgRun(BaseModel):
    run_id: str
    thread_id: str
    assistant_id: str
    created_at: datetime
    updated_at: datetime
    status: LgStatus
    metadata: dict[str, Any] = Field(default_factory=dict)
    multitask_strategy: str = "enqueue"
    kwargs: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def of(cls, record: RunRecord) -> LgRun:
        return cls(
            run_id=record.id,
            thread_id=record.thread_id or "",
            assistant_id=assistant_id(record.pipeline),
            created_at=record.created_at,
            updated_at=record.finished_at or record.started_at or record.created_at,
            status=_STATUS[record.status],
            metadata={"pipeline": record.pipeline, "v1": f"/v1/runs/{record.id}"},
        )


class Thread(BaseModel):
    thread_id: str
    created_at: datetime
    updated_at: datetime
    metadata: dict[str, Any]
    status: Literal["idle", "busy", "error", "interrupted"]
    values: dict[str, Any]
    interrupts: dict[str, Any] = Field(default_factory=dict)


class ThreadCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    thread_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_-]{1,64}$")
    metadata: dict[str, Any] | None = None
    if_exists: Literal["raise", "do_nothing"] | None = None


def values_of(record: RunRecord) -> dict[str, Any]:
    """A finished run's output, as `/runs/wait` and `join` return it."""
    if record.report is not None:
        return {"report": record.report.model_dump(mode="json")}
    if record.status == "failed":
        return {"__error__": {"error": record.reason or "error", "message": record.error or ""}}
    return {}


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
    request: Request, response: Response, _owner: OwnerDep
) -> list[Assistant]:
    """The pipelines, as assistants (filters: graph_id, name, metadata; limit, offset)."""
    query = _validated(AssistantSearch, await _json(request, 1_000_000))
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


@router.post("/threads", response_model=Thread, responses=refusals(409))
async def create_thread(request: Request, manager: ManagerDep, owner: OwnerDep) -> Thread:
    body = _validated(ThreadCreate, await _json(request, 1_000_000))
    thread_id = body.thread_id or str(uuid.uuid4())
    existing = await manager.store.get_thread(thread_id)
    if existing is not None:
        if body.if_exists == "do_nothing" and existing.owner == owner:
            return await _thread(manager, existing)
        raise ApiError(409, f"thread {thread_id} already exists")
    record = ThreadRecord(id=thread_id, owner=owner, created_at=now(), metadata=body.metadata or {})
    await manager.store.create_thread(record)
    return await _thread(manager, record)


@router.get("/threads/{thread_id}", response_model=Thread, responses=refusals(404))
async def get_thread(thread_id: str, manager: ManagerDep, owner: OwnerDep) -> Thread:
    return await _thread(manager, await _owned_thread(manager, thread_id, owner))


async def _owned_thread(manager: RunManager, thread_id: str, owner: str | None) -> ThreadRecord:
    record = await manager.store.get_thread(thread_id)
    if record is None or (owner is not None and record.owner != owner):
        raise ApiError(404, f"thread {thread_id[:80]} not found")
    return record


async def _thread(manager: RunManager, record: ThreadRecord) -> Thread:
    latest = await manager.store.thread_runs(record.id, limit=1, offset=0)
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
    """Validate the LangGraph body, map it to a `/v1/runs` body, and admit the run."""
    body = _validated(
        LgRunCreate, await _json(request, settings.max_transcript_bytes + EXTRA_BODY_BYTES)
    )
    pipeline = pipeline_of(body.assistant_id)
    if thread_id is None or (
        body.if_not_exists == "create" and await manager.store.get_thread(thread_id) is None
    ):  # stateless runs get a thread of their own, so get/join/stream work on them
        thread = ThreadRecord(id=thread_id or str(uuid.uuid4()), owner=owner, created_at=now())
        await manager.store.create_thread(thread)
    else:
        thread = await _owned_thread(manager, thread_id, owner)
    options = {**((body.config or {}).get("configurable") or {}), **(body.context or {})}
    if {"messages", "messages-tuple"} & set(body.modes()):
        options["stream_tokens"] = True
    run_body = _run_body(pipeline, body.input or {}, options)
    record = await admit(request, run_body, manager, owner, settings, thread_id=thread.id)
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
    base = f"/threads/{record.thread_id}/runs/{record.id}"
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
    runs = await manager.store.thread_runs(thread_id, limit=limit, offset=offset)
    return [LgRun.of(r) for r in runs]


async def _thread_run(
    manager: RunManager, thread_id: str, run_id: str, owner: str | None
) -> RunRecord:
    await _owned_thread(manager, thread_id, owner)
    record = await manager.store.get(run_id)
    if record is None or record.thread_id != thread_id:
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
    deletes the run. With `wait`, answers when the run has stopped."""
    record = await _thread_run(manager, thread_id, run_id, owner)
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


# -- the stream --------------------------------------------------------------------------------


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
                end = {"run_id": run_id, "status": _STATUS[final.status]}
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


# -- body reading ------------------------------------------------------------------------------


async def _json(request: Request, limit: int) -> dict[str, Any]:
    """The JSON object body; an empty body is an empty object (the SDK sends none for some
    calls)."""
    if request.headers.get("content-length") == "0":
        return {}
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype and ctype != "application/json":
        raise ApiError(415, f"unsupported content type {ctype!r}; send application/json")
    return await read_json_object(request, limit)


def _validated(model: type[M], data: dict[str, Any]) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise BodyInvalid(validation_detail(exc)) from None
