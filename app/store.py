"""The run store: each run's input (stored before it starts), status, report, and its event log
(replayed to SSE clients by sequence number). SQLite by default."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol

import aiosqlite
from pydantic import BaseModel, Field

from core.contract import CallInfo, Report

RunState = Literal["queued", "running", "succeeded", "degraded", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"succeeded", "degraded", "failed", "cancelled"})

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    pipeline TEXT NOT NULL,
    status TEXT NOT NULL,
    owner TEXT,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    input TEXT NOT NULL,
    report TEXT,
    error TEXT,
    failed_node TEXT,
    reason TEXT,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL,
    cancel_requested INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS runs_by_created ON runs(created_at DESC);
CREATE TABLE IF NOT EXISTS events (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
"""


def now() -> datetime:
    return datetime.now(UTC)


class RunInput(BaseModel):
    """Everything needed to (re)start a run; stored before the run starts."""

    transcript: str
    call: CallInfo = Field(default_factory=CallInfo)
    options: dict[str, Any] = Field(default_factory=dict)
    financials: dict[str, Any] | None = None
    prices: dict[str, Any] | None = None


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


class StoredEvent(BaseModel):
    seq: int
    type: str
    data: dict[str, Any]


def run_filter(
    owner: str | None, status: str | None, pipeline: str | None, *, mark: str
) -> tuple[str, list[Any]]:
    """The WHERE clause of a run listing (both stores): owner when given (auth on), status and
    pipeline when not empty; `mark` is the driver's placeholder (`?` SQLite, `%s` psycopg)."""
    where, args = ["1 = 1"], []
    for column, value in (("owner", owner), ("status", status), ("pipeline", pipeline)):
        if value is not None and (column == "owner" or value):
            where.append(f"{column} = {mark}")
            args.append(value)
    return " AND ".join(where), args


_COLUMNS = (
    "id, pipeline, status, owner, created_at, started_at, finished_at, input, report, error, "
    "failed_node, reason, prompt_tokens, completion_tokens, cost, cancel_requested"
)


_UPDATABLE = frozenset(_COLUMNS.replace(" ", "").split(",")) - {"id", "created_at", "input"}


def _dt(value: str | datetime | None) -> datetime | None:
    if isinstance(value, datetime):
        return value
    return datetime.fromisoformat(value) if value else None


def to_record(row: Any) -> RunRecord:
    """A row (SQLite or PostgreSQL, by column name) -> RunRecord."""
    created = _dt(row["created_at"])
    assert created is not None
    return RunRecord(
        id=row["id"],
        pipeline=row["pipeline"],
        status=row["status"],
        owner=row["owner"],
        created_at=created,
        started_at=_dt(row["started_at"]),
        finished_at=_dt(row["finished_at"]),
        input=RunInput.model_validate_json(row["input"]),
        report=Report.model_validate_json(row["report"]) if row["report"] else None,
        error=row["error"],
        failed_node=row["failed_node"],
        reason=row["reason"],
        prompt_tokens=row["prompt_tokens"],
        completion_tokens=row["completion_tokens"],
        cost=row["cost"],
        cancel_requested=bool(row["cancel_requested"]),
    )


def column_value(value: Any) -> Any:
    """A Python value as stored: JSON for models, ints for flags, ISO text for times (SQLite;
    the PostgreSQL store keeps datetimes as they are)."""
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    if isinstance(value, bool):
        return int(value)
    return value


