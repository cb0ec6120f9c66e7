"""What the store keeps, as typed records: a run (its input, stored before it starts; status,
report, tokens), an evaluation job, and the numbered events of either's log."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from core.contract import CallInfo, Report
from core.inputs import Financials, Prices
from core.options import RunOptions

RunState = Literal["queued", "running", "succeeded", "degraded", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"succeeded", "degraded", "failed", "cancelled"})
EvalState = Literal["queued", "running", "succeeded", "failed", "cancelled"]
EVAL_TERMINAL: frozenset[str] = frozenset({"succeeded", "failed", "cancelled"})


def now() -> datetime:
    return datetime.now(UTC)


class RunInput(BaseModel):
    """Everything needed to (re)start a run; stored before the run starts."""

    transcript: str
    call: CallInfo = Field(default_factory=CallInfo)
    options: RunOptions = Field(
        description="resolved when the run was accepted (the request's values over the "
        "defaults) and used as stored; a run stored before options were resolved at intake "
        "(only the given ones) takes RunOptions' defaults for the rest",
    )
    # typed (they serialise themselves); a run stored when they were dicts (by alias, e.g.
    # "Ticker") reads back the same: the models take their aliases and names alike
    financials: Financials | None = None
    prices: Prices | None = None


class RunRecord(BaseModel):
    id: str
    pipeline: str
    status: RunState
    owner: str | None = None
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    input: RunInput
    report: Report | None = None
    error: str | None = None
    failed_node: str | None = None
    reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    cancel_requested: bool = False
    thread_id: str | None = None
    eval_id: str | None = None
    call_read: CallInfo | None = Field(
        default=None, description="the call as its report names it (set when the report is)"
    )

    @property
    def call_named(self) -> CallInfo:
        """The call as a list shows it: as the report named it, else as it was given."""
        return self.call_read or self.input.call


class ThreadRecord(BaseModel):
    """A LangGraph thread: a container of runs (the LangGraph SDK's routes). `id` is the id the
    client knows; the store keeps it scoped by `owner`, so each key has its own ids."""

    id: str
    owner: str | None = None
    created_at: datetime
    metadata: dict[str, Any] = Field(default_factory=dict)


class EvalCall(BaseModel):
    """One call of an evaluation: its transcript file (under the evaluation's input folder or an
    allowed server folder), gold bullets, labels and call info."""

    id: str
    path: str
    summary: str | None = None
    labels: dict[str, Any] | None = None
    call: CallInfo = Field(default_factory=CallInfo)
    # the call's data, as its run receives it (already cut at its call date)
    financials: Financials | None = None
    prices: Prices | None = None


class EvalSpec(BaseModel):
    """What an evaluation runs: calls x pipelines, whether to judge, and where it writes."""

    calls: list[EvalCall]
    pipelines: list[str]
    out: str
    judge: bool = False
    pair: tuple[str, str] | None = None
    concurrency: int = 1
    options: RunOptions = Field(default_factory=RunOptions)


class EvalResult(BaseModel):
    table: str | None = None
    rows: list[dict[str, Any]] = Field(default_factory=list)
    tally: dict[str, Any] = Field(default_factory=dict)


class EvalRecord(BaseModel):
    """A durable evaluation job: its report runs are ordinary runs (ids derived from the job's
    id, the call and the pipeline), so a restarted job finds the ones already done."""

    id: str
    owner: str | None = None
    status: EvalState = "queued"
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    spec: EvalSpec
    done: int = 0
    total: int = 0
    error: str | None = None
    result: EvalResult = Field(default_factory=EvalResult)


class StoredEvent(BaseModel):
    seq: int
    type: str
    data: dict[str, Any]
