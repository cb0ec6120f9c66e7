"""API bodies: what the endpoints accept and return (their OpenAPI schema)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.market import MarketSource
from app.storage import RunRecord, RunState
from core.contract import CallInfo, Report
from core.inputs import Financials, Prices
from core.options import RunOptions, request_model
from core.transcript import transcript_sha256
from graphs import PIPELINES

TRANSCRIPT_PATTERN = r"^[^\u0000]*\S[^\u0000]*$"  # what parse_transcript accepts (size aside)

if TYPE_CHECKING:  # the same fields, each optional: see core.options.request_model
    RunOptionsIn = RunOptions
else:
    RunOptionsIn = request_model(RunOptions)


class RunCreate(BaseModel):
    """Start a run: a transcript (plain text or the markdown call format) and a pipeline."""

    model_config = ConfigDict(extra="forbid", strict=True)

    transcript: str = Field(
        description="the call: plain text, or `### Prepared remarks` / "
        "`### Q&A` sections with `**ROLE**` turns; not blank, no NUL characters",
        json_schema_extra={"minLength": 1, "pattern": TRANSCRIPT_PATTERN},
    )
    pipeline: str = Field(default="findebate", json_schema_extra={"enum": list(PIPELINES)})
    company: str | None = Field(default=None, max_length=200)
    ticker: str | None = Field(default=None, max_length=20)
    period: str | None = Field(default=None, max_length=50)
    financials: Financials | None = Field(
        default=None, description="quarterly statements (Alpha Vantage field names)"
    )
    prices: Prices | None = Field(default=None, description="daily OHLCV before the call")
    fetch: bool = Field(
        default=False,
        description="fetch what `financials` and `prices` do not give from Alpha Vantage (the "
        "server's EDESK_ALPHAVANTAGE_API_KEY): statements with the EPS consensus and daily "
        "prices before `call_date`, for `ticker`",
    )
    call_date: str | None = Field(
        default=None,
        pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
        description="YYYY-MM-DD, the day of the call (a date: 422 otherwise). Whatever the "
        "source of `financials` and `prices` (given or fetched), nothing dated on or after it is "
        "used: later price bars, quarters and consensus are cut and the report's notes say so; "
        "statements whose latest quarter ends on or after it are refused (422). Without it, "
        "nothing is cut and the report says which day the market data is as of",
    )
    benchmark: str | None = Field(
        default=None, max_length=20, description="with `fetch`: the benchmark ticker (SPY)"
    )
    source: MarketSource | None = Field(
        default=None,
        description="with `fetch`: alphavantage, keyless (SEC EDGAR statements, Stooq prices) "
        "or auto; default the server's EDESK_MARKET_SOURCE",
    )
    options: RunOptionsIn = Field(default_factory=RunOptionsIn)

    @field_validator("pipeline")
    @classmethod
    def _known_pipeline(cls, v: str) -> str:
        if v not in PIPELINES:
            raise ValueError(f"unknown pipeline {v!r}; choose one of: {', '.join(PIPELINES)}")
        return v

    @property
    def call(self) -> CallInfo:
        return CallInfo(company=self.company, ticker=self.ticker, period=self.period)


class RunLinks(BaseModel):
    self: str
    events: str
    report_md: str
    report_pdf: str
    report_xlsx: str
    report_csv_zip: str
    transcript: str
    cancel: str


def links(run_id: str) -> RunLinks:
    base = f"/v1/runs/{run_id}"
    return RunLinks(
        self=base,
        events=f"{base}/events",
        report_md=f"{base}/report.md",
        report_pdf=f"{base}/report.pdf",
        report_xlsx=f"{base}/report.xlsx",
        report_csv_zip=f"{base}/report.csv.zip",
        transcript=f"{base}/transcript",
        cancel=f"{base}/cancel",
    )


class RunCreated(BaseModel):
    id: str
    status: RunState
    links: RunLinks


class Tokens(BaseModel):
    prompt: int
    completion: int
    total: int


class NodeTiming(BaseModel):
    node: str
    duration_ms: float
    tokens: int
    outcome: str
    models: list[str]


class RunSummary(BaseModel):
    id: str
    pipeline: str
    status: RunState
    call: CallInfo
    transcript_sha256: str = Field(description="runs on the same call share it (compare them)")
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    error: str | None = Field(description="what went wrong, naming the node where known")
    failed_node: str | None
    reason: str | None = Field(
        description="why a run failed or was cancelled: error | budget | cancelled | timeout | "
        "rate_limited | server_error | connection | empty_output | interrupted (its process "
        "was killed or stalled EDESK_RESUME_ATTEMPTS times)"
    )
    tokens: Tokens
    cost_usd: float | None
    links: RunLinks

    @classmethod
    def of(cls, r: RunRecord) -> RunSummary:
        return cls(
            id=r.id, pipeline=r.pipeline, status=r.status, call=r.call_named,
            transcript_sha256=transcript_sha256(r.input.transcript),
            created_at=r.created_at, started_at=r.started_at, finished_at=r.finished_at,
            error=r.error, failed_node=r.failed_node, reason=r.reason,
            tokens=Tokens(prompt=r.prompt_tokens, completion=r.completion_tokens,
                          total=r.prompt_tokens + r.completion_tokens),
            cost_usd=r.cost, links=links(r.id),
        )  # fmt: skip


class RunDetail(RunSummary):
    nodes: list[NodeTiming] = Field(default_factory=list, description="per-node timings, tokens")
    report: Report | None = None

    @classmethod
    def of(cls, r: RunRecord) -> RunDetail:
        nodes = [
            NodeTiming(node=t.node, duration_ms=t.duration_ms, outcome=t.outcome, models=t.models,
                       tokens=t.prompt_tokens + t.completion_tokens)
            for t in (r.report.trace if r.report else [])
        ]  # fmt: skip
        return cls(**RunSummary.of(r).model_dump(), nodes=nodes, report=r.report)


class RunPage(BaseModel):
    items: list[RunSummary]
    total: int
    offset: int
    limit: int


class PipelineEdge(BaseModel):
    source: str
    target: str
    conditional: bool
    label: str | None = None


class PipelineInfo(BaseModel):
    name: str
    summary: str
    nodes: list[str]
    edges: list[PipelineEdge]
    mermaid: str


class ErrorMessage(BaseModel):
    """Every refusal that is not about fields: what is wrong, for a person to read."""

    detail: str


class FieldProblem(BaseModel):
    loc: list[str | int] = Field(description='where: ["body", "transcript"], ["query", "limit"]')
    msg: str
    type: str


class FieldErrors(BaseModel):
    """A refusal naming each bad field (the shape FastAPI uses for 422)."""

    detail: list[FieldProblem]


_REFUSALS: dict[int, tuple[type[BaseModel], str]] = {
    400: (ErrorMessage, "unreadable request: a body that does not parse, a bad Last-Event-ID"),
    401: (ErrorMessage, "missing or wrong API key (when EDESK_API_KEYS is set)"),
    403: (ErrorMessage, "a server folder this server does not allow"),
    404: (ErrorMessage, "no such run or eval (or not the caller's)"),
    409: (
        ErrorMessage,
        "the run has no report (yet, or it failed); a company name two tickers' calls carry",
    ),
    410: (ErrorMessage, "the run was deleted while the request waited for it"),
    413: (FieldErrors, "the body or transcript is over the size limit"),
    415: (ErrorMessage, "a content type other than application/json or multipart/form-data"),
    422: (FieldErrors, "a field is missing or invalid; each problem named"),
    429: (
        ErrorMessage,
        "over a quota (runs per minute or in flight for the key, queue length): "
        "the limit named; retry after Retry-After seconds",
    ),
}


def refusals(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for the 4xx answers a route can give, with their JSON bodies."""
    docs: dict[int | str, dict[str, Any]] = {
        code: {"model": _REFUSALS[code][0], "description": _REFUSALS[code][1]} for code in codes
    }
    if 429 in docs:
        docs[429]["headers"] = {
            "Retry-After": {"schema": {"type": "string"}, "description": "seconds to wait"}
        }
    return docs