class Store(Protocol):
    """What the API and the run executor need from the run store (SQLite or PostgreSQL)."""

    async def close(self) -> None: ...
    async def ping(self) -> None: ...
    async def create(self, record: RunRecord) -> None: ...
    async def get(self, run_id: str) -> RunRecord | None: ...
    async def list_runs(
        self,
        *,
        owner: str | None,
        status: str | None = None,
        pipeline: str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> tuple[list[RunRecord], int]: ...
    async def update(self, run_id: str, **fields: Any) -> None: ...
    async def update_if_status(self, run_id: str, statuses: set[str], **fields: Any) -> bool: ...
    async def unfinished(self) -> list[RunRecord]: ...
    async def delete(self, run_id: str) -> None: ...
    async def append_event(self, run_id: str, event: BaseModel) -> int: ...
    async def events(self, run_id: str, *, after: int = 0) -> list[StoredEvent]: ...


class RunStore(Store):
    """SQLite (the embedded default)."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn
        # one connection shared by every coroutine: a write (statement + commit) must not
        # interleave with another's, and every cursor is read to the end and closed
        self._write = asyncio.Lock()

    async def _fetch(self, sql: str, args: Any = ()) -> list[aiosqlite.Row]:
        async with self._conn.execute(sql, args) as cur:
            return list(await cur.fetchall())

    async def _exec(self, sql: str, args: Any = ()) -> list[aiosqlite.Row]:
        async with self._write:
            async with self._conn.execute(sql, args) as cur:
                rows = list(await cur.fetchall())
            await self._conn.commit()
            return rows

    @classmethod
    async def open(cls, path: Path) -> RunStore:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(str(path))
        conn.row_factory = aiosqlite.Row
        await conn.execute("PRAGMA journal_mode=WAL")
        await conn.execute("PRAGMA foreign_keys=ON")
        await conn.executescript(_SCHEMA)
        await conn.commit()
        return cls(conn)

    async def close(self) -> None:
        await self._conn.close()

    async def ping(self) -> None:
        await self._fetch("SELECT 1")

    async def create(self, record: RunRecord) -> None:
        await self._exec(
            f"INSERT INTO runs ({_COLUMNS}) VALUES ({', '.join('?' * 16)})",
            (
                record.id,
                record.pipeline,
                record.status,
                record.owner,
                record.created_at.isoformat(),
                None,
                None,
                record.input.model_dump_json(),
                None,
                None,
                None,
                None,
                0,
                0,
                None,
                0,
            ),
        )

    async def get(self, run_id: str) -> RunRecord | None:
        rows = await self._fetch(f"SELECT {_COLUMNS} FROM runs WHERE id = ?", (run_id,))
        return to_record(rows[0]) if rows else None

    async def list_runs(
        self,
        *,
        owner: str | None,
        status: str | None = None,
        pipeline: str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> tuple[list[RunRecord], int]:
        clause, args = run_filter(owner, status, pipeline, mark="?")
        total = await self._fetch(f"SELECT COUNT(*) FROM runs WHERE {clause}", args)
        rows = await self._fetch(
            f"SELECT {_COLUMNS} FROM runs WHERE {clause} "
            "ORDER BY created_at DESC, id LIMIT ? OFFSET ?",
            [*args, limit, offset],
        )
        return [to_record(r) for r in rows], int(total[0][0])

    async def update(self, run_id: str, **fields: Any) -> None:
        if not fields:
            return
        sets, values = self._sets(fields)
        await self._exec(f"UPDATE runs SET {sets} WHERE id = ?", [*values, run_id])

    @staticmethod
    def _sets(fields: dict[str, Any]) -> tuple[str, list[Any]]:
        unknown = set(fields) - _UPDATABLE
        if unknown:
            raise KeyError(f"not updatable run fields: {sorted(unknown)}")
        values = [
            v.isoformat() if isinstance(v, datetime) else column_value(v) for v in fields.values()
        ]
        return ", ".join(f"{k} = ?" for k in fields), values

    async def update_if_status(self, run_id: str, statuses: set[str], **fields: Any) -> bool:
        """Update only while the run's status is one of `statuses`; False if it was not."""
        sets, values = self._sets(fields)
        marks = ", ".join("?" * len(statuses))
        rows = await self._exec(
            f"UPDATE runs SET {sets} WHERE id = ? AND status IN ({marks}) RETURNING id",
            [*values, run_id, *sorted(statuses)],
        )
        return bool(rows)

    async def unfinished(self) -> list[RunRecord]:
        rows = await self._fetch(
            f"SELECT {_COLUMNS} FROM runs WHERE status IN ('queued', 'running') ORDER BY created_at"
        )
        return [to_record(r) for r in rows]

    async def delete(self, run_id: str) -> None:
        await self._exec("DELETE FROM events WHERE run_id = ?", (run_id,))
        await self._exec("DELETE FROM runs WHERE id = ?", (run_id,))

    async def append_event(self, run_id: str, event: BaseModel) -> int:
        """Persist an event; returns its sequence number (the SSE `id:`), 1-based per run."""
        data = event.model_dump(mode="json")
        rows = await self._exec(
            "INSERT INTO events (run_id, seq, type, data) "
            "SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ? FROM events WHERE run_id = ? "
            "RETURNING seq",
            (run_id, data["type"], json.dumps(data), run_id),
        )
        return int(rows[0][0])

    async def events(self, run_id: str, *, after: int = 0) -> list[StoredEvent]:
        rows = await self._fetch(
            "SELECT seq, type, data FROM events WHERE run_id = ? AND seq > ? ORDER BY seq",
            (run_id, after),
        )
        return [StoredEvent(seq=r["seq"], type=r["type"], data=json.loads(r["data"])) for r in rows]
