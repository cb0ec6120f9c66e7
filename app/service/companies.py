"""A company's calls kept in the store and read back (issue 40): the run's view of its key's
stored calls (`StoreMemory`, core.memory.CompanyMemory), keeping a finished run's call
(`remember_call`), and one company's calls with the track record of its newest
(`company_history`), for the API, the CLI's `history` and `ingest`."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from app.storage import Store
from app.storage.store import StoredCall
from core.contract import Report, TrackRecord
from core.memory import CallRecord, company_key, current_calls, record_of, track_record
from core.transcript import transcript_sha256

log = logging.getLogger("earnings_desk.companies")


@dataclass(frozen=True)
class StoreMemory:
    """A run's view of the stored calls: its key's only."""

    store: Store
    owner: str | None

    async def calls(self, key: str) -> list[CallRecord]:
        return [c.record for c in await self.store.company_calls(self.owner, key)]


async def remember_call(
    store: Store, owner: str | None, run_id: str, report: Report, transcript: str
) -> StoredCall | None:
    """Keep a finished run's call under its company for later calls' track records: its
    identity (the user's over what was read) and its verified rows. A call whose period cannot
    be placed is not kept (the log says so); keeping it never fails the run."""
    if report.facts is None:
        return None
    call = report.call
    kept = record_of(run_id, report.facts, company=call.company, ticker=call.ticker,
                     period=call.period)  # fmt: skip
    if kept is None:
        log.info("run %s: its call's period is not known; not kept for the track record", run_id)
        return None
    try:
        return await store.save_call(owner, kept, source="run", run_id=run_id,
                                     transcript_sha=transcript_sha256(transcript))  # fmt: skip
    except Exception:  # the run's report stands; its memory is a convenience
        log.exception("run %s: could not keep its call for the track record", run_id)
        return None


@dataclass(frozen=True)
class CompanyHistory:
    key: str
    calls: list[StoredCall]  # every stored call, oldest stored first
    current: list[CallRecord]  # one a period (the newest stored), in period order
    track_record: TrackRecord | None  # the newest period's, against the earlier ones


class AmbiguousCompany(ValueError):
    """A name that the calls of more than one ticker carry."""


async def find_company(store: Store, owner: str | None, asked: str) -> CompanyHistory | None:
    """The stored company a user names. By ticker when the words can be one; else by name: the
    calls linked by that name (stored without a ticker), or, when there are none, the company
    linked by its ticker whose calls carry that name. A name carried by the calls of two
    tickers is AmbiguousCompany, naming them (the linking rule never merges companies)."""
    ticker_key = company_key(asked, None) if re.fullmatch(r"[A-Za-z.]{1,10}", asked) else None
    if ticker_key is not None and (found := await company_history(store, owner, ticker_key)):
        return found
    name_key = company_key(None, asked)
    if name_key is None:
        return None
    if found := await company_history(store, owner, name_key):
        return found
    keys = sorted({c.company_key for c in await store.companies(owner)
                   if c.company_key and company_key(None, c.company) == name_key})  # fmt: skip
    if len(keys) > 1:
        names = ", ".join(k.removeprefix("T:") for k in keys)
        raise AmbiguousCompany(
            f"{asked!r} is the name of {len(keys)} stored companies ({names}): ask for the ticker"
        )
    return await company_history(store, owner, keys[0]) if keys else None


async def company_history(store: Store, owner: str | None, key: str) -> CompanyHistory | None:
    calls = await store.company_calls(owner, key)
    if not calls:
        return None
    current = current_calls(c.record for c in calls)
    record = track_record(current[-1], current[:-1]) if len(current) > 1 else None
    return CompanyHistory(key=key, calls=calls, current=current, track_record=record)


@dataclass(frozen=True)
class Point:
    period: str
    value: float
    text: str


@dataclass(frozen=True)
class Range:
    period: str
    low: float
    high: float
    text: str
    guided_in: str  # the period of the call that gave it


@dataclass(frozen=True)
class Series:
    """One line over the stored quarters, for the company chart: each call's verified result
    for its own period, and each outlook stated for a period (the latest before it)."""

    metric: str
    basis: str | None
    role: str
    unit: str
    results: list[Point]
    guidance: list[Range]


def series(current: list[CallRecord]) -> list[Series]:
    """The lines with at least two points (results or outlooks), in the trend's order."""
    from core.memory import TREND_METRICS, period_order

    results: dict[tuple[str, str | None, str, str], dict[str, Point]] = {}
    guided: dict[tuple[str, str | None, str, str], dict[str, Range]] = {}
    order: dict[str, tuple[int, float]] = {}
    for record in current:  # in period order: a later outlook replaces an earlier one
        for line in record.results:
            label = line.period.label() or ""
            order[label] = period_order(line.period)
            results.setdefault(line.key, {})[label] = Point(label, line.low, line.text)
        for line in record.outlooks:
            label = line.period.label() or ""
            order[label] = period_order(line.period)
            guided.setdefault(line.key, {})[label] = Range(
                label, line.low, line.high, line.text, record.period.label() or ""
            )
    out: list[Series] = []
    for key in sorted(set(results) | set(guided), key=lambda k: (
            TREND_METRICS.index(k[0]) if k[0] in TREND_METRICS else 99, k[0], k[1] or "",
            k[2], k[3])):  # fmt: skip
        points = sorted(results.get(key, {}).values(), key=lambda p: order[p.period])
        ranges = sorted(guided.get(key, {}).values(), key=lambda r: order[r.period])
        if len(points) + len(ranges) >= 2:
            out.append(Series(key[0], key[1], key[2], key[3], points, ranges))
    return out
