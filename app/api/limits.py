"""Limits on every request: a cap on its body (declared sizes past it are refused before
reading, streamed bodies as soon as they pass it: 413, JSON naming the limit; the run intake has
its own, smaller, transcript-sized limit) and a deadline for the body to arrive
(EDESK_BODY_TIMEOUT: 408); and, for `serve`, a deadline for a connection's headers
(EDESK_HEADER_TIMEOUT: the connection is closed). Slow or endless clients hold nothing open."""

from __future__ import annotations

import asyncio
import json
import logging

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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
            await _too_large(send, f"{size:,} bytes; the limit is {self.limit:,}")
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
                    raise HTTPException(413, _detail(f"over the {self.limit:,}-byte limit"))
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
