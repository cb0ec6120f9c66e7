"""The LangGraph Platform's shapes for `routes_langgraph`: assistants (our pipelines), threads,
runs, the run request as the LangGraph SDK sends it, and the status mapping."""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.api.errors import ApiError, BodyInvalid
from app.storage import RunRecord
from graphs import PIPELINES

_NAMESPACE = uuid.UUID("6f1d8a52-3c1e-4f0b-9d55-7e2b1c0a4e17")
Mode = Literal["values", "updates", "custom", "messages", "messages-tuple"]
MODES: tuple[Mode, ...] = ("values", "updates", "custom", "messages", "messages-tuple")
LgStatus = Literal["pending", "running", "success", "error", "interrupted"]
STATUS: dict[str, LgStatus] = {
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


THREAD_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
THREAD_ID_RULE = "1 to 64 characters, each a letter A-Z or a-z, a digit, '_' or '-'"


def check_thread_id(thread_id: str) -> str:
    """The one rule for the id of a thread being made, whichever route makes it (it goes back
    in headers and paths): a 422 naming the path parameter, never echoing it."""
    if not re.fullmatch(THREAD_ID_PATTERN, thread_id):
        msg = f"a new thread's id must be {THREAD_ID_RULE} (a UUID fits)"
        raise BodyInvalid([{"loc": ["path", "thread_id"], "msg": msg, "type": "string_pattern"}])
    return thread_id


class LgConfig(BaseModel):
    """A run's `config`: `configurable` holds run options (as `context` does); the rest of
    what LangGraph's config takes (tags, recursion_limit...) has no effect here."""

    model_config = ConfigDict(extra="allow")

    configurable: dict[str, Any] | None = None


class LgRunCreate(BaseModel):
    """A LangGraph run request, as the SDK sends it."""

    model_config = ConfigDict(extra="forbid")

    assistant_id: str
    input: dict[str, Any] | None = None
    config: LgConfig | None = None
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
            status=STATUS[record.status],
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

    thread_id: str | None = Field(
        default=None, pattern=THREAD_ID_PATTERN, description=f"{THREAD_ID_RULE}; default a UUID"
    )
    metadata: dict[str, Any] | None = None
    if_exists: Literal["raise", "do_nothing"] | None = None


def values_of(record: RunRecord) -> dict[str, Any]:
    """A finished run's output, as `/runs/wait` and `join` return it."""
    if record.report is not None:
        return {"report": record.report.model_dump(mode="json")}
    if record.status == "failed":
        return {"__error__": {"error": record.reason or "error", "message": record.error or ""}}
    return {}
