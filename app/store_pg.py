"""The run store on PostgreSQL (EDESK_DATABASE_URL): the same runs and event log as the SQLite
store, shared by every API replica and worker, plus the workers' leases on runs.

Schema changes are numbered migrations (`MIGRATIONS`), applied in order at start-up under an
advisory lock, so replicas starting together neither race nor apply one twice."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from psycopg import AsyncConnection, errors
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool
from pydantic import BaseModel

from app.store import (
    _COLUMNS,
    _UPDATABLE,
    RunRecord,
    Store,
    StoredEvent,
    column_value,
    run_filter,
    to_record,
)

MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            pipeline TEXT NOT NULL,
            status TEXT NOT NULL,
            owner TEXT,
            created_at TIMESTAMPTZ NOT NULL,
            started_at TIMESTAMPTZ,
            finished_at TIMESTAMPTZ,
            input TEXT NOT NULL,
            report TEXT,
            error TEXT,
            failed_node TEXT,
            reason TEXT,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            cost DOUBLE PRECISION,
            cancel_requested BOOLEAN NOT NULL DEFAULT FALSE
        );
        CREATE INDEX runs_by_created ON runs (created_at DESC);
        CREATE TABLE events (
            run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            type TEXT NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (run_id, seq)
        );
        """,
    ),
    (
        2,
        """
        ALTER TABLE runs ADD COLUMN lease_owner TEXT;
        ALTER TABLE runs ADD COLUMN lease_until TIMESTAMPTZ;
        ALTER TABLE runs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX runs_unfinished ON runs (status) WHERE status IN ('queued', 'running');
        """,
    ),
]

_LOCK_KEY = 0x4544455348  # "EDESH": the advisory lock migrations run under


async def migrate(conn: AsyncConnection[Any]) -> list[int]:
    """Apply the migrations this database lacks; returns the versions applied."""
    applied: list[int] = []
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS edesk_migrations "
            "(version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        cur = await conn.execute("SELECT version FROM edesk_migrations")
        have = {int(row["version"]) for row in await cur.fetchall()}
        for version, sql in MIGRATIONS:
            if version in have:
                continue
            await conn.execute(sql.encode())
            await conn.execute("INSERT INTO edesk_migrations (version) VALUES (%s)", (version,))
            applied.append(version)
    return applied


def _pg_sets(fields: dict[str, Any]) -> tuple[str, list[Any]]:
    unknown = set(fields) - _UPDATABLE
    if unknown:
        raise KeyError(f"not updatable run fields: {sorted(unknown)}")
    values = [v if isinstance(v, bool) else column_value(v) for v in fields.values()]
    return ", ".join(f"{k} = %s" for k in fields), values


