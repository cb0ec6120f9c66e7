"""/v1/companies (issue 40): the companies whose calls the key has stored (by its runs, or by
`earnings-desk ingest` for a server without keys), and one company's calls with the track record
of its newest call. Access follows the runs' API-key rules: a key sees its own."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field

from app.api.deps import ManagerDep, OwnerDep
from app.api.errors import ApiError
from app.api.schemas import refusals
from app.service.companies import AmbiguousCompany, find_company, series
from core.contract import TrackRecord

router = APIRouter(prefix="/v1/companies", tags=["companies"], responses=refusals(401))


def public_id(key: str) -> str:
    """A company's id in URLs: its ticker, else its normalized name."""
    return key.split(":", 1)[1]


class CompanySummary(BaseModel):
    id: str = Field(description="the ticker, or the company's name as calls are linked by it")
    company: str | None
    ticker: str | None
    newest_period: str = Field(description="the period of the newest stored call")
    url: str


class StoredCallOut(BaseModel):
    id: str
    period: str
    company: str | None
    ticker: str | None
    source: str = Field(description='"run" (kept when a run finished) or "ingest"')
    run_id: str | None
    stored_at: datetime
    current: bool = Field(description="the newest stored call of its period (false: superseded)")


class PointOut(BaseModel):
    period: str
    value: float
    text: str = Field(description="as the call stated it")


class RangeOut(BaseModel):
    period: str
    low: float
    high: float
    text: str
    guided_in: str = Field(description="the period of the call that gave the outlook")


class SeriesOut(BaseModel):
    metric: str
    basis: str | None
    role: str = Field(description='"result" (a level) or "change" (a growth rate)')
    unit: str
    results: list[PointOut]
    guidance: list[RangeOut] = Field(description="the latest outlook given for each period")


class CompanyDetail(BaseModel):
    id: str
    calls: list[StoredCallOut]
    lines: list[SeriesOut] = Field(description="each line over the quarters, for a chart")
    periods: list[str] = Field(description="the periods the track record reads, in order")
    track_record: TrackRecord | None = Field(
        description="the newest call against the earlier ones (None: one period stored)"
    )


@router.get("", response_model=list[CompanySummary])
async def list_companies(manager: ManagerDep, owner: OwnerDep) -> list[CompanySummary]:
    """The companies with stored calls, by ticker (or name)."""
    newest = await manager.store.companies(owner)
    out = []
    for c in newest:
        public = public_id(c.company_key or "")
        out.append(CompanySummary(id=public, company=c.company, ticker=c.ticker,
                                  newest_period=c.period,
                                  url=f"/v1/companies/{quote(public, safe='')}"))  # fmt: skip
    return out


@router.get("/{company}", response_model=CompanyDetail, responses=refusals(404, 409))
async def get_company(
    company: Annotated[str, Path(min_length=1, max_length=200)],
    manager: ManagerDep,
    owner: OwnerDep,
) -> CompanyDetail:
    """A company's stored calls (each period's newest is current) and the track record of the
    newest call against the earlier ones."""
    try:
        found = await find_company(manager.store, owner, company)
    except AmbiguousCompany as exc:
        raise ApiError(409, str(exc)) from None
    if found is None:
        raise ApiError(404, f"no stored call of company {company!r}")
    current = {r.call_id for r in found.current}
    calls = [
        StoredCallOut(
            id=c.id, period=c.period, company=c.company, ticker=c.ticker, source=c.source,
            run_id=c.run_id, stored_at=c.created_at, current=c.record.call_id in current,
        )
        for c in found.calls
    ]  # fmt: skip
    lines = [
        SeriesOut(
            metric=s.metric, basis=s.basis, role=s.role, unit=s.unit,
            results=[PointOut(period=p.period, value=p.value, text=p.text) for p in s.results],
            guidance=[RangeOut(period=r.period, low=r.low, high=r.high, text=r.text,
                               guided_in=r.guided_in) for r in s.guidance],
        )
        for s in series(found.current)
    ]  # fmt: skip
    return CompanyDetail(
        id=public_id(found.key), calls=calls, lines=lines,
        periods=[r.period.label() or "" for r in found.current], track_record=found.track_record,
    )  # fmt: skip
