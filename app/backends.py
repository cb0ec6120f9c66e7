"""The run store, event bus and run queue the settings ask for: SQLite, in-memory and none (the
embedded defaults), or PostgreSQL, Redis pub/sub and the arq queue (README "Running at scale")."""

from __future__ import annotations

from app.bus import Bus, LocalBus, RedisBus
from app.queue import ArqQueue
from app.runs import RunQueue
from app.settings import Settings
from app.store import RunStore, Store


async def open_backends(settings: Settings) -> tuple[Store, Bus, RunQueue | None]:
    store: Store
    if settings.database_url:
        from app.store_pg import PgRunStore

        store = await PgRunStore.open(settings.database_url)
    else:
        store = await RunStore.open(settings.runs_path)
    if not settings.redis_url:
        return store, LocalBus(), None
    return store, RedisBus(settings.redis_url), await ArqQueue.open(settings.redis_url)
