"""The store: runs, evaluations and their event logs, on SQLite (the embedded default, a file
in the data folder) or PostgreSQL (EDESK_DATABASE_URL, shared by every replica and worker).
One SQL layer (SQLAlchemy Core) for both engines; the schema is the Alembic migrations',
applied when the store opens."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from app.storage import migrate
from app.storage.records import (
    EVAL_TERMINAL,
    TERMINAL,
    EvalRecord,
    EvalResult,
    EvalSpec,
    RunInput,
    RunRecord,
    StoredEvent,
    ThreadRecord,
    now,
)
from app.storage.sqlite import JOURNAL_LIMIT, SHRINK, make_shrinkable
from app.storage.tables import company_calls, evals, event_log, runs, threads
from core.contract import CallInfo, Report
from core.memory import CallRecord, company_key, record_from_json, record_to_json
from core.transcript import transcript_sha256

UNFINISHED = ("queued", "running")
_RUN_COLUMNS = [
    c for c in runs.c if c.name not in ("lease_owner", "lease_until", "attempts", "transcript_sha")
]
_SUMMARY_COLUMNS = [c for c in _RUN_COLUMNS if c.name != "report"]
_IMMUTABLE = frozenset({"id", "created_at", "input", "thread_id", "eval_id"})


def thread_key(owner: str | None, thread_id: str) -> str:
    """The stored id of a thread: scoped by its key, so each key has its own thread ids."""
    return thread_id if owner is None else f"{owner}/{thread_id}"


def _owned_by(column: sa.ColumnElement[Any], owner: str | None) -> sa.ColumnElement[bool]:
    return column == owner if owner is not None else column.is_(None)


def database_urls(database_url: str | None, sqlite_path: Path) -> tuple[str, str]:
    """(async URL, sync URL for migrations) for PostgreSQL or the SQLite file."""
    if database_url:
        rest = database_url.split("://", 1)[1]
        return f"postgresql+psycopg://{rest}", f"postgresql+psycopg://{rest}"
    return f"sqlite+aiosqlite:///{sqlite_path}", f"sqlite:///{sqlite_path}"


def _value(value: Any) -> Any:
    """Models are stored as JSON text."""
    return value.model_dump_json() if isinstance(value, BaseModel) else value


def call_read(report: Report | None) -> str | None:
    """The call as the report names it: the user's company, ticker and period over what the
    call facts read (JSON for the `call_read` column)."""
    if report is None:
        return None
    read = report.facts.call if report.facts is not None else None
    given = report.call
    return CallInfo(
        company=given.company or (read.company if read else None),
        ticker=given.ticker or (read.ticker if read else None),
        period=given.period or (read.period if read else None),
    ).model_dump_json()


def to_run(row: Any) -> RunRecord:
    m = row._mapping
    return RunRecord(
        id=m["id"], pipeline=m["pipeline"], status=m["status"], owner=m["owner"],
        created_at=m["created_at"], started_at=m["started_at"], finished_at=m["finished_at"],
        input=RunInput.model_validate_json(m["input"]),
        report=Report.model_validate_json(m["report"]) if m.get("report") else None,
        error=m["error"], failed_node=m["failed_node"], reason=m["reason"],
        prompt_tokens=m["prompt_tokens"], completion_tokens=m["completion_tokens"],
        cost=m["cost"], cancel_requested=bool(m["cancel_requested"]), thread_id=m["thread_id"],
        eval_id=m["eval_id"],
        call_read=CallInfo.model_validate_json(m["call_read"]) if m.get("call_read") else None,
    )  # fmt: skip


def to_eval(row: Any) -> EvalRecord:
    m = row._mapping
    return EvalRecord(
        id=m["id"], owner=m["owner"], status=m["status"], created_at=m["created_at"],
        started_at=m["started_at"], finished_at=m["finished_at"],
        spec=EvalSpec.model_validate_json(m["spec"]), done=m["done"], total=m["total"],
        error=m["error"],
        result=EvalResult.model_validate_json(m["result"]) if m["result"] else EvalResult(),
    )  # fmt: skip


@dataclass(frozen=True)
class StoredCall:
    """One stored call of a company: where it came from and its record."""

    id: str
    owner: str | None
    company_key: str | None
    company: str | None
    ticker: str | None
    period: str
    created_at: datetime
    source: str
    run_id: str | None
    record: CallRecord


def _to_call(m: Any) -> StoredCall:
    return StoredCall(
        id=m["id"], owner=m["owner"], company_key=m["company_key"], company=m["company"],
        ticker=m["ticker"], period=m["period"], created_at=m["created_at"], source=m["source"],
        run_id=m["run_id"], record=record_from_json(m["record"]),
    )  # fmt: skip


# a pooled PostgreSQL connection used this recently is handed out unpinged, unchecked (the
# store's pool and the checkpoint pool alike)
FRESH_SECONDS = 1.0


def _ping_when_idle(engine: AsyncEngine) -> None:
    """`pool_pre_ping`, for connections that sat idle: a restarted server is still caught (the
    pool replaces a dead connection before handing it out), but one back from use a moment ago
    is not pinged, which spares a round trip on each of a busy run's event writes."""
    pool = engine.sync_engine.pool

    @sa.event.listens_for(pool, "checkin")
    def returned(_: Any, record: Any) -> None:
        record.info["edesk_returned"] = time.monotonic()

    @sa.event.listens_for(pool, "checkout")
    def ping_if_idle(dbapi_connection: Any, record: Any, _: Any) -> None:
        if time.monotonic() - record.info.get("edesk_returned", 0.0) < FRESH_SECONDS:
            return
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:
            raise sa.exc.DisconnectionError(str(exc)) from exc
        if not alive:
            raise sa.exc.DisconnectionError("the connection did not answer a ping")


