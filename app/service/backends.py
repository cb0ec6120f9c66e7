"""The store, event bus and run queue the settings ask for: SQLite, in-memory and none (the
embedded defaults), or PostgreSQL, Redis pub/sub and the arq queue (docs/operations.md)."""

from __future__ import annotations

from app.service.bus import Bus, LocalBus, RedisBus
from app.service.queue import ArqQueue
from app.service.runs import RunQueue
from app.settings import Settings
from app.storage import Store


async def open_backends(settings: Settings) -> tuple[Store, Bus, RunQueue | None]:
    store = await Store.open(settings.database_url, settings.runs_path)
    if not settings.redis_url:
        return store, LocalBus(), None
    return store, RedisBus(settings.redis_url), await ArqQueue.open(settings.redis_url)
