"""A company's calls kept in the store and read back (issue 40): the run's view of its key's
stored calls (`StoreMemory`, core.memory.CompanyMemory), keeping a finished run's call
(`remember_call`), and one company's calls with the track record of its newest
(`company_history`), for the API, the CLI's `history` and `ingest`."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from app.storage import Store
from app.storage.store import StoredCall
from core.contract import Report, TrackRecord
from core.memory import CallRecord, current_calls, record_of, track_record
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


async def company_history(store: Store, owner: str | None, key: str) -> CompanyHistory | None:
    calls = await store.company_calls(owner, key)
    if not calls:
        return None
    current = current_calls(c.record for c in calls)
    record = track_record(current[-1], current[:-1]) if len(current) > 1 else None
    return CompanyHistory(key=key, calls=calls, current=current, track_record=record)
