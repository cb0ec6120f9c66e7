"""Live fan-out of a run's progress to its SSE streams. The event log in the store is the truth;
the bus only wakes streams up ("the log of run X grew") and carries token deltas, which are
live-only. In one process it is in memory; with EDESK_REDIS_URL it is Redis pub/sub, so a run
executing on any worker can be streamed from any API replica. A lost wake-up costs at most one
poll interval (the streams re-read the log on a timer), never an event."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any, Protocol

from app.service.events import TokenDelta

log = logging.getLogger("earnings_desk.bus")

WAKE = "wake"  # what a listener receives when the run's stored log grew


class Listener:
    """One stream's inbox: WAKE or TokenDelta items."""

    def __init__(self, tokens: bool) -> None:
        self.tokens = tokens
        self.queue: asyncio.Queue[str | TokenDelta] = asyncio.Queue(maxsize=10_000)

    def put(self, item: str | TokenDelta) -> None:
        if isinstance(item, TokenDelta) and not self.tokens:
            return
        with contextlib.suppress(asyncio.QueueFull):  # a stalled client: drop live tokens
            self.queue.put_nowait(item)

    async def get(self, timeout: float) -> str | TokenDelta | None:
        try:
            return await asyncio.wait_for(self.queue.get(), timeout)
        except TimeoutError:
            return None


class Bus(Protocol):
    async def notify(self, run_id: str) -> None: ...
    async def token(self, delta: TokenDelta) -> None: ...
    def listen(
        self, run_id: str, *, tokens: bool
    ) -> contextlib.AbstractAsyncContextManager[Listener]: ...
    async def close(self) -> None: ...


class LocalBus(Bus):
    def __init__(self) -> None:
        self._listeners: dict[str, set[Listener]] = {}

    def deliver(self, run_id: str, item: str | TokenDelta) -> None:
        for listener in list(self._listeners.get(run_id, ())):
            listener.put(item)

    async def notify(self, run_id: str) -> None:
        self.deliver(run_id, WAKE)

    async def token(self, delta: TokenDelta) -> None:
        self.deliver(delta.run_id, delta)

    @contextlib.asynccontextmanager
    async def listen(self, run_id: str, *, tokens: bool) -> AsyncIterator[Listener]:
        listener = Listener(tokens)
        self._listeners.setdefault(run_id, set()).add(listener)
        try:
            yield listener
        finally:
            self.remove(run_id, listener)

    def remove(self, run_id: str, listener: Listener) -> bool:
        """Drop a listener; True when it was the run's last."""
        group = self._listeners.get(run_id)
        if group is None:
            return False
        group.discard(listener)
        if not group:
            del self._listeners[run_id]
            return True
        return False

    async def close(self) -> None:
        self._listeners.clear()


def channel(run_id: str) -> str:
    return f"edesk:run:{run_id}"


class RedisBus(Bus):
    """One pub/sub connection per process, subscribed to the channels of the runs someone here
    streams (not one Redis connection per SSE client); messages are handed to local listeners."""

    def __init__(self, url: str) -> None:
        from redis.asyncio import Redis

        self._redis: Any = Redis.from_url(url)
        self._pubsub: Any = self._redis.pubsub()
        self._local = LocalBus()
        self._subscribed: set[str] = set()
        self._lock = asyncio.Lock()
        self._reader: asyncio.Task[None] | None = None

    async def notify(self, run_id: str) -> None:
        await self._publish(run_id, WAKE)

    async def token(self, delta: TokenDelta) -> None:
        await self._publish(delta.run_id, delta.model_dump_json())

    async def _publish(self, run_id: str, payload: str) -> None:
        try:
            await self._redis.publish(channel(run_id), payload)
        except Exception as exc:  # Redis away: streams still catch up from the log by polling
            log.warning("bus publish failed (%s); streams fall back to polling", exc)

    @contextlib.asynccontextmanager
    async def listen(self, run_id: str, *, tokens: bool) -> AsyncIterator[Listener]:
        async with self._local.listen(run_id, tokens=tokens) as listener:
            try:
                await self._subscribe(run_id)
            except Exception as exc:
                log.warning("bus subscribe failed (%s); this stream polls the log", exc)
            try:
                yield listener
            finally:
                if len(self._local._listeners.get(run_id, ())) <= 1:
                    await self._unsubscribe(run_id)

    async def _subscribe(self, run_id: str) -> None:
        async with self._lock:
            if run_id not in self._subscribed:
                await self._pubsub.subscribe(channel(run_id))
                self._subscribed.add(run_id)
            if self._reader is None or self._reader.done():
                self._reader = asyncio.create_task(self._read(), name="bus-reader")

    async def _unsubscribe(self, run_id: str) -> None:
        async with self._lock:
            if run_id in self._subscribed:
                self._subscribed.discard(run_id)
                with contextlib.suppress(Exception):
                    await self._pubsub.unsubscribe(channel(run_id))

    async def _read(self) -> None:
        while True:
            try:
                if not self._subscribed:
                    await asyncio.sleep(0.2)
                    continue
                msg = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # connection lost: redis-py resubscribes on reconnect
                log.warning("bus reader: %s; retrying", exc)
                await asyncio.sleep(1.0)
                continue
            if msg is None or msg.get("type") != "message":
                continue
            run_id = msg["channel"].decode().removeprefix("edesk:run:")
            data = msg["data"].decode()
            self._local.deliver(
                run_id, WAKE if data == WAKE else TokenDelta.model_validate_json(data)
            )

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()
        with contextlib.suppress(Exception):
            await self._redis.aclose()
