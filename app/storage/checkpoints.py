"""LangGraph's checkpointer for the store's engine: SQLite in the data folder, or PostgreSQL
(EDESK_DATABASE_URL) with LangGraph's own migrations run under an advisory lock."""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
)
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from app.storage.sqlite import JOURNAL_LIMIT, SHRINK, make_shrinkable
from app.storage.store import FRESH_SECONDS

_CHECKPOINT_LOCK = 0x4544455343  # advisory lock for LangGraph's checkpoint migrations


async def _try_lock(conn: Any, key: int) -> bool:
    cur = await conn.execute("SELECT pg_try_advisory_lock(%s) AS got", (key,))
    row = await cur.fetchone()
    return bool(row and row["got"])


@asynccontextmanager
async def _postgres(url: str, serde: JsonPlusSerializer) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    returned: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()

    async def stamp(conn: Any) -> None:  # called as each connection goes back to the pool
        returned[conn] = time.monotonic()

    async def check_if_idle(conn: Any) -> None:
        """A restarted server: a connection that sat idle is checked (and replaced when dead)
        before it is handed out; one back from use a moment ago is not, which spares a round
        trip on every checkpoint write (they come back-to-back while a run is busy)."""
        if time.monotonic() - returned.get(conn, 0.0) >= FRESH_SECONDS:
            await AsyncConnectionPool.check_connection(conn)

    pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
        url,
        min_size=1,
        max_size=10,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        check=check_if_idle,
        reset=stamp,
        open=False,
    )
    await pool.open(wait=True, timeout=30.0)
    try:
        pg = AsyncPostgresSaver(pool, serde=serde)
        # LangGraph's own migrations are not safe when replicas start together (two inserts of
        # the same version): run them under a session advisory lock. Polled with try-lock,
        # because a session blocked in pg_advisory_lock holds a snapshot that the holder's
        # CREATE INDEX CONCURRENTLY waits for: a deadlock PostgreSQL cannot see.
        async with pool.connection() as lock:
            while not await _try_lock(lock, _CHECKPOINT_LOCK):
                await asyncio.sleep(0.2)
            try:
                await pg.setup()
            finally:
                await lock.execute("SELECT pg_advisory_unlock(%s)", (_CHECKPOINT_LOCK,))
        yield pg
    finally:
        await pool.close()


class LatestSqliteSaver(AsyncSqliteSaver):
    """SQLite keeps each checkpoint whole (every channel, the transcript included): a run of N
    steps stored N copies of its call. Only the newest checkpoint and its pending writes are
    needed to resume (runs are never rewound), so saving one deletes the thread's older
    ones."""

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        saved = await super().aput(config, checkpoint, metadata, new_versions)
        keys = (str(saved["configurable"]["thread_id"]), saved["configurable"]["checkpoint_ns"])
        async with self.lock:
            for table in ("checkpoints", "writes"):
                await self.conn.execute(
                    f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_ns = ? "
                    "AND checkpoint_id != ?",
                    (*keys, checkpoint["id"]),
                )
            await self.conn.commit()
        return saved


@asynccontextmanager
async def checkpointer(
    database_url: str | None, sqlite_path: Path, allowed_types: tuple[type, ...]
) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """The checkpointer; `allowed_types` are the state types its serializer may revive."""
    serde = JsonPlusSerializer(allowed_msgpack_modules=allowed_types)
    if database_url:
        async with _postgres(database_url, serde) as pg:
            yield pg
        return
    await asyncio.to_thread(make_shrinkable, sqlite_path)
    conn = await aiosqlite.connect(str(sqlite_path))
    await conn.execute(JOURNAL_LIMIT)
    try:
        saver = LatestSqliteSaver(conn, serde=serde)
        await saver.setup()
        yield saver
    finally:
        await conn.close()


async def compact(saver: BaseCheckpointSaver[Any]) -> None:
    """Give deleted checkpoints' space back to the disk (the SQLite file; PostgreSQL's
    autovacuum reuses it in place)."""
    if isinstance(saver, AsyncSqliteSaver):
        async with saver.lock:
            await saver.conn.executescript(SHRINK)
