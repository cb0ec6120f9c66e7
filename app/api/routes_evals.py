"""/v1/evals: start an evaluation (the `earnings-desk eval` job) and follow it over SSE."""

from __future__ import annotations

import asyncio
import json
import shutil
import uuid
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from sse_starlette.sse import EventSourceResponse

from app.api.deps import OwnerDep, ResumeDep, SettingsDep, sse_response, visible
from app.api.errors import ApiError, FieldError
from app.api.intake import transcript_refusal
from app.api.limits import check_quotas
from app.api.schemas import refusals
from app.evaluation.dataset import DatasetError, EvalItem, load_dataset
from app.evaluation.service import EvalManager, calls_of
from app.settings import Settings
from app.storage import EvalRecord, EvalSpec
from core.options import named_variants
from core.transcript import TranscriptError, check_bounds, decode_transcript, parse_transcript
from core.transcript import visible as has_visible_text
from graphs import PIPELINES

router = APIRouter(prefix="/v1/evals", tags=["evals"], responses=refusals(401, 422))


# A pipeline or one of its paper's variants (`adversarial@S1`, `writer_feedback@simple_writer`).
EVAL_PIPELINES: list[str] = named_variants(PIPELINES)
_DISTINCT_PIPELINES: dict[str, Any] = {
    "items": {"type": "string", "enum": EVAL_PIPELINES},
    "uniqueItems": True,
}


class EvalCallIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
    transcript: str = Field(
        min_length=1,
        description="the call; within EDESK_MAX_TRANSCRIPT_BYTES (413) and "
        "EDESK_MAX_TRANSCRIPT_LINES (422), as a run's",
    )
    summary: str | None = Field(default=None, description="gold bullets, one per line")
    labels: dict[Literal["day", "week", "month"], Literal[1, -1]] | None = Field(
        default=None, description="price direction per horizon: 1 up, -1 down"
    )
    company: str | None = Field(default=None, max_length=200)
    ticker: str | None = Field(default=None, max_length=12)
    fiscal_period: str | None = Field(default=None, max_length=20, description='e.g. "Q2 2026"')
    call_date: str | None = Field(
        default=None, description="YYYY-MM-DD: nothing of the call's data dated on or after it is "
        "used (cut, and said in the summary)",
    )  # fmt: skip
    financials: dict[str, Any] | None = Field(
        default=None, description="the call's statements, as a run's `financials` (the seeds' "
        "layout); the data-dependent roles read them",
    )  # fmt: skip
    prices: dict[str, Any] | None = Field(
        default=None, description="the call's daily prices, as a run's `prices`"
    )

    @field_validator("id")
    @classmethod
    def _not_a_file_role(cls, cid: str) -> str:
        """ ".summary" and ".full" end the names of gold bullets and full calls."""
        if cid.endswith((".summary", ".full")):
            raise ValueError(f"call id {cid!r} must not end in .summary or .full")
        return cid

    @field_validator("transcript")
    @classmethod
    def _usable(cls, text: str) -> str:
        """Refused like a run's transcript: invisible-only text is empty."""
        if not has_visible_text(text):
            raise ValueError(
                "transcript is empty (only whitespace or invisible characters such as U+200B)"
            )
        return text


