"""Dependencies: settings, the run manager, and the caller's identity (optional API keys)."""

from __future__ import annotations

import hashlib
import hmac
from typing import Annotated

from fastapi import Depends, Request

from app.api.errors import ApiError
from app.runs import RunManager
from app.settings import Settings
from app.store import RunRecord


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


async def owned_run(run_id: str, manager: ManagerDep, owner: OwnerDep) -> RunRecord:
    """The run, if it exists and the caller may see it (404 otherwise: no existence leak)."""
    record = await manager.store.get(run_id)
    if record is None or (owner is not None and record.owner != owner):
        raise ApiError(404, f"run {run_id} not found")
    return record


RunDep = Annotated[RunRecord, Depends(owned_run)]


def last_event_id(header: str | None, query: str | None) -> int:
    """The event id to resume after, from the Last-Event-ID header or `?after=` (0: from the
    start). Token ids `N.k` resume after event N."""
    raw = header or query or "0"
    head = raw.split(".")[0]
    if not head.isdigit():
        raise ApiError(400, f"Last-Event-ID must be an event id, got {raw!r}")
    return int(head)
