"""Dependencies: settings, the run manager, and the caller's identity (optional API keys)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
from collections.abc import AsyncIterator
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Header, Path, Query, Request
from pydantic import SecretStr, WithJsonSchema
from sse_starlette.sse import EventSourceResponse
from starlette.convertors import StringConvertor, register_url_convertor

from app.api.errors import ApiError
from app.service.metrics import counted_stream
from app.service.runs import RunManager
from app.settings import Settings
from app.storage import EvalRecord, RunRecord


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_manager(request: Request) -> RunManager:
    manager: RunManager = request.app.state.manager
    return manager


def get_intake_lock(request: Request) -> asyncio.Lock:
    """The app's intake lock: one process's quota checks and inserts go in turn."""
    lock: asyncio.Lock = request.app.state.intake_lock
    return lock


def is_event_stream(request: Request) -> bool:
    """A GET of a run's or an evaluation's event stream (what EventSource opens)."""
    return request.method == "GET" and request.url.path.rstrip("/").endswith("/events")


def get_owner(request: Request) -> str | None:
    """None when auth is off; else a stable id of the caller's key (runs are scoped to it).
    EventSource cannot send headers, so `?access_token=` is accepted on the event streams
    (`GET .../events`) and nowhere else: a key in a URL ends up in logs and histories."""
    keys: tuple[SecretStr, ...] = request.app.state.settings.api_keys
    if not keys:
        return None
    header = request.headers.get("authorization", "")
    token = header[7:].strip() if header.lower().startswith("bearer ") else None
    token = token or request.headers.get("x-api-key")  # the LangGraph SDK's header
    in_url = request.query_params.get("access_token")
    if in_url is not None and not token:
        if not is_event_stream(request):
            raise ApiError(
                401,
                "?access_token= is accepted only on event streams (GET .../events); send "
                "the key as Authorization: Bearer <key>",
                headers={"WWW-Authenticate": "Bearer"},
            )
        token = in_url
    # compared as bytes: a key with any characters is a 401, never a TypeError (compare_digest
    # refuses str with non-ASCII characters); header values arrive decoded as latin-1
    given = token.encode("utf-8", "surrogateescape") if token else b""
    if token and any(
        hmac.compare_digest(given, k.get_secret_value().encode("utf-8")) for k in keys
    ):
        return hashlib.sha256(given).hexdigest()[:16]
    raise ApiError(
        401,
        "missing or invalid API key (Authorization: Bearer <key>, or X-Api-Key: <key>)",
        headers={"WWW-Authenticate": "Bearer"},
    )


SettingsDep = Annotated[Settings, Depends(get_settings)]
ManagerDep = Annotated[RunManager, Depends(get_manager)]
OwnerDep = Annotated[str | None, Depends(get_owner)]
IntakeLockDep = Annotated[asyncio.Lock, Depends(get_intake_lock)]


class RunIdConvertor(StringConvertor):
    """A path segment other than `stream` or `wait`: /v1/runs/stream (and the LangGraph
    routes' .../runs/stream, .../runs/wait) is never taken for a run id, so a 405 there names
    the methods of the path that was meant."""

    regex = "(?!(?:stream|wait)$)[^/]+"


class AssistantIdConvertor(StringConvertor):
    """An assistant id other than `search` (POST /assistants/search)."""

    regex = "(?!search$)[^/]+"


# `{run_id:run_id}` and `{assistant:assistant_id}` in the routes' paths (both route modules)
register_url_convertor("run_id", RunIdConvertor())
register_url_convertor("assistant_id", AssistantIdConvertor())
RunId = Annotated[str, Path(description="a run's id (32 hex digits for runs this API made)")]


Owned = TypeVar("Owned", RunRecord, EvalRecord)


def visible(record: Owned | None, owner: str | None, what: str) -> Owned:
    """The record, if it exists and the caller may see it (404 otherwise: no existence leak)."""
    if record is None or (owner is not None and record.owner != owner):
        raise ApiError(404, f"{what} not found")
    return record


async def owned_run(run_id: RunId, manager: ManagerDep, owner: OwnerDep) -> RunRecord:
    return visible(await manager.store.get(run_id), owner, f"run {run_id}")


RunDep = Annotated[RunRecord, Depends(owned_run)]


EVENT_ID_PATTERN = r"^[0-9]+(\.[0-9]+)?$"  # N, or N.k for a token event
LastEventIdHeader = Annotated[
    str | None,
    Header(
        alias="Last-Event-ID",
        description="resume after this event id (sent by EventSource on reconnect)",
    ),
    WithJsonSchema({"type": "string", "pattern": EVENT_ID_PATTERN}),
]
AfterQuery = Annotated[
    str | None,
    Query(description="same as Last-Event-ID"),
    WithJsonSchema({"type": "string", "pattern": EVENT_ID_PATTERN}),
]


def sse_response(messages: AsyncIterator[dict[str, Any]], heartbeat: float) -> EventSourceResponse:
    """An event stream with heartbeats, never cached or buffered by a proxy."""
    return EventSourceResponse(
        counted_stream(messages),
        ping=heartbeat,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def last_event_id(header: str | None, query: str | None) -> int:
    """The event id to resume after, from the Last-Event-ID header or `?after=` (0: from the
    start). Token ids `N.k` resume after event N."""
    for given in (header, query):
        if given is not None and not re.fullmatch(EVENT_ID_PATTERN, given):
            raise ApiError(400, f"Last-Event-ID must be an event id, got {given!r}")
    raw = header if header is not None else query if query is not None else "0"
    if len(raw.split(".")[0]) > 15:  # ids are sequence numbers: no log holds 10^15 events
        raise ApiError(400, f"Last-Event-ID {raw[:40]!r} is out of range")
    return int(raw.split(".")[0])


def resume_point(last_event_id_header: LastEventIdHeader = None, after: AfterQuery = None) -> int:
    """Where a stream resumes: after the Last-Event-ID header's event, or `?after=`."""
    return last_event_id(last_event_id_header, after)


ResumeDep = Annotated[int, Depends(resume_point)]