class EvalCreate(BaseModel):
    """Either `dir` (a server folder in the ECTSum layout, under EDESK_EVAL_DIRS) or `calls`."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "oneOf": [
                {"required": ["dir"], "properties": {"dir": {"type": "string"}}},
                {"required": ["calls"], "properties": {"calls": {"type": "array"}}},
            ]
        },
    )

    dir: str | None = Field(default=None, min_length=1, max_length=4096)
    calls: list[EvalCallIn] | None = Field(default=None, min_length=1, max_length=50)
    pipelines: list[str] = Field(
        default=["facts", "findebate", "zero_shot", "multi_agent"],
        min_length=1,
        max_length=len(EVAL_PIPELINES),
        description="pipelines, or their variants named name@VALUE (adversarial@S1)",
        json_schema_extra=_DISTINCT_PIPELINES,
    )
    ids: list[str] | None = None
    limit: int | None = Field(default=None, ge=1)
    prefer: Literal["txt", "full"] = "txt"
    judge: bool = Field(default=False, description="grade with the server's model (role grader)")
    pairwise: list[str] | None = Field(
        default=None,
        min_length=2,
        max_length=2,
        description="judge these two against each other (run even if not in pipelines)",
        json_schema_extra=_DISTINCT_PIPELINES,
    )
    concurrency: int = Field(default=1, ge=1, le=8)

    @field_validator("dir")
    @classmethod
    def _a_path(cls, folder: str | None) -> str | None:
        """A folder path is printable text: NUL or another control character (which the file
        system would refuse with an exception) is a refusal here."""
        if folder is not None and any(ord(c) < 32 or ord(c) == 127 for c in folder):
            raise ValueError("dir must be a folder path without control characters (e.g. NUL)")
        return folder

    @model_validator(mode="after")
    def _one_source(self) -> EvalCreate:
        if (self.dir is None) == (self.calls is None):
            raise ValueError("give exactly one of dir or calls")
        unknown = [p for p in self.pipelines if p not in EVAL_PIPELINES]
        if unknown:
            raise ValueError(
                f"unknown pipeline(s) {', '.join(unknown)}; choose from {', '.join(PIPELINES)} "
                "or a variant name@VALUE (adversarial@S1)"
            )
        if len(set(self.pipelines)) != len(self.pipelines):
            raise ValueError("pipelines must not repeat")
        if self.pairwise:
            if self.pairwise[0] == self.pairwise[1]:
                raise ValueError("pairwise takes two different pipelines")
            bad = [p for p in self.pairwise if p not in EVAL_PIPELINES]
            if bad:
                raise ValueError(f"unknown pairwise pipeline(s) {', '.join(bad)}")
            self.pipelines += [p for p in self.pairwise if p not in self.pipelines]
        if self.calls and len({c.id for c in self.calls}) != len(self.calls):
            raise ValueError("calls must have distinct ids")
        return self


class EvalSummary(BaseModel):
    """An evaluation; `status` is queued, running, succeeded, failed or cancelled."""

    id: str
    status: str
    created_at: datetime
    done: int
    total: int
    error: str | None = None
    out_dir: str = Field(
        description="where the evaluation writes, relative to the server's data folder "
        "(evals/<id>): never a server path"
    )
    table: str | None = Field(default=None, description="the summary table, Markdown")
    rows: list[dict[str, Any]] = Field(default_factory=list)
    tally: dict[str, Any] = Field(default_factory=dict)
    links: dict[str, str] = Field(default_factory=dict)


class EvalPage(BaseModel):
    items: list[EvalSummary]
    total: int
    offset: int
    limit: int


def get_evals(request: Request) -> EvalManager:
    manager: EvalManager = request.app.state.evals
    return manager


EvalsDep = Annotated[EvalManager, Depends(get_evals)]


def _summary(job: EvalRecord) -> EvalSummary:
    return EvalSummary(
        id=job.id, status=job.status, created_at=job.created_at, done=job.done, total=job.total,
        error=job.error, out_dir=f"evals/{Path(job.spec.out).name}", table=job.result.table,
        rows=job.result.rows,
        tally=job.result.tally,
        links={"self": f"/v1/evals/{job.id}", "events": f"/v1/evals/{job.id}/events"},
    )  # fmt: skip


def _folder(body: EvalCreate, settings: SettingsDep, evals: EvalManager, eval_id: str) -> Path:
    if body.calls is not None:
        folder = evals.root / "inputs" / eval_id  # the evaluation's own: deleted with it
        folder.mkdir(parents=True)
        for c in body.calls:
            (folder / f"{c.id}.txt").write_text(c.transcript, encoding="utf-8")
            if c.summary:
                (folder / f"{c.id}.summary.txt").write_text(c.summary, encoding="utf-8")
            for kind, data in (("financials", c.financials), ("prices", c.prices)):
                if data is not None:
                    (folder / f"{c.id}.{kind}.json").write_text(json.dumps(data), encoding="utf-8")
        entries = [
            {"id": c.id, "stock_labels": c.labels, "company": c.company, "ticker": c.ticker,
             "fiscal_period": c.fiscal_period, "call_date": c.call_date}
            for c in body.calls
        ]  # fmt: skip
        entries = [{k: v for k, v in e.items() if v is not None} for e in entries]
        if any(len(e) > 1 for e in entries):
            (folder / "manifest.json").write_text(json.dumps({"items": entries}))
        return folder
    assert body.dir is not None
    allowed = settings.eval_dir_list()
    folder = Path(body.dir).resolve()
    if not any(folder.is_relative_to(root) for root in allowed):
        raise ApiError(
            403,
            f"dir {body.dir!r} is not under a folder this server allows "
            "(EDESK_EVAL_DIRS); send the calls inline instead",
        )
    return folder


@router.post(
    "", status_code=202, response_model=EvalSummary, responses=refusals(400, 403, 413, 429)
)
async def create_eval(
    request: Request, body: EvalCreate, settings: SettingsDep, evals: EvalsDep, owner: OwnerDep
) -> EvalSummary:
    """Start an evaluation; follow it at `links.events`, read the table at `links.self`. Its
    report runs count in the key's quotas: it may have `concurrency` of them queued or running
    at once, so it needs that many free runs of EDESK_KEY_RUNS_IN_FLIGHT (429 otherwise)."""
    for i, call in enumerate(body.calls or []):  # a run's bounds, before anything is stored
        try:
            check_bounds(call.transcript, **settings.transcript_bounds())
        except TranscriptError as exc:
            raise transcript_refusal(exc, where=("calls", i)) from None
    eval_id = uuid.uuid4().hex
    folder = _folder(body, settings, evals, eval_id)
    accepted = False
    try:
        spec = await _spec(body, settings, evals, folder, eval_id)
        lock: asyncio.Lock = request.app.state.intake_lock  # the same lock as the run intake
        async with lock:
            slots = min(spec.concurrency, len(spec.calls) * len(spec.pipelines))
            await check_quotas(evals.store, owner, settings, runs=slots)
            accepted = True
            record = await evals.start(owner, spec, eval_id=eval_id)
    except BaseException:
        if body.calls is not None and not accepted:
            shutil.rmtree(folder, ignore_errors=True)  # nothing of a refused request is kept
        raise
    return _summary(record)


async def _spec(
    body: EvalCreate, settings: Settings, evals: EvalManager, folder: Path, eval_id: str
) -> EvalSpec:
    roots = None if body.calls is not None else settings.eval_dir_list()
    try:
        items = load_dataset(folder, prefer=body.prefer, ids=body.ids, roots=roots)
    except DatasetError as exc:
        field = "ids" if body.ids and "no transcript for id" in str(exc) else (
            "calls" if body.calls is not None else "dir"
        )  # fmt: skip
        # the message names files by their name in the folder, never a server path
        raise FieldError(field, str(exc).replace(str(folder) + "/", "").replace(
            str(folder), body.dir or "the calls")) from None  # fmt: skip
    if body.limit:
        items = items[: body.limit]
    if body.dir is not None:
        await asyncio.to_thread(_within_bounds, items, settings)
    pair = (body.pairwise[0], body.pairwise[1]) if body.pairwise else None
    if body.judge and pair is None and len(body.pipelines) >= 2:
        pair = (body.pipelines[0], body.pipelines[1])
    return EvalSpec(
        calls=calls_of(items), pipelines=list(body.pipelines), judge=body.judge, pair=pair,
        out=str(evals.root / eval_id), options=settings.run_defaults(),
        concurrency=body.concurrency,
    )  # fmt: skip


@router.get("", response_model=EvalPage)
async def list_evals(
    evals: EvalsDep,
    owner: OwnerDep,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
) -> EvalPage:
    """The key's evaluations, newest first (`GET /v1/evals/{id}` has each one's table)."""
    items, total = await evals.store.list_evals(owner=owner, limit=limit, offset=offset)
    page = [_summary(e).model_copy(update={"table": None, "rows": []}) for e in items]
    return EvalPage(items=page, total=total, offset=offset, limit=limit)


def _within_bounds(items: list[EvalItem], settings: Settings) -> None:
    """A server folder's calls, each checked at intake as an inline call would be (size, lines,
    UTF-8, not empty or only invisible characters, no NUL): refused on `dir`, naming the file."""
    bounds = settings.transcript_bounds()
    for item in items:
        try:
            parse_transcript(decode_transcript(item.path.read_bytes(), **bounds), **bounds)
        except TranscriptError as exc:
            refusal = transcript_refusal(exc)
            raise FieldError("dir", f"call {item.id} ({item.path.name}): {exc}",
                             status=refusal.status, kind=refusal.kind) from None  # fmt: skip


async def owned_eval(eval_id: str, evals: EvalsDep, owner: OwnerDep) -> EvalRecord:
    return visible(await evals.store.get_eval(eval_id), owner, f"eval {eval_id}")


EvalDep = Annotated[EvalRecord, Depends(owned_eval)]


@router.get("/{eval_id}", response_model=EvalSummary, responses=refusals(404))
async def get_eval(job: EvalDep) -> EvalSummary:
    return _summary(job)


@router.post("/{eval_id}/cancel", response_model=EvalSummary, responses=refusals(404))
async def cancel_eval(job: EvalDep, evals: EvalsDep) -> EvalSummary:
    """No report run starts after this; those queued or running are cancelled (a running one
    at its next node boundary). A finished evaluation is left as it is."""
    updated = await evals.cancel(job.id)
    if updated is None:
        raise ApiError(404, f"eval {job.id} not found")
    return _summary(updated)


@router.delete("/{eval_id}", status_code=204, responses=refusals(404))
async def delete_eval(job: EvalDep, evals: EvalsDep) -> Response:
    """Cancel if needed and delete the evaluation, its events, its report runs, its inline
    calls and its output folder."""
    await evals.delete(job.id)
    return Response(status_code=204)


@router.get(
    "/{eval_id}/events",
    response_class=EventSourceResponse,
    responses={200: {"content": {"text/event-stream": {}}}, **refusals(400, 404)},
)
async def eval_events(
    job: EvalDep, evals: EvalsDep, settings: SettingsDep, after: ResumeDep
) -> EventSourceResponse:
    """eval_queued, eval_started, report_started, report_finished, judged, pair_judged, then
    eval_finished; replayed after Last-Event-ID."""
    return sse_response(evals.stream(job.id, after), settings.sse_heartbeat)