class Store:
    """Every read and write of runs, evaluations, event logs and leases."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        # SQLite has one writer at a time: writes of this process queue here instead of
        # failing with "database is locked"
        self._write = asyncio.Lock() if engine.dialect.name == "sqlite" else None

    @classmethod
    async def open(cls, database_url: str | None, sqlite_path: Path) -> Store:
        """Open the database, upgrading its schema first (in place, keeping its data)."""
        async_url, sync_url = database_urls(database_url, sqlite_path)
        if not database_url:
            sqlite_path.parent.mkdir(parents=True, exist_ok=True)
            await asyncio.to_thread(make_shrinkable, sqlite_path)
        await asyncio.to_thread(migrate.upgrade, sync_url)
        if database_url:
            engine = create_async_engine(async_url, pool_size=10)
            _ping_when_idle(engine)
        else:
            # one connection kept (as the store always had); up to 7 more for bursts of reads,
            # closed when returned, so thousands of streams do not keep files open
            engine = create_async_engine(
                async_url, connect_args={"timeout": 30}, pool_size=1, max_overflow=7
            )
            sa.event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return cls(engine)

    async def close(self) -> None:
        await self.engine.dispose()

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[AsyncConnection]:
        if self._write is None:
            async with self.engine.begin() as conn:
                yield conn
            return
        async with self._write, self.engine.begin() as conn:
            yield conn

    @asynccontextmanager
    async def _one_statement(self) -> AsyncIterator[AsyncConnection]:
        """A connection for one write statement, atomic by itself: on PostgreSQL in autocommit
        (no BEGIN and COMMIT round trips around it); on SQLite the writer's lock and a
        transaction, as every write."""
        if self._write is not None:
            async with self._tx() as conn:
                yield conn
            return
        async with self.engine.connect() as conn:
            await conn.execution_options(isolation_level="AUTOCOMMIT")
            yield conn

    async def _rows(self, stmt: sa.Executable) -> Sequence[sa.Row[Any]]:
        async with self.engine.connect() as conn:
            return (await conn.execute(stmt)).all()

    async def _write_rows(self, stmt: sa.Executable) -> Sequence[sa.Row[Any]]:
        async with self._tx() as conn:
            result = await conn.execute(stmt)
            return result.all() if result.returns_rows else []

    async def ping(self) -> None:
        await self._rows(sa.select(sa.literal(1)))

    # -- a company's calls (issue 40) ----------------------------------------------------------

    async def save_call(
        self,
        owner: str | None,
        record: CallRecord,
        *,
        source: str,
        transcript_sha: str,
        run_id: str | None = None,
    ) -> StoredCall:
        """Keep a call's record under its company (`company_key`; unlinked when it has none).
        The same transcript stored again for the same company replaces its row; another call of
        the same period is added and supersedes it for the track record."""
        key = company_key(record.ticker, record.company)
        row = {
            "id": run_id or f"call-{uuid.uuid4().hex[:16]}", "owner": owner,
            "company_key": key, "company": record.company, "ticker": record.ticker,
            "period": record.period.label(), "call_date": record.call_date, "created_at": now(),
            "source": source, "run_id": run_id, "transcript_sha": transcript_sha,
            "record": record_to_json(record),
        }  # fmt: skip
        same = [_owned_by(company_calls.c.owner, owner),
                company_calls.c.transcript_sha == transcript_sha,
                company_calls.c.company_key.is_(None) if key is None
                else company_calls.c.company_key == key]  # fmt: skip
        async with self._tx() as conn:
            await conn.execute(company_calls.delete().where(*same))
            await conn.execute(company_calls.insert().values(row))
        return _to_call(row)

    async def company_calls(self, owner: str | None, key: str) -> list[StoredCall]:
        """Every stored call of the company, oldest stored first."""
        stmt = (sa.select(company_calls).where(_owned_by(company_calls.c.owner, owner),
                company_calls.c.company_key == key)
                .order_by(company_calls.c.created_at, company_calls.c.id))  # fmt: skip
        return [_to_call(r._mapping) for r in await self._rows(stmt)]

    async def companies(self, owner: str | None) -> list[StoredCall]:
        """The newest stored call of each company (linked calls only), by company key."""
        stmt = (sa.select(company_calls).where(_owned_by(company_calls.c.owner, owner),
                company_calls.c.company_key.is_not(None))
                .order_by(company_calls.c.created_at, company_calls.c.id))  # fmt: skip
        newest: dict[str, StoredCall] = {}
        for r in await self._rows(stmt):
            call = _to_call(r._mapping)
            newest[call.company_key or ""] = call
        return sorted(newest.values(), key=lambda c: (c.ticker or c.company or "").lower())

    async def unlinked_calls(self, owner: str | None) -> int:
        stmt = (
            sa.select(sa.func.count())
            .select_from(company_calls)
            .where(_owned_by(company_calls.c.owner, owner), company_calls.c.company_key.is_(None))
        )
        return int((await self._rows(stmt))[0][0])

    async def ingested_before(self, cutoff: datetime) -> int:
        """Retention of ingested calls (a run's call goes with its run): delete those stored
        before `cutoff`; returns how many."""
        stmt = company_calls.delete().where(company_calls.c.source == "ingest",
                                            company_calls.c.created_at < cutoff)  # fmt: skip
        async with self._tx() as conn:
            result = await conn.execute(stmt)
        return int(result.rowcount or 0)

    # -- runs --------------------------------------------------------------------------------

    async def create(self, record: RunRecord) -> None:
        values = {c.name: _value(getattr(record, c.name)) for c in _RUN_COLUMNS}
        # the options as given (unset fields stay unset: the executing engine's defaults)
        values["input"] = record.input.model_dump_json(exclude_unset=True)
        values["transcript_sha"] = transcript_sha256(record.input.transcript)
        values["call_read"] = call_read(record.report)
        await self._write_rows(runs.insert().values(values))

    async def get(self, run_id: str) -> RunRecord | None:
        rows = await self._rows(sa.select(*_RUN_COLUMNS).where(runs.c.id == run_id))
        return to_run(rows[0]) if rows else None

    async def list_runs(
        self,
        *,
        owner: str | None,
        status: str | None = None,
        pipeline: str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> tuple[list[RunRecord], int]:
        """Runs newest first: the caller's own when auth is on (`owner`), by status and
        pipeline when given. Summaries: the records come without their reports (`report` is
        None; `get` has it), which are most of a finished run's bytes and of the time taken
        to read a page of runs."""
        where: list[sa.ColumnElement[bool]] = []
        if owner is not None:
            where.append(runs.c.owner == owner)
        if status:
            where.append(runs.c.status == status)
        if pipeline:
            where.append(runs.c.pipeline == pipeline)
        count = sa.select(sa.func.count()).select_from(runs).where(*where)
        page = (
            sa.select(*_SUMMARY_COLUMNS)
            .where(*where)
            .order_by(runs.c.created_at.desc(), runs.c.id)
            .limit(limit)
            .offset(offset)
        )
        total = (await self._rows(count))[0][0]
        return [to_run(r) for r in await self._rows(page)], int(total)

    async def count_runs(
        self,
        *,
        owner: str | None = None,
        any_owner: bool = False,
        statuses: set[str] | None = None,
        since: datetime | None = None,
        eval_runs: bool = True,
    ) -> tuple[int, datetime | None]:
        """(how many runs, the oldest one's created_at) of `owner` (every owner with
        `any_owner`), in `statuses`, created at or after `since`, evaluations' report runs
        left out unless `eval_runs`: the intake's quotas."""
        where: list[sa.ColumnElement[bool]] = []
        if not any_owner:
            where.append(_owned_by(runs.c.owner, owner))
        if not eval_runs:
            where.append(runs.c.eval_id.is_(None))
        if statuses:
            where.append(runs.c.status.in_(sorted(statuses)))
        if since is not None:
            where.append(runs.c.created_at >= since)
        stmt = sa.select(sa.func.count(), sa.func.min(runs.c.created_at)).where(*where)
        row: Any = (await self._rows(stmt))[0]
        count, oldest = row[0], row[1]
        if isinstance(oldest, str):
            oldest = datetime.fromisoformat(oldest)
        if oldest is not None and oldest.tzinfo is None:
            oldest = oldest.replace(tzinfo=UTC)
        return int(count), oldest

    @staticmethod
    def _sets(fields: dict[str, Any]) -> dict[str, Any]:
        unknown = set(fields) - ({c.name for c in _RUN_COLUMNS} - _IMMUTABLE)
        if unknown:
            raise KeyError(f"not updatable run fields: {sorted(unknown)}")
        sets = {k: _value(v) for k, v in fields.items()}
        if isinstance(fields.get("report"), Report):
            sets["call_read"] = call_read(fields["report"])
        return sets

    async def update(self, run_id: str, **fields: Any) -> None:
        if fields:
            await self._write_rows(
                runs.update().where(runs.c.id == run_id).values(self._sets(fields))
            )

    async def update_if_status(self, run_id: str, statuses: set[str], **fields: Any) -> bool:
        """Update only while the run's status is one of `statuses`; False if it was not."""
        stmt = (
            runs.update()
            .where(runs.c.id == run_id, runs.c.status.in_(sorted(statuses)))
            .values(self._sets(fields))
            .returning(runs.c.id)
        )
        return bool(await self._write_rows(stmt))

    async def begin_attempt(self, run_id: str) -> int:
        """Count one more start of the run; returns the starts before this one. For a run
        still unfinished, each of those ended with its process killed or stalled (an orderly
        stop gives its start back: `uncount_attempt`)."""
        stmt = (
            runs.update()
            .where(runs.c.id == run_id)
            .values(attempts=runs.c.attempts + 1)
            .returning(runs.c.attempts)
        )
        rows = await self._write_rows(stmt)
        return int(rows[0][0]) - 1 if rows else 0

    async def uncount_attempt(self, run_id: str) -> None:
        """A start that ended in order (shutdown, a lost database, a lost lease) is not one
        that killed or stalled its process."""
        fewer = sa.case((runs.c.attempts > 0, runs.c.attempts - 1), else_=0)
        await self._write_rows(runs.update().where(runs.c.id == run_id).values(attempts=fewer))

    async def attempts(self, run_id: str) -> int:
        """How many times the run was started (`begin_attempt`, or a worker's `claim`)."""
        rows = await self._rows(sa.select(runs.c.attempts).where(runs.c.id == run_id))
        return int(rows[0][0]) if rows else 0

    async def unfinished(self) -> list[RunRecord]:
        stmt = (
            sa.select(*_RUN_COLUMNS)
            .where(runs.c.status.in_(UNFINISHED))
            .order_by(runs.c.created_at)
        )
        return [to_run(r) for r in await self._rows(stmt)]

    async def delete(self, run_id: str) -> str | None:
        """The run and its event log; returns the run's transcript id (None: no such run)."""
        async with self._tx() as conn:
            sha = (
                await conn.execute(sa.select(runs.c.transcript_sha).where(runs.c.id == run_id))
            ).scalar()
            await conn.execute(event_log.delete().where(event_log.c.stream_id == run_id))
            await conn.execute(company_calls.delete().where(company_calls.c.run_id == run_id))
            await conn.execute(runs.delete().where(runs.c.id == run_id))
        return str(sha) if sha else None

    async def uses_transcript(self, sha: str) -> bool:
        """Whether any stored run reads this transcript (and so may use its search index)."""
        stmt = sa.select(runs.c.id).where(runs.c.transcript_sha == sha).limit(1)
        return bool(await self._rows(stmt))

    async def ended_before(self, cutoff: datetime) -> list[str]:
        """Ids of the runs that ended (any final status) before `cutoff`, oldest first."""
        stmt = (
            sa.select(runs.c.id)
            .where(runs.c.status.in_(sorted(TERMINAL)), runs.c.finished_at < cutoff)
            .order_by(runs.c.finished_at)
        )
        return [r.id for r in await self._rows(stmt)]

    async def compact(self) -> None:
        """Give the space of deleted rows back to the file system (SQLite: the free pages and
        the write-ahead log; PostgreSQL's autovacuum reuses it in place)."""
        if self._write is None:
            return
        async with self._write, self.engine.connect() as conn:
            driver: Any = (await conn.get_raw_connection()).driver_connection  # aiosqlite
            await driver.executescript(SHRINK)

    # -- LangGraph threads --------------------------------------------------------------------

    async def create_thread(self, record: ThreadRecord) -> None:
        values = record.model_dump()
        values["id"] = thread_key(record.owner, record.id)
        values["metadata"] = json.dumps(record.metadata)
        await self._write_rows(threads.insert().values(values))

    async def get_thread(self, owner: str | None, thread_id: str) -> ThreadRecord | None:
        """`owner`'s thread `thread_id` (another key's thread of the same id is not it)."""
        key = thread_key(owner, thread_id)
        rows = await self._rows(
            sa.select(threads).where(threads.c.id == key, _owned_by(threads.c.owner, owner))
        )
        if not rows:
            return None
        m = rows[0]._mapping
        return ThreadRecord(
            id=thread_id, owner=m["owner"], created_at=m["created_at"],
            metadata=json.loads(m["metadata"]),
        )  # fmt: skip

    async def count_threads(self, owner: str | None) -> int:
        stmt = sa.select(sa.func.count()).select_from(threads)
        return int((await self._rows(stmt.where(_owned_by(threads.c.owner, owner))))[0][0])

    async def delete_thread(self, owner: str | None, thread_id: str) -> None:
        key = thread_key(owner, thread_id)
        await self._write_rows(
            threads.delete().where(threads.c.id == key, _owned_by(threads.c.owner, owner))
        )

    def _thread_runs_where(self, owner: str | None, thread_id: str) -> list[sa.ColumnElement[bool]]:
        return [runs.c.thread_id == thread_id, _owned_by(runs.c.owner, owner)]

    async def thread_runs(
        self, owner: str | None, thread_id: str, *, limit: int, offset: int
    ) -> list[RunRecord]:
        """`owner`'s thread's runs, newest first."""
        stmt = (
            sa.select(*_RUN_COLUMNS)
            .where(*self._thread_runs_where(owner, thread_id))
            .order_by(runs.c.created_at.desc(), runs.c.id)
            .limit(limit)
            .offset(offset)
        )
        return [to_run(r) for r in await self._rows(stmt)]

    async def thread_run_ids(self, owner: str | None, thread_id: str) -> list[str]:
        stmt = sa.select(runs.c.id).where(*self._thread_runs_where(owner, thread_id))
        return [r.id for r in await self._rows(stmt)]

    async def idle_threads_before(self, cutoff: datetime) -> list[tuple[str | None, str]]:
        """(owner, thread id) of the threads made before `cutoff` that hold no run: what
        retention deletes once the runs that ended before it are gone."""
        run_thread_key = sa.case(
            (runs.c.owner.is_(None), runs.c.thread_id),
            else_=runs.c.owner + "/" + runs.c.thread_id,
        )
        has_run = sa.exists().where(runs.c.thread_id.is_not(None), run_thread_key == threads.c.id)
        stmt = sa.select(threads.c.id, threads.c.owner).where(
            threads.c.created_at < cutoff, sa.not_(has_run)
        )
        return [
            (r.owner, r.id if r.owner is None else r.id.split("/", 1)[1])
            for r in await self._rows(stmt)
        ]

    # -- event logs (runs and evaluations) --------------------------------------------------

    async def append_event(self, stream_id: str, event: BaseModel) -> int:
        """Persist an event; returns its sequence number (the SSE `id:`), 1-based per stream."""
        data = event.model_dump(mode="json")
        next_seq = sa.select(
            sa.literal(stream_id),
            sa.func.coalesce(sa.func.max(event_log.c.seq), 0) + 1,
            sa.literal(data["type"]),
            sa.literal(json.dumps(data)),
        ).where(event_log.c.stream_id == stream_id)
        stmt = (
            event_log.insert()
            .from_select(["stream_id", "seq", "type", "data"], next_seq)
            .returning(event_log.c.seq)
        )
        for _ in range(20):  # two writers racing for the next seq: the loser takes the next
            try:
                return int((await self._write_rows(stmt))[0][0])
            except sa.exc.IntegrityError:
                continue
        raise RuntimeError(f"could not append an event to {stream_id}")

    async def append_events(
        self, stream_id: str, events: Sequence[BaseModel], *, after: int | None = None
    ) -> int:
        """Persist several events in order, all or none; returns the last sequence number.
        `after`: the last number this writer stored, which spares reading the end (one INSERT
        of every row, atomic by itself: no transaction around it); a writer racing for the
        same numbers makes this retry from the new end, read."""
        if not events:
            return await self.last_seq(stream_id)
        data = [e.model_dump(mode="json") for e in events]

        def rows(last: int) -> list[dict[str, Any]]:
            return [{"stream_id": stream_id, "seq": last + i, "type": d["type"],
                     "data": json.dumps(d)} for i, d in enumerate(data, 1)]  # fmt: skip

        if after is not None:
            try:
                async with self._one_statement() as conn:
                    await conn.execute(event_log.insert().values(rows(after)))
                return after + len(data)
            except sa.exc.IntegrityError:
                pass  # another writer took those numbers: read the end
        top = sa.select(sa.func.coalesce(sa.func.max(event_log.c.seq), 0)).where(
            event_log.c.stream_id == stream_id
        )
        for _ in range(20):
            try:
                async with self._tx() as conn:
                    last = int((await conn.execute(top)).scalar_one())
                    await conn.execute(event_log.insert().values(rows(last)))
                    return last + len(data)
            except sa.exc.IntegrityError:
                continue
        raise RuntimeError(f"could not append events to {stream_id}")

    async def last_seq(self, stream_id: str, event_type: str | None = None) -> int:
        """The stream's last sequence number (of `event_type`, when given); 0 when none."""
        where = [event_log.c.stream_id == stream_id]
        if event_type is not None:
            where.append(event_log.c.type == event_type)
        stmt = sa.select(sa.func.coalesce(sa.func.max(event_log.c.seq), 0)).where(*where)
        return int((await self._rows(stmt))[0][0])

    async def events(self, stream_id: str, *, after: int = 0) -> list[StoredEvent]:
        stmt = (
            sa.select(event_log.c.seq, event_log.c.type, event_log.c.data)
            .where(event_log.c.stream_id == stream_id, event_log.c.seq > after)
            .order_by(event_log.c.seq)
        )
        return [
            StoredEvent(seq=r.seq, type=r.type, data=json.loads(r.data))
            for r in await self._rows(stmt)
        ]

    # -- leases (workers hold runs; an API replica holds an evaluation) ---------------------

    async def claim(self, run_id: str, worker: str, lease: timedelta) -> RunRecord | None:
        """Take the run for `worker` if it is queued or running and nobody else holds a live
        lease on it (its worker died, or never started it). None if it is finished, gone, or
        held by a live worker: a queued run another worker has just claimed (its status not yet
        `running`) is that worker's, so a second delivery of the job does not start it twice."""
        t = now()
        free = sa.and_(
            runs.c.status.in_(("queued", "running")),
            sa.or_(
                runs.c.lease_until.is_(None),
                runs.c.lease_until < t,
                runs.c.lease_owner == worker,
            ),
        )
        stmt = (
            runs.update()
            .where(runs.c.id == run_id, free)
            .values(lease_owner=worker, lease_until=t + lease, attempts=runs.c.attempts + 1)
            .returning(*_RUN_COLUMNS)
        )
        rows = await self._write_rows(stmt)
        return to_run(rows[0]) if rows else None

    async def renew(self, run_id: str, worker: str, lease: timedelta) -> tuple[bool, bool]:
        """Extend the worker's lease: (still ours, cancel requested)."""
        stmt = (
            runs.update()
            .where(runs.c.id == run_id, runs.c.lease_owner == worker)
            .values(lease_until=now() + lease)
            .returning(runs.c.cancel_requested)
        )
        rows = await self._write_rows(stmt)
        return (True, bool(rows[0][0])) if rows else (False, False)

    async def release(self, run_id: str, worker: str) -> None:
        await self._write_rows(
            runs.update()
            .where(runs.c.id == run_id, runs.c.lease_owner == worker)
            .values(lease_owner=None, lease_until=None)
        )

    async def orphans(self, min_age: timedelta) -> list[str]:
        """Unfinished runs nobody holds: queued longer than `min_age`, or running under a
        lapsed lease. The sweeper re-enqueues those whose queue job is gone."""
        t = now()
        lapsed = sa.or_(runs.c.lease_until.is_(None), runs.c.lease_until < t)
        stmt = (
            sa.select(runs.c.id)
            .where(
                sa.or_(
                    sa.and_(runs.c.status == "queued", runs.c.created_at < t - min_age, lapsed),
                    sa.and_(runs.c.status == "running", lapsed),
                )
            )
            .order_by(runs.c.created_at)
            .limit(500)
        )
        return [r.id for r in await self._rows(stmt)]

    # -- evaluations -------------------------------------------------------------------------

    async def create_eval(self, record: EvalRecord) -> None:
        fields = EvalRecord.model_fields
        values = {c.name: _value(getattr(record, c.name)) for c in evals.c if c.name in fields}
        await self._write_rows(evals.insert().values(values))

    async def get_eval(self, eval_id: str) -> EvalRecord | None:
        rows = await self._rows(sa.select(evals).where(evals.c.id == eval_id))
        return to_eval(rows[0]) if rows else None

    async def update_eval(self, eval_id: str, **fields: Any) -> None:
        values = {k: _value(v) for k, v in fields.items()}
        await self._write_rows(evals.update().where(evals.c.id == eval_id).values(values))

    async def update_eval_if_status(self, eval_id: str, statuses: set[str], **fields: Any) -> bool:
        """Update only while the evaluation's status is one of `statuses`."""
        values = {k: _value(v) for k, v in fields.items()}
        stmt = (
            evals.update()
            .where(evals.c.id == eval_id, evals.c.status.in_(sorted(statuses)))
            .values(values)
            .returning(evals.c.id)
        )
        return bool(await self._write_rows(stmt))

    async def list_evals(
        self, *, owner: str | None, limit: int = 20, offset: int = 0
    ) -> tuple[list[EvalRecord], int]:
        """Evaluations newest first: the caller's own when auth is on (`owner`)."""
        where = [] if owner is None else [evals.c.owner == owner]
        count = sa.select(sa.func.count()).select_from(evals).where(*where)
        page = (
            sa.select(evals)
            .where(*where)
            .order_by(evals.c.created_at.desc(), evals.c.id)
            .limit(limit)
            .offset(offset)
        )
        total = (await self._rows(count))[0][0]
        return [to_eval(r) for r in await self._rows(page)], int(total)

    async def eval_slots(self, owner: str | None) -> int:
        """Runs `owner`'s unfinished evaluations may have queued or running at once: each at
        most its concurrency, and no more than it has reports left to write."""
        stmt = sa.select(evals.c.spec, evals.c.total, evals.c.done).where(
            _owned_by(evals.c.owner, owner), evals.c.status.in_(UNFINISHED)
        )
        return sum(
            min(EvalSpec.model_validate_json(r.spec).concurrency, max(0, r.total - r.done))
            for r in await self._rows(stmt)
        )

    async def delete_eval(self, eval_id: str) -> None:
        """The evaluation's record and event log (its runs and files: `EvalManager.delete`)."""
        async with self._tx() as conn:
            await conn.execute(event_log.delete().where(event_log.c.stream_id == eval_id))
            await conn.execute(evals.delete().where(evals.c.id == eval_id))

    async def evals_ended_before(self, cutoff: datetime) -> list[str]:
        stmt = (
            sa.select(evals.c.id)
            .where(evals.c.status.in_(sorted(EVAL_TERMINAL)), evals.c.finished_at < cutoff)
            .order_by(evals.c.finished_at)
        )
        return [r.id for r in await self._rows(stmt)]

    async def eval_specs(self) -> list[tuple[str, EvalSpec]]:
        """Every stored evaluation's (id, spec): which folders are still someone's."""
        rows = await self._rows(sa.select(evals.c.id, evals.c.spec))
        return [(r.id, EvalSpec.model_validate_json(r.spec)) for r in rows]

    async def claim_eval(
        self, eval_id: str, holder: str, lease: timedelta, *, force: bool = False
    ) -> bool:
        """Hold an unfinished evaluation (one coordinator at a time; a dead one's lapses).
        `force`: take it whoever held it (one process alone: its holder died with it)."""
        t = now()
        free = sa.or_(
            evals.c.lease_until.is_(None), evals.c.lease_until < t, evals.c.lease_owner == holder
        )
        stmt = (
            evals.update()
            .where(
                evals.c.id == eval_id, evals.c.status.in_(UNFINISHED), *([] if force else [free])
            )
            .values(lease_owner=holder, lease_until=t + lease)
            .returning(evals.c.id)
        )
        return bool(await self._write_rows(stmt))

    async def unheld_evals(self, *, lapsed_only: bool = True) -> list[str]:
        """Unfinished evaluations; with `lapsed_only`, those whose coordinator is gone."""
        lapsed = sa.or_(evals.c.lease_until.is_(None), evals.c.lease_until < now())
        stmt = (
            sa.select(evals.c.id)
            .where(evals.c.status.in_(UNFINISHED), *([lapsed] if lapsed_only else []))
            .order_by(evals.c.created_at)
        )
        return [r.id for r in await self._rows(stmt)]


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute(JOURNAL_LIMIT)
    cur.close()