class PgRunStore(Store):
    def __init__(self, pool: AsyncConnectionPool[AsyncConnection[dict[str, Any]]]) -> None:
        self.pool = pool

    @classmethod
    async def open(cls, url: str, *, max_size: int = 10) -> PgRunStore:
        pool: AsyncConnectionPool[AsyncConnection[dict[str, Any]]] = AsyncConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            kwargs={"autocommit": True, "row_factory": dict_row},
            check=AsyncConnectionPool.check_connection,  # a restarted server: reconnect
            open=False,
        )
        await pool.open(wait=True, timeout=30.0)
        async with pool.connection() as conn:
            await migrate(conn)
        return cls(pool)

    async def close(self) -> None:
        await self.pool.close()

    async def _fetch(self, sql: str, args: Any = ()) -> list[dict[str, Any]]:
        async with self.pool.connection() as conn:
            cur = await conn.execute(sql.encode(), args)
            return list(await cur.fetchall()) if cur.description else []

    async def ping(self) -> None:
        await self._fetch("SELECT 1")

    async def create(self, record: RunRecord) -> None:
        await self._fetch(
            "INSERT INTO runs (id, pipeline, status, owner, created_at, input) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            (
                record.id,
                record.pipeline,
                record.status,
                record.owner,
                record.created_at,
                record.input.model_dump_json(),
            ),
        )

    async def get(self, run_id: str) -> RunRecord | None:
        rows = await self._fetch(f"SELECT {_COLUMNS} FROM runs WHERE id = %s", (run_id,))
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
        clause, args = run_filter(owner, status, pipeline, mark="%s")
        total = await self._fetch(f"SELECT COUNT(*) AS n FROM runs WHERE {clause}", args)
        rows = await self._fetch(
            f"SELECT {_COLUMNS} FROM runs WHERE {clause} "
            "ORDER BY created_at DESC, id LIMIT %s OFFSET %s",
            [*args, limit, offset],
        )
        return [to_record(r) for r in rows], int(total[0]["n"])

    async def update(self, run_id: str, **fields: Any) -> None:
        if fields:
            sets, values = _pg_sets(fields)
            await self._fetch(f"UPDATE runs SET {sets} WHERE id = %s", [*values, run_id])

    async def update_if_status(self, run_id: str, statuses: set[str], **fields: Any) -> bool:
        sets, values = _pg_sets(fields)
        rows = await self._fetch(
            f"UPDATE runs SET {sets} WHERE id = %s AND status = ANY(%s) RETURNING id",
            [*values, run_id, sorted(statuses)],
        )
        return bool(rows)

    async def unfinished(self) -> list[RunRecord]:
        rows = await self._fetch(
            f"SELECT {_COLUMNS} FROM runs WHERE status IN ('queued', 'running') ORDER BY created_at"
        )
        return [to_record(r) for r in rows]

    async def delete(self, run_id: str) -> None:
        await self._fetch("DELETE FROM runs WHERE id = %s", (run_id,))  # events cascade

    async def append_event(self, run_id: str, event: BaseModel) -> int:
        data = event.model_dump(mode="json")
        for _ in range(20):  # two writers racing for the next seq: the loser takes the next
            try:
                rows = await self._fetch(
                    "INSERT INTO events (run_id, seq, type, data) "
                    "SELECT %s, COALESCE(MAX(seq), 0) + 1, %s, %s FROM events WHERE run_id = %s "
                    "RETURNING seq",
                    (run_id, data["type"], json.dumps(data), run_id),
                )
                return int(rows[0]["seq"])
            except errors.UniqueViolation:
                continue
        raise RuntimeError(f"could not append an event to run {run_id}")

    async def events(self, run_id: str, *, after: int = 0) -> list[StoredEvent]:
        rows = await self._fetch(
            "SELECT seq, type, data FROM events WHERE run_id = %s AND seq > %s ORDER BY seq",
            (run_id, after),
        )
        return [StoredEvent(seq=r["seq"], type=r["type"], data=json.loads(r["data"])) for r in rows]

    # -- leases (workers) --------------------------------------------------------------------

    async def claim(self, run_id: str, worker: str, lease: timedelta) -> RunRecord | None:
        """Take the run for `worker` if it is queued, or running under a lapsed lease (its
        worker died). None if it is finished, gone, or held by a live worker."""
        rows = await self._fetch(
            "UPDATE runs SET lease_owner = %s, lease_until = now() + %s, attempts = attempts + 1 "
            "WHERE id = %s AND (status = 'queued' OR (status = 'running' AND "
            "(lease_until IS NULL OR lease_until < now() OR lease_owner = %s))) "
            f"RETURNING {_COLUMNS}",
            (worker, lease, run_id, worker),
        )
        return to_record(rows[0]) if rows else None

    async def renew(self, run_id: str, worker: str, lease: timedelta) -> tuple[bool, bool]:
        """Extend the worker's lease: (still ours, cancel requested)."""
        rows = await self._fetch(
            "UPDATE runs SET lease_until = now() + %s WHERE id = %s AND lease_owner = %s "
            "RETURNING cancel_requested",
            (lease, run_id, worker),
        )
        return (True, bool(rows[0]["cancel_requested"])) if rows else (False, False)

    async def release(self, run_id: str, worker: str) -> None:
        await self._fetch(
            "UPDATE runs SET lease_owner = NULL, lease_until = NULL "
            "WHERE id = %s AND lease_owner = %s",
            (run_id, worker),
        )

    async def orphans(self, min_age: timedelta) -> list[str]:
        """Unfinished runs nobody holds: queued longer than `min_age`, or running under a
        lapsed lease. The sweeper re-enqueues those whose queue job is gone."""
        rows = await self._fetch(
            "SELECT id FROM runs WHERE (status = 'queued' AND created_at < now() - %s "
            "AND (lease_until IS NULL OR lease_until < now())) "
            "OR (status = 'running' AND (lease_until IS NULL OR lease_until < now())) "
            "ORDER BY created_at LIMIT 500",
            (min_age,),
        )
        return [r["id"] for r in rows]

    async def lease_of(self, run_id: str) -> tuple[str | None, datetime | None, int]:
        rows = await self._fetch(
            "SELECT lease_owner, lease_until, attempts FROM runs WHERE id = %s", (run_id,)
        )
        if not rows:
            return None, None, 0
        return rows[0]["lease_owner"], rows[0]["lease_until"], int(rows[0]["attempts"])
