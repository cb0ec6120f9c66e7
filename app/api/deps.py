"""Dependencies: settings, the run manager, and the caller's identity (optional API keys)."""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Annotated

from fastapi import Depends, Header, Path, Query, Request
from pydantic import WithJsonSchema

from app.api.errors import ApiError
from app.service.runs import RunManager
from app.settings import Settings
from app.storage import RunRecord


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_manager(request: Request) -> RunManager:
    manager: RunManager = request.app.state.manager
    return manager


def get_owner(request: Request) -> str | None:
    """None when auth is off; else a stable id of the caller's key (runs are scoped to it).
    EventSource cannot send headers, so `?access_token=` is accepted as well."""
    keys: list[str] = request.app.state.settings.api_key_list()
    if not keys:
        return None
    header = request.headers.get("authorization", "")
    token = header[7:].strip() if header.lower().startswith("bearer ") else None
    token = token or request.query_params.get("access_token")
    if token and any(hmac.compare_digest(token, k) for k in keys):
        return hashlib.sha256(token.encode()).hexdigest()[:16]
    raise ApiError(
        401,
        "missing or invalid API key (Authorization: Bearer <key>)",
        headers={"WWW-Authenticate": "Bearer"},
    )


SettingsDep = Annotated[Settings, Depends(get_settings)]
ManagerDep = Annotated[RunManager, Depends(get_manager)]
OwnerDep = Annotated[str | None, Depends(get_owner)]


RunId = Annotated[str, Path(description="a run's id (32 hex digits for runs this API made)")]


async def owned_run(run_id: RunId, manager: ManagerDep, owner: OwnerDep) -> RunRecord:
    """The run, if it exists and the caller may see it (404 otherwise: no existence leak)."""
    record = await manager.store.get(run_id)
    if record is None or (owner is not None and record.owner != owner):
        raise ApiError(404, f"run {run_id} not found")
    return record


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


def last_event_id(header: str | None, query: str | None) -> int:
    """The event id to resume after, from the Last-Event-ID header or `?after=` (0: from the
    start). Token ids `N.k` resume after event N."""
    for given in (header, query):
        if given is not None and not re.fullmatch(EVENT_ID_PATTERN, given):
            raise ApiError(400, f"Last-Event-ID must be an event id, got {given!r}")
    raw = header if header is not None else query if query is not None else "0"
    return int(raw.split(".")[0])
