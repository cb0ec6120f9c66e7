"""The limits every route applies. The body cap: declared sizes past it are refused before
reading, streamed bodies as soon as they pass it (413, JSON naming the limit; the run intake has
its own, smaller, transcript-sized limit), and a deadline for the body to arrive
(EDESK_BODY_TIMEOUT: 408); for `serve`, a deadline for a connection's headers
(EDESK_HEADER_TIMEOUT: the connection is closed), so slow or endless clients hold nothing open.
The per-key quotas, the same for every route that starts runs or stores threads (`/v1/runs`,
`/v1/evals`, the LangGraph routes): past one, 429 naming the limit's setting, and nothing
stored. The size of what a thread keeps."""

from __future__ import annotations

import asyncio
import json
import logging
import math
from datetime import timedelta
from typing import Any

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.errors import ApiError, FieldError
from app.settings import Settings
from app.storage import Store, now


async def check_quotas(store: Store, owner: str | None, settings: Settings, runs: int = 1) -> None:
    """Per key: runs in flight (queued or running, an unfinished evaluation's counting as the
    most it may have at once) and runs started in the last minute; overall: the queue. `runs`:
    how many the request would put in flight. Past a limit, 429 with Retry-After and the limit
    named."""
    own, _ = await store.count_runs(owner=owner, statuses={"queued", "running"}, eval_runs=False)
    in_flight = own + await store.eval_slots(owner)
    if in_flight + runs > settings.key_runs_in_flight:
        asked = "" if runs == 1 else f"; this request would add {runs}"
        raise ApiError(
            429,
            f"this key has {in_flight} runs queued or running{asked} (limit "
            f"EDESK_KEY_RUNS_IN_FLIGHT={settings.key_runs_in_flight}); retry when one finishes",
            headers={"Retry-After": "10"},
        )
    window = now() - timedelta(minutes=1)
    recent, oldest = await store.count_runs(owner=owner, since=window)
    if recent >= settings.key_runs_per_minute:
        wait = 60 - (now() - oldest).total_seconds() if oldest else 60
        raise ApiError(
            429,
            f"this key started {recent} runs in the last minute (limit "
            f"EDESK_KEY_RUNS_PER_MINUTE={settings.key_runs_per_minute})",
            headers={"Retry-After": str(max(1, math.ceil(wait)))},
        )
    queued, _ = await store.count_runs(any_owner=True, statuses={"queued"})
    if queued >= settings.max_queue:
        raise ApiError(
            429,
            f"the queue is full: {queued} runs waiting (EDESK_MAX_QUEUE={settings.max_queue})",
            headers={"Retry-After": "30"},
        )


async def check_thread_quota(store: Store, owner: str | None, settings: Settings) -> None:
    """Per key: the threads kept (a stateless run makes one too). Past it, 429."""
    kept = await store.count_threads(owner)
    if kept >= settings.key_threads:
        raise ApiError(
            429,
            f"this key keeps {kept} threads (limit EDESK_KEY_THREADS={settings.key_threads}); "
            "delete some (DELETE /threads/{id}) or let retention remove idle ones",
        )


def check_metadata(metadata: dict[str, Any] | None, settings: Settings) -> None:
    """A thread's metadata: what every later answer can send back as JSON (encodable text, no
    lone surrogate in keys or values; no NaN or Infinity) within
    EDESK_MAX_THREAD_METADATA_BYTES. 422 / 413 naming the field; nothing is echoed."""
    if not metadata:
        return
    try:
        size = len(json.dumps(metadata, ensure_ascii=False, allow_nan=False).encode("utf-8"))
    except UnicodeEncodeError:
        raise FieldError(
            "metadata",
            "metadata is not valid Unicode: it holds a lone surrogate (such as \\ud800)",
            kind="string_unicode",
        ) from None
    except ValueError:
        raise FieldError("metadata", "metadata holds NaN or Infinity, which JSON has not") from None
    limit = settings.max_thread_metadata_bytes
    if size > limit:
        raise FieldError(
            "metadata",
            f"metadata is {size:,} bytes as JSON; the limit is {limit:,} "
            "(EDESK_MAX_THREAD_METADATA_BYTES)",
            status=413,
            kind="too_large",
        )


log = logging.getLogger("earnings_desk.api")


class BodyLimit:
    def __init__(self, app: ASGIApp, limit: int, timeout: float = 60.0) -> None:
        self.app, self.limit, self.timeout = app, limit, timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            size = int(declared)
            await _too_large(
                send, f"{size:,} bytes; the limit is {self.limit:,} (EDESK_MAX_REQUEST_BYTES)"
            )
            return
        received = 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        headers = dict(scope["headers"])
        # no body announced (a GET, an SSE stream): nothing to time; a later receive() is the
        # wait for the client's disconnect, however long the answer takes
        complete = declared in (b"", b"0") and b"transfer-encoding" not in headers

        async def limited() -> Message:
            nonlocal received, complete
            if complete:  # the body is in: what follows is the wait for a disconnect
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                log.warning("request body not in after %gs: refused (408)", self.timeout)
                raise HTTPException(408, _late(self.timeout), {"Connection": "close"}) from None
            if message["type"] == "http.request":
                complete = not message.get("more_body", False)
                received += len(message.get("body", b""))
                if received > self.limit:
                    # raised inside the app (FastAPI re-raises HTTPException from body reading)
                    raise HTTPException(
                        413,
                        _detail(f"over the {self.limit:,}-byte limit (EDESK_MAX_REQUEST_BYTES)"),
                    )
            return message

        await self.app(scope, limited, send)


async def _too_large(send: Send, message: str) -> None:
    body = json.dumps({"detail": _detail(message)}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _detail(message: str) -> list[dict[str, object]]:
    """The FieldErrors shape the OpenAPI schema documents for 413."""
    return [{"loc": ["body"], "msg": f"request body is {message}", "type": "too_large"}]


def _late(timeout: float) -> list[dict[str, object]]:
    msg = f"the request body did not arrive within {timeout:g} s (EDESK_BODY_TIMEOUT={timeout:g})"
    return [{"loc": ["body"], "msg": msg, "type": "timeout"}]


def guarded_h11(header_timeout: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol, closing a connection whose request headers have not all arrived
    `header_timeout` seconds after it opened or after its last response (uvicorn times out
    idle keep-alive connections, not a request's headers sent a byte at a time)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
            self._header_timer = self.loop.call_later(header_timeout, self._headers_late)

        def _headers_late(self) -> None:
            waiting = self.cycle is None or self.cycle.response_complete
            reading = self.conn.their_state in (h11.IDLE, h11.DONE)
            if waiting and reading and not self.transport.is_closing():
                log.warning(
                    "request headers not in after %gs (EDESK_HEADER_TIMEOUT): connection closed",
                    header_timeout,
                )
                self.transport.close()

    return GuardedH11
